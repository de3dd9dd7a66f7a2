#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The paths to remove if the process is stopped by a signal, outermost first: a fixed buffer
/// of C strings and a count, which the handler reads without allocating.
// Safe: changed only with the handlers installed by the outermost `during` on the thread that
// runs it; the handler (any thread) only reads them.
nonisolated(unsafe) private let pathsToRemove = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(
    capacity: RemoveOnSignal.capacity)
nonisolated(unsafe) private var pathCount = 0

/// Removes what is half written if Ctrl-C, `kill` or a closed terminal stops the process
/// (SIGINT, SIGTERM, SIGHUP), then lets the signal end the process as it would have: a long
/// job's temp file (a country's door index, gigabytes) is not left behind, nor the temporary
/// folder it was made in.
public enum RemoveOnSignal {
    static let signals = [SIGINT, SIGTERM, SIGHUP]
    /// Paths held at once, nested calls included.
    static let capacity = 16

    /// Runs `body`; if one of the signals arrives meanwhile, `path` is removed and the process
    /// ends by that signal.
    public static func during<T, E: Error>(_ path: String, _ body: () throws(E) -> T) throws(E) -> T {
        try during([path], body)
    }

    /// Runs `body`; if one of the signals arrives meanwhile, each of `paths` is removed, the
    /// last first (a file, then the empty folder that held it: `unlink`, else `rmdir`), after
    /// those of calls made inside `body` (they are inner), and the process ends by that
    /// signal. Nested calls on one thread add to what is removed (before, an inner call's
    /// end forgot the outer path); calls on two threads at once are not supported.
    public static func during<T, E: Error>(_ paths: [String], _ body: () throws(E) -> T) throws(E) -> T {
        let base = pathCount
        let outermost = base == 0
        var previous: [Int32: sigaction] = [:]
        if outermost {
            for number in signals {
                var action = sigaction()
                action.__sigaction_handler.sa_handler = { number in
                    // async-signal-safe: unlink(2) and rmdir(2), then the default action by
                    // the same signal. Innermost first: the files before their folder.
                    var i = pathCount
                    while i > 0 {
                        i -= 1
                        if let path = pathsToRemove[i], unlink(path) != 0 { rmdir(path) }
                    }
                    signal(number, SIG_DFL)
                    raise(number)
                }
                var old = sigaction()
                sigaction(number, &action, &old)
                previous[number] = old
            }
        }
        for path in paths.prefix(capacity - base) {
            pathsToRemove[pathCount] = strdup(path)
            pathCount += 1
        }
        defer {
            while pathCount > base {
                pathCount -= 1
                free(pathsToRemove[pathCount])
                pathsToRemove[pathCount] = nil
            }
            for (number, old) in previous {
                var old = old
                sigaction(number, &old, nil)
            }
        }
        return try body()
    }
}
