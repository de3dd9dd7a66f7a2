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

/// Reads what a non-blocking FIFO has (up to `buffer.count`): 0 when no writer has it open
/// and it is empty, `nil` when a writer has it open and has written nothing more (`EAGAIN`).
func readFIFO(_ fd: Int32, into buffer: inout [UInt8]) throws(SystemCallError) -> Int? {
    do {
        return try readSome(fd, into: &buffer)
    } catch  where error.code == EAGAIN || error.code == EWOULDBLOCK {
        return nil
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
        let reason = rc == EAI_SYSTEM ? String(cString: strerror(errno)) : String(cString: gai_strerror(rc))
        throw SystemCallError(call: "cannot find host \(host)", code: EHOSTUNREACH, reason: reason)
    }
    defer { freeaddrinfo(list) }
    // An IPv6 host in brackets, as everywhere a host and port are written ([::1]:2947).
    let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    var lastError = SystemCallError(call: "connect \(address)", code: ECONNREFUSED)
    var cursor: UnsafeMutablePointer<addrinfo>? = first
    while let ai = cursor {
        cursor = ai.pointee.ai_next
        let fd: Int32
        do {
            fd = try retryingOnInterrupt("socket") {
                socket(
                    ai.pointee.ai_family, ai.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue),
                    ai.pointee.ai_protocol)
            }
        } catch {
            lastError = error
            continue
        }
        do {
            // Non-blocking connect so a black-holed address cannot hang the reader for minutes.
            let flags = try retryingOnInterrupt("fcntl") { fcntl(fd, F_GETFL) }
            try retryingOnInterrupt("fcntl") { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
            try connectSocket(
                fd, to: ai.pointee.ai_addr, length: ai.pointee.ai_addrlen, "connect \(address)",
                timeoutMilliseconds: Int32(timeout * 1000))
            try retryingOnInterrupt("fcntl") { fcntl(fd, F_SETFL, flags) }
            return fd
        } catch {
            lastError = error
            try? closeDescriptor(fd)
        }
    }
    throw lastError
}
