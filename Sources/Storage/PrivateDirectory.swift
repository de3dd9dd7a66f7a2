import Glibc
public import SystemCalls

/// Directories Pathfinder makes for its own files: mode 0700, as the XDG base directory spec
/// asks ("If … the destination directory is non-existent an attempt should be made to create
/// it with permission 0700").
public enum PrivateDirectory {
    /// Makes `path` and any missing parents, each mode 0700 whatever the umask. Directories
    /// that exist are left as they are.
    /// - Throws: `SystemCallError` naming the `mkdir` that failed.
    public static func make(_ path: String) throws(SystemCallError) {
        guard !path.isEmpty, !isDirectory(path) else { return }
        let (parent, _) = AtomicFile.split(path)
        if parent != path { try make(parent) }
        do {
            try retryingOnInterrupt("mkdir \(path)") { mkdir(path, 0o700) }
        } catch let error where error.code == EEXIST {
            return  // made meanwhile by another process
        }
        // The umask may have taken bits away; 0700 is what the spec asks.
        try retryingOnInterrupt("chmod \(path)") { chmod(path, 0o700) }
    }

    private static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }
}
