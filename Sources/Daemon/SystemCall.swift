import Glibc
import SystemCalls

/// A filled `sockaddr_un` for `path`, or `nil` if the path does not fit (108 bytes on Linux).
/// A leading "@" names an abstract socket (systemd's `NOTIFY_SOCKET` may be one).
func unixAddress(_ path: String) -> (sockaddr_un, socklen_t)? {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    var bytes = Array(path.utf8)
    let abstract = bytes.first == UInt8(ascii: "@")
    if abstract { bytes[0] = 0 }
    let capacity = MemoryLayout.size(ofValue: address.sun_path)
    guard !bytes.isEmpty, bytes.count < capacity else { return nil }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        raw.copyBytes(from: bytes)
    }
    let base = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path) ?? 2
    // Abstract names are exactly their bytes long; paths include the terminating NUL.
    let length = base + bytes.count + (abstract ? 0 : 1)
    return (address, socklen_t(length))
}

/// Sets `O_NONBLOCK` and `FD_CLOEXEC` on a descriptor.
func makeNonBlocking(_ fd: Int32) throws(SystemCallError) {
    let flags = try retryingOnInterrupt("fcntl") { fcntl(fd, F_GETFL) }
    try retryingOnInterrupt("fcntl") { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
    try retryingOnInterrupt("fcntl") { fcntl(fd, F_SETFD, FD_CLOEXEC) }
}

/// Connects a new `AF_UNIX` stream socket to `path` (blocking), returning its descriptor.
/// - Throws: `SystemCallError` (`ECONNREFUSED` for a stale socket file, `ENOENT` for none).
func connectUnixStream(_ path: String) throws(SystemCallError) -> Int32 {
    guard let (initialAddress, length) = unixAddress(path) else {
        throw SystemCallError(call: "connect", code: ENAMETOOLONG)
    }
    var address = initialAddress
    let fd = try retryingOnInterrupt("socket") {
        socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    }
    do {
        try withUnsafePointer(to: &address) { (pointer) throws(SystemCallError) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { (raw) throws(SystemCallError) in
                try connectSocket(fd, to: raw, length: length, "connect")
            }
        }
    } catch {
        try? closeDescriptor(fd)
        throw error
    }
    return fd
}
