import Daemon
import Foundation
import Glibc
import Testing

/// A fresh directory short enough for socket paths (108 bytes), removed by `remove()`.
struct TempDir {
    let path: String

    init() {
        path = "/tmp/pfd-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// Collects what a server hands out, for assertions from the test's thread.
final class Inbox: @unchecked Sendable {
    // Safe: `items` is read and written only under `lock`.
    private let lock = NSLock()
    private var items: [ControlServer.Incoming] = []

    func append(_ item: ControlServer.Incoming) { lock.withLock { items.append(item) } }
    var all: [ControlServer.Incoming] { lock.withLock { items } }

    /// Waits (bounded, 10 s) until `condition` holds for what arrived.
    func wait(_ condition: ([ControlServer.Incoming]) -> Bool) -> Bool {
        for _ in 0..<1000 {
            if condition(all) { return true }
            usleep(10_000)
        }
        return condition(all)
    }
}

/// A socket file left behind by a process that died: bound, then closed without unlink.
func makeStaleSocket(at path: String) {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
    _ = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
    }
    close(fd)
}

/// The file mode bits (e.g. 0o600) of `path`.
func permissions(_ path: String) -> mode_t? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return info.st_mode & 0o777
}

/// Decodes a reply line into its fields.
func fields(_ line: String?) -> [String: JSONValue] {
    guard let line, let value = try? JSONDecoder().decode(JSONValue.self, from: Data(line.utf8)) else {
        return [:]
    }
    return value.objectValue ?? [:]
}
