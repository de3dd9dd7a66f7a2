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
        (fd, port) = try listeningOnLoopback()
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

/// A TCP socket listening on 127.0.0.1 and `port` (0: a free one), and its port: for a test's
/// receivers and fake gpsds. Throws naming the port and the error.
package func listeningOnLoopback(port: UInt16 = 0, backlog: Int32 = 8) throws -> (fd: Int32, port: UInt16) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw ToolMissing(message: "socket: \(String(cString: strerror(errno)))") }
    var yes: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    addr.sin_port = port.bigEndian
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, len) == 0 && listen(fd, backlog) == 0 && getsockname(fd, $0, &len) == 0
        }
    }
    guard bound else {
        let reason = String(cString: strerror(errno))
        close(fd)
        throw ToolMissing(message: "cannot listen on 127.0.0.1:\(port): \(reason)")
    }
    return (fd, UInt16(bigEndian: addr.sin_port))
}
