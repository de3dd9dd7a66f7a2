#if canImport(Glibc)
    public import Glibc
#elseif canImport(Musl)
    public import Musl
#endif

/// A failed system call: which call (and on what), and `errno`.
public struct SystemCallError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The call that failed, with what it was called on where that helps ("open /dev/ttyUSB0").
    public let call: String
    /// The C `errno` value.
    public let code: Int32
    /// The reason in words when `errno`'s text would mislead (a failed name lookup has no
    /// errno of its own: "Name or service not known", not "No route to host").
    public let reason: String?

    public init(call: String, code: Int32, reason: String? = nil) {
        self.call = call
        self.code = code
        self.reason = reason
    }

    /// The reason alone, without the call: `reason`, else `errno`'s text ("No space left on
    /// device").
    public var why: String { reason ?? String(cString: strerror(code)) }

    public var description: String { "\(call): \(why)" }
}

/// Runs a system call, retrying while a signal interrupts it (`EINTR`) — the one place every
/// module's system calls go through, as swift-system's `valueOrErrno(retryOnInterrupt:)`.
/// - Returns: the call's result when it is not −1.
/// - Throws: `SystemCallError` with `errno` for any other failure.
@discardableResult
public func retryingOnInterrupt<T: BinaryInteger>(
    _ call: String, _ body: () -> T
) throws(SystemCallError) -> T {
    while true {
        let result = body()
        if result != -1 { return result }
        let code = errno
        if code == EINTR { continue }
        throw SystemCallError(call: call, code: code)
    }
}

/// Closes `fd`, once. Never retried: Linux releases the descriptor even when `close` reports
/// `EINTR`, so a second `close` could shut a descriptor another thread has just been given
/// under the same number. `EINTR` therefore counts as closed.
/// - Throws: `SystemCallError` for a real failure (`EBADF`; `EIO` when buffered data could
///   not be written) — the descriptor is gone either way.
public func closeDescriptor(_ fd: Int32, _ call: String = "close") throws(SystemCallError) {
    guard close(fd) == -1 else { return }
    let code = errno
    if code != EINTR { throw SystemCallError(call: call, code: code) }
}

/// Connects socket `fd` to `address`, waiting at most `timeoutMilliseconds` (−1: no limit)
/// when the socket is non-blocking or a signal interrupts the call.
///
/// `connect` is not simply retried on `EINTR`: the kernel goes on connecting, and a second
/// call fails with `EALREADY`. Both that case and `EINPROGRESS` are waited out with `poll`
/// and the outcome read from `SO_ERROR`.
/// - Throws: `SystemCallError` named `call` (`ETIMEDOUT` when the time is up).
public func connectSocket(
    _ fd: Int32, to address: UnsafePointer<sockaddr>, length: socklen_t, _ call: String,
    timeoutMilliseconds: Int32 = -1
) throws(SystemCallError) {
    guard connect(fd, address, length) == -1 else { return }
    let code = errno
    guard code == EINTR || code == EINPROGRESS else { throw SystemCallError(call: call, code: code) }
    var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
    let ready = try retryingOnInterrupt(call) { poll(&p, 1, timeoutMilliseconds) }
    guard ready > 0 else { throw SystemCallError(call: call, code: ETIMEDOUT) }
    var failure: Int32 = 0
    var size = socklen_t(MemoryLayout<Int32>.size)
    try retryingOnInterrupt(call) { getsockopt(fd, SOL_SOCKET, SO_ERROR, &failure, &size) }
    if failure != 0 { throw SystemCallError(call: call, code: failure) }
}

/// A new pipe whose two ends are close-on-exec (and non-blocking when asked).
/// - Returns: the read end and the write end; the caller owns both.
/// - Throws: `SystemCallError` (`EMFILE` when the process is out of descriptors).
public func makePipe(nonBlocking: Bool) throws(SystemCallError) -> (read: Int32, write: Int32) {
    var ends: [Int32] = [-1, -1]
    try retryingOnInterrupt("pipe") { pipe(&ends) }
    do {
        for fd in ends {
            try retryingOnInterrupt("fcntl") { fcntl(fd, F_SETFD, FD_CLOEXEC) }
            if nonBlocking {
                let flags = try retryingOnInterrupt("fcntl") { fcntl(fd, F_GETFL) }
                try retryingOnInterrupt("fcntl") { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
            }
        }
    } catch {
        for fd in ends { try? closeDescriptor(fd) }
        throw error
    }
    return (ends[0], ends[1])
}
