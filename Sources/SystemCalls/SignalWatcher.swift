public import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The write end of the self-pipe the signal handler writes to; -1 when none is watched.
// Safe: set by the one live watcher before it installs its handlers and cleared after it
// removes them; the handler (any thread) only reads it.
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
    private let writeEnd: Int32
    private let signals: [Int32]

    /// Starts watching `signals`; `handler` runs on `queue` once per signal received.
    /// One watcher at a time per process (it owns the handlers of those signals).
    /// - Throws: `SystemCallError` when the pipe cannot be made (out of descriptors) or a
    ///   handler cannot be installed; nothing is left installed or open then.
    public init(
        _ signals: [Int32], queue: DispatchQueue, handler: @escaping @Sendable (Int32) -> Void
    ) throws(SystemCallError) {
        let (readEnd, writeEnd) = try makePipe(nonBlocking: true)
        self.readEnd = readEnd
        self.writeEnd = writeEnd
        self.signals = signals
        signalPipeWriteEnd = writeEnd
        source = DispatchSource.makeReadSource(fileDescriptor: readEnd, queue: queue)
        source.setEventHandler {
            var buffer = [UInt8](repeating: 0, count: 64)
            let n = buffer.withUnsafeMutableBytes { raw in
                (try? retryingOnInterrupt("read") { read(readEnd, raw.baseAddress, raw.count) }) ?? 0
            }
            for i in 0..<n { handler(Int32(buffer[i])) }
        }
        // The read end is closed only once the source has stopped watching it.
        source.setCancelHandler { try? closeDescriptor(readEnd) }
        source.resume()
        for number in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                // async-signal-safe: one write(2), errno kept for the interrupted code.
                let saved = errno
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(signalPipeWriteEnd, &byte, 1)
                errno = saved
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            // A throw here runs deinit (every property is set), which undoes all of this.
            try retryingOnInterrupt("sigaction \(number)") { sigaction(number, &action, nil) }
        }
    }

    /// Whether `number` is ignored (`SIG_IGN`), as under `nohup` for SIGHUP: a watcher of it
    /// would end a process that is meant to go on.
    public static func isIgnored(_ number: Int32) -> Bool {
        var current = sigaction()
        guard sigaction(number, nil, &current) == 0 else { return false }
        // SIG_IGN is the handler 1.
        return current.__sigaction_handler.sa_handler.map({ unsafeBitCast($0, to: Int.self) }) == 1
    }

    /// Restores the default action of the watched signals and stops reading.
    public func cancel() {
        restoreDefaults()
        source.cancel()
    }

    private func restoreDefaults() {
        for number in signals { signal(number, SIG_DFL) }
        // A handler already running writes to an end still open until deinit; one that
        // starts after this sees no pipe at all.
        if signalPipeWriteEnd == writeEnd { signalPipeWriteEnd = -1 }
    }

    deinit {
        restoreDefaults()
        source.cancel()
        try? closeDescriptor(writeEnd)
    }
}
