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

/// A client on plain system calls, for what `ControlClient` does not do: shutting down its
/// writing side only, as `nc -N` and socat do after their input.
final class RawClient {
    let fd: Int32

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        try #require(connected == 0, "connect \(path): errno \(errno)")
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    func write(_ text: String) {
        let bytes = Array(text.utf8)
        #expect(Glibc.send(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count)
    }

    /// No more requests: the daemon sees an end of file, and may still write.
    func finishWriting() { shutdown(fd, Int32(SHUT_WR)) }

    /// Everything the other side writes until it closes (or 10 s pass without a byte).
    func readToEnd() -> String {
        var all: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(fd, &chunk, chunk.count, 0)
            guard n > 0 else { break }
            all += chunk[0..<n]
        }
        return String(decoding: all, as: UTF8.self)
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
