#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A failed system call: which call (and on what), and `errno`.
public struct SystemCallError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The call that failed, with what it was called on where that helps ("open /dev/ttyUSB0").
    public let call: String
    /// The C `errno` value.
    public let code: Int32

    public init(call: String, code: Int32) {
        self.call = call
        self.code = code
    }

    public var description: String { "\(call): \(String(cString: strerror(code)))" }
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
