#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The paths to remove if the process is stopped by a signal: a fixed table of C strings, a
/// slot nil when free, which the handler reads without allocating or locking.
// Safe: slots are taken and given back under `tableLock`; the handler (any thread) only reads.
nonisolated(unsafe) private let pathsToRemove: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
    let table = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: RemoveOnSignal.capacity)
    table.initialize(repeating: nil, count: RemoveOnSignal.capacity)
    return table
}()
/// Calls under way; the handlers are installed while it is above 0.
nonisolated(unsafe) private var active = 0
/// The actions the handlers replaced, put back when the last call ends.
nonisolated(unsafe) private var previousActions: [Int32: sigaction] = [:]
nonisolated(unsafe) private let tableLock: UnsafeMutablePointer<pthread_mutex_t> = {
    let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    pthread_mutex_init(lock, nil)
    return lock
}()

/// Removes what is half written if Ctrl-C, `kill` or a closed terminal stops the process
/// (SIGINT, SIGTERM, SIGHUP), then lets the signal end the process as it would have: a long
/// job's temp file (a country's door index, gigabytes) is not left behind, nor the temporary
/// folder it was made in.
public enum RemoveOnSignal {
    static let signals = [SIGINT, SIGTERM, SIGHUP]
    /// Paths held at once, nested and concurrent calls included; more are not removed.
    static let capacity = 32

    /// Runs `body`; if one of the signals arrives meanwhile, `path` is removed and the process
    /// ends by that signal.
    public static func during<T, E: Error>(_ path: String, _ body: () throws(E) -> T) throws(E) -> T {
        try during([path], body)
    }

    /// Runs `body`; if one of the signals arrives meanwhile, each of `paths` is removed (and
    /// those of every other call under way: nested ones, and other threads' — an import in
    /// one and a plan in another), files first, then the empty folders that held them, and
    /// the process ends by that signal. Before stop 43 one path was held per process: a call
    /// inside another, or beside it on another thread, took the other's place.
    public static func during<T, E: Error>(_ paths: [String], _ body: () throws(E) -> T) throws(E) -> T {
        let slots = take(paths)
        defer { giveBack(slots) }
        return try body()
    }

    /// Makes a folder from `template` (`mkdtemp`: "…XXXXXX") and runs `body` with its path; if
    /// one of the signals arrives meanwhile, the folder and the `files` named in it are
    /// removed, and the process ends by that signal. When `body` is done the folder is removed
    /// with what it holds, still under the handler (before, the caller removed it after the
    /// handler had let go: a signal between the two left the folder and its files). The folder
    /// is made in the very string the handler reads, so no moment passes between its making and
    /// its being known (before: a signal just after `mkdtemp` left the folder). Nil from `body`
    /// when it cannot be made, with `errno` set.
    public static func inTemporaryFolder<T, E: Error>(
        _ template: String, files: [String], _ body: (String) throws(E) -> T
    ) throws(E) -> T? {
        let folderSlots = take([template])
        guard let slot = folderSlots.first, let buffer = pathsToRemove[slot], mkdtemp(buffer) != nil else {
            let code = errno
            giveBack(folderSlots)
            errno = code
            return nil
        }
        let folder = String(cString: buffer)
        let fileSlots = take(files.map { folder + "/" + $0 })
        defer {
            removeFolder(folder)
            giveBack(fileSlots)
            giveBack(folderSlots)
        }
        return try body(folder)
    }

    /// Removes `folder` and the files in it (one level: what a temporary folder holds).
    private static func removeFolder(_ folder: String) {
        if let stream = opendir(folder) {
            while let entry = readdir(stream) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
                }
                if name != ".", name != ".." { unlink(folder + "/" + name) }
            }
            closedir(stream)
        }
        rmdir(folder)
    }

    /// Installs the handlers if none are, and puts `paths` in free slots: their indexes.
    private static func take(_ paths: [String]) -> [Int] {
        pthread_mutex_lock(tableLock)
        defer { pthread_mutex_unlock(tableLock) }
        if active == 0 {
            for number in signals {
                var action = sigaction()
                action.__sigaction_handler.sa_handler = { number in
                    // async-signal-safe: unlink(2), then rmdir(2) for what is a folder (its files
                    // are gone by then), then the default action by the same signal. Again while
                    // a folder is not empty: the handler may run on another thread than the work,
                    // which goes on meanwhile and may make a file after the unlinks (before, under
                    // load, `plan --osm` killed just after its folder was made left the folder
                    // and its temp index: strace showed the openat between unlink and rmdir).
                    // Once a folder is gone nothing more is made in it.
                    for _ in 0..<100 {
                        for i in 0..<RemoveOnSignal.capacity {
                            if let path = pathsToRemove[i] { unlink(path) }
                        }
                        var emptied = true
                        for i in 0..<RemoveOnSignal.capacity {
                            if let path = pathsToRemove[i], rmdir(path) != 0,
                                errno == ENOTEMPTY || errno == EEXIST
                            {
                                emptied = false
                            }
                        }
                        if emptied { break }
                    }
                    signal(number, SIG_DFL)
                    raise(number)
                }
                var old = sigaction()
                sigaction(number, &action, &old)
                previousActions[number] = old
                // An ignored signal stays ignored: `nohup pathfinder doors import …` must not
                // die of the terminal closing (before: the handler ended it, its work lost).
                // (SIG_IGN is the handler 1.)
                if old.__sigaction_handler.sa_handler.map({ unsafeBitCast($0, to: Int.self) }) == 1 {
                    sigaction(number, &old, nil)
                }
            }
        }
        active += 1
        var slots: [Int] = []
        for path in paths {
            guard let free = (0..<capacity).first(where: { pathsToRemove[$0] == nil }) else { break }
            pathsToRemove[free] = strdup(path)
            slots.append(free)
        }
        return slots
    }

    /// Empties `slots`, and puts the old actions back after the last call.
    private static func giveBack(_ slots: [Int]) {
        pthread_mutex_lock(tableLock)
        defer { pthread_mutex_unlock(tableLock) }
        for slot in slots {
            let path = pathsToRemove[slot]
            pathsToRemove[slot] = nil
            free(path)
        }
        active -= 1
        if active == 0 {
            for (number, old) in previousActions {
                var old = old
                sigaction(number, &old, nil)
            }
            previousActions = [:]
        }
    }
}
