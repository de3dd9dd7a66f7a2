import Glibc

/// A self-pipe: any thread writes a byte to wake a thread sleeping in `poll` on ``readEnd``.
///
/// Both ends are non-blocking and close-on-exec. When `pipe()` fails, ``failure`` says why:
/// the owner must then not start a thread that only this pipe could stop.
public final class WakePipe: Sendable {
    /// The end to `poll` for `POLLIN` (−1 when ``failure`` is set).
    public let readEnd: Int32
    private let writeEnd: Int32
    /// Why the pipe could not be made, if it could not.
    public let failure: SystemCallError?

    public init() {
        do {
            (readEnd, writeEnd) = try makePipe(nonBlocking: true)
            failure = nil
        } catch {
            (readEnd, writeEnd) = (-1, -1)
            failure = error
        }
    }

    deinit {
        if failure == nil {
            try? closeDescriptor(readEnd)
            try? closeDescriptor(writeEnd)
        }
    }

    /// Wakes the sleeper. A full pipe already guarantees a wake-up, so a failed write loses
    /// nothing.
    public func wake() {
        var one: UInt8 = 1
        _ = try? retryingOnInterrupt("write") { write(writeEnd, &one, 1) }
    }

    /// Reads every byte waiting, so the next `poll` sleeps until the next ``wake()``.
    public func drain() {
        var bytes = [UInt8](repeating: 0, count: 256)
        while ((try? retryingOnInterrupt("read") { read(readEnd, &bytes, bytes.count) }) ?? 0) > 0 {}
    }
}
