import Foundation
import SystemCalls

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Waits until `fd` is readable or `milliseconds` pass; `true` if readable (or hung up).
func waitReadable(_ fd: Int32, milliseconds: Int32) throws(SystemCallError) -> Bool {
    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    let r = try retryingOnInterrupt("poll") { poll(&p, 1, milliseconds) }
    return r > 0
}

/// Reads what is available (up to `buffer.count`); 0 at end of file.
func readSome(_ fd: Int32, into buffer: inout [UInt8]) throws(SystemCallError) -> Int {
    let capacity = buffer.count
    return try retryingOnInterrupt("read") {
        buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, capacity) }
    }
}

/// Writes all of `bytes`.
func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(SystemCallError) {
    var offset = 0
    while offset < bytes.count {
        let n = try retryingOnInterrupt("write") {
            bytes.withUnsafeBytes {
                send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            }
        }
        offset += n
    }
}

/// Opens a TCP connection to `host:port` (numeric or resolvable name), giving up after
/// `timeout` seconds. Returns a blocking socket descriptor.
func connectTCP(host: String, port: UInt16, timeout: Double) throws(SystemCallError) -> Int32 {
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    #else
        hints.ai_socktype = SOCK_STREAM
    #endif
    var list: UnsafeMutablePointer<addrinfo>?
    let rc = getaddrinfo(host, String(port), &hints, &list)
    guard rc == 0, let first = list else {
        throw SystemCallError(call: "getaddrinfo \(host)", code: EHOSTUNREACH)
    }
    defer { freeaddrinfo(list) }
    var lastError = SystemCallError(call: "connect", code: ECONNREFUSED)
    var cursor: UnsafeMutablePointer<addrinfo>? = first
    while let ai = cursor {
        cursor = ai.pointee.ai_next
        let fd = socket(
            ai.pointee.ai_family, ai.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue),
            ai.pointee.ai_protocol)
        guard fd >= 0 else { continue }
        // Non-blocking connect so a black-holed address cannot hang the reader for minutes.
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        var ok = connect(fd, ai.pointee.ai_addr, ai.pointee.ai_addrlen) == 0
        if !ok, errno == EINPROGRESS {
            var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            if (try? retryingOnInterrupt("poll", { poll(&p, 1, Int32(timeout * 1000)) })) == 1 {
                var err: Int32 = 0
                var len = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len)
                ok = err == 0
                if !ok { lastError = SystemCallError(call: "connect \(host):\(port)", code: err) }
            } else {
                lastError = SystemCallError(call: "connect \(host):\(port)", code: ETIMEDOUT)
            }
        } else if !ok {
            lastError = SystemCallError(call: "connect \(host):\(port)", code: errno)
        }
        if ok {
            _ = fcntl(fd, F_SETFL, flags)
            return fd
        }
        close(fd)
    }
    throw lastError
}
