public import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The write end of the self-pipe the signal handler writes to.
// Safe: set once, before any handler is installed, and only read afterwards (by the
// handler, which may run on any thread).
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1

/// Turns SIGTERM, SIGINT and friends into calls of a Swift closure on a queue.
///
/// Why not `DispatchSource.makeSignalSource` with `SIG_IGN`: on Linux that source reads a
/// `signalfd`, which only sees a signal while *every* thread blocks it; a thread started
/// earlier (Swift's cooperative pool, Foundation's) does not, so the kernel may hand the
/// signal to it and `SIG_IGN` drops it — a SIGTERM that now and then does nothing. Here a
/// real process-wide handler runs on whichever thread gets the signal and writes its number
/// into a pipe (async-signal-safe); a dispatch source reads the pipe.
public final class SignalWatcher: @unchecked Sendable {
    // Safe: all state is set in init and only read afterwards; `source` cancels itself.
    private let source: any DispatchSourceRead
    private let readEnd: Int32
    private let signals: [Int32]

    /// Starts watching `signals`; `handler` runs on `queue` once per signal received.
    /// One watcher at a time per process (it owns the handlers of those signals).
    public init(_ signals: [Int32], queue: DispatchQueue, handler: @escaping @Sendable (Int32) -> Void) {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for fd in ends {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            }
        }
        readEnd = ends[0]
        signalPipeWriteEnd = ends[1]
        self.signals = signals
        let readEnd = ends[0]
        source = DispatchSource.makeReadSource(fileDescriptor: readEnd, queue: queue)
        source.setEventHandler {
            var buffer = [UInt8](repeating: 0, count: 64)
            let n = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
            for i in 0..<max(0, n) { handler(Int32(buffer[i])) }
        }
        source.resume()
        for number in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(signalPipeWriteEnd, &byte, 1)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(number, &action, nil)
        }
    }

    /// Restores the default action of the watched signals and stops reading.
    public func cancel() {
        for number in signals { signal(number, SIG_DFL) }
        source.cancel()
    }

    deinit {
        source.cancel()
        close(readEnd)
    }
}
