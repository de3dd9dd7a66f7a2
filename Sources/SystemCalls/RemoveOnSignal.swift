#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The file to remove if the process is stopped by a signal; nil when none.
// Safe: set before the handlers are installed and cleared after they are removed; the handler
// (any thread) only reads it.
nonisolated(unsafe) private var pathToRemove: UnsafeMutablePointer<CChar>?

/// Removes a file that is half written if Ctrl-C, `kill` or a closed terminal stops the process
/// (SIGINT, SIGTERM, SIGHUP), then lets the signal end the process as it would have: a long
/// job's temp file (a country's door index, gigabytes) is not left behind.
public enum RemoveOnSignal {
    static let signals = [SIGINT, SIGTERM, SIGHUP]

    /// Runs `body`; if one of the signals arrives meanwhile, `path` is unlinked and the
    /// process ends by that signal. One at a time per process.
    public static func during<T, E: Error>(_ path: String, _ body: () throws(E) -> T) throws(E) -> T {
        pathToRemove = strdup(path)
        var previous: [Int32: sigaction] = [:]
        for number in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                // async-signal-safe: unlink(2), then the default action by the same signal.
                if let path = pathToRemove { unlink(path) }
                signal(number, SIG_DFL)
                raise(number)
            }
            var old = sigaction()
            sigaction(number, &action, &old)
            previous[number] = old
        }
        defer {
            for (number, old) in previous {
                var old = old
                sigaction(number, &old, nil)
            }
            free(pathToRemove)
            pathToRemove = nil
        }
        return try body()
    }
}
