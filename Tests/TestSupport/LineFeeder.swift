import Foundation
import Glibc

/// A receiver on TCP for a real gpsd (`GPSDProcess(port:feed:)`): serves `lines` (each ended
/// with CR LF) to each connection, `pause` seconds apart, then holds the connection open.
package final class LineFeeder: @unchecked Sendable {
    // Safe: `closed` is only touched inside `lock`; `fd` and `port` are set once in init.
    package let port: UInt16
    private let fd: Int32
    private let lock = NSLock()
    private var closed = false

    package init(lines: [String], pause: Double = 0.03) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ToolMissing(message: "socket: errno \(errno)") }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, len) == 0 && listen(fd, 4) == 0 && getsockname(fd, $0, &len) == 0
            }
        }
        guard bound else {
            close(fd)
            throw ToolMissing(message: "cannot listen on 127.0.0.1: errno \(errno)")
        }
        port = UInt16(bigEndian: addr.sin_port)
        self.fd = fd
        Thread { [self] in
            while true {
                let c = accept(fd, nil, nil)
                if c < 0, errno == EINTR { continue }  // a child process ended (SIGCHLD)
                if c < 0 { return }
                Thread { [self] in
                    defer { close(c) }
                    for line in lines {
                        let bytes = Array((line + "\r\n").utf8)
                        var sent: Int
                        repeat {
                            sent = bytes.withUnsafeBytes {
                                send(c, $0.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
                            }
                        } while sent < 0 && errno == EINTR
                        if sent < 0 || isClosed { return }
                        usleep(UInt32(pause * 1_000_000))
                    }
                    while !isClosed { usleep(50_000) }
                }.start()
            }
        }.start()
    }

    private var isClosed: Bool { lock.withLock { closed } }

    /// Stops serving: the connections close, and the listening socket.
    package func shutdown() {
        let first = lock.withLock {
            defer { closed = true }
            return !closed
        }
        guard first else { return }
        Glibc.shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }
}

/// A TCP port on 127.0.0.1 nothing listens on right now (bound to 0, read, released): for a
/// test's own gpsd.
package func freeTCPPort() throws -> UInt16 {
    let feeder = try LineFeeder(lines: [])
    defer { feeder.shutdown() }
    return feeder.port
}
