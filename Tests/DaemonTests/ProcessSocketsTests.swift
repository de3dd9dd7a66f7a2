import Foundation
import Glibc
import Testing

/// The scan the privacy tests rest on (`ProcessSockets`) sees every socket a process holds,
/// however many sockets the machine has: `/proc/PID/net/unix` lists the whole network
/// namespace's, and on a busy machine (the tests in parallel, each with daemons and clients)
/// it is many pages long.
@Suite struct ProcessSocketsTests {
    /// Before: `String(contentsOfFile:)` reads a /proc file (which says its size is 0) only as
    /// far as its first page, 4 KiB, so a socket listed further down was not seen: the CI run
    /// in which the daemon seemed to hold no socket at all, its own listening one included.
    @Test func aProcessWithManyUnixSocketsHasEveryOneSeen() throws {
        let dir = TempDir()
        defer { dir.remove() }
        var descriptors: [Int32] = []
        defer { descriptors.forEach { close($0) } }
        var paths: [String] = []
        // 200 lines of ~110 bytes: five pages and more of this process's own.
        for index in 0..<200 {
            let path = dir.path + "/socket-with-a-name-long-enough-to-fill-the-table-\(index)"
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            try #require(fd >= 0)
            descriptors.append(fd)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8)
            try #require(bytes.count < MemoryLayout.size(ofValue: address.sun_path))
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                raw.copyBytes(from: bytes)
                raw[bytes.count] = 0
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            try #require(bound == 0, "bind \(path): \(String(cString: strerror(errno)))")
            paths.append(path)
        }
        let seen = Set(ProcessSockets(pid: getpid()).unixPaths)
        let missing = paths.filter { !seen.contains($0) }
        #expect(missing.count == 0, "\(missing.count) of \(paths.count) bound sockets not seen")
    }
}
