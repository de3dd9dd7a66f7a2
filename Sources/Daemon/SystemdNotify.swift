import Glibc
import SystemCalls

/// `sd_notify` by hand: a datagram to the `AF_UNIX` socket systemd names in `NOTIFY_SOCKET`
/// (a local socket, never a network one). Without the variable it does nothing, so the
/// daemon runs the same outside systemd.
package enum SystemdNotify {
    /// Sends `state` ("READY=1", "STOPPING=1", "STATUS=…").
    /// - Parameter socketPath: the notify socket; `NOTIFY_SOCKET` from the environment if nil.
    /// - Returns: whether a message was sent.
    @discardableResult
    package static func send(_ state: String, socketPath: String? = nil) -> Bool {
        guard let path = socketPath ?? getenv("NOTIFY_SOCKET").map({ String(cString: $0) }),
            let (initialAddress, length) = unixAddress(path)
        else { return false }
        var address = initialAddress
        guard
            let fd = try? retryingOnInterrupt(
                "socket",
                {
                    socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
                })
        else { return false }
        defer { try? closeDescriptor(fd) }
        let bytes = Array(state.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { addr in
                try? retryingOnInterrupt("sendto") {
                    sendto(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL), addr, length)
                }
            }
        }
        return sent == bytes.count
    }
}
