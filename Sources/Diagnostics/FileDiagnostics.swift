public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Why a file could not be read (or written), in words ("is a directory", "no such file"), never
/// Foundation's "The operation could not be completed. (NSCocoaErrorDomain error 256.)".
public enum FileDiagnostics {
    /// Reads the whole file at `path`.
    /// - Throws: `Problem` whose description is the reason in plain words.
    public static func contents(of path: String) throws(Problem) -> Data {
        var info = stat()
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            throw Problem(reason: "is a directory, not a file")
        }
        let type = info.st_mode & S_IFMT
        if type == S_IFCHR {
            // A terminal or a serial receiver never ends; /dev/zero neither.
            throw Problem(reason: "is a device, not a file (a serial receiver: `fixes --device` reads one)")
        }
        if type == S_IFIFO || type == S_IFSOCK {
            // A pipe (`--destination <(…)`, /dev/stdin): read as a stream (before, "permission
            // denied", Foundation's word for a file it could not map).
            return try stream(path)
        }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe)
        } catch {
            throw Problem(reason: reason(error))
        }
    }

    /// The most read from a pipe: no input of ours is larger, and a pipe may be endless.
    public static let streamLimit = 256 << 20

    /// Reads a pipe to its end, up to ``streamLimit`` bytes.
    private static func stream(_ path: String) throws(Problem) -> Data {
        // Standard input as it is open (a socket cannot be opened again by its /proc name:
        // before, a program driving pathfinder over a socketpair got "no such device").
        let standardInput = path == "/dev/stdin" || path == "/proc/self/fd/0" || path == "/dev/fd/0"
        guard let handle = standardInput ? FileHandle.standardInput : FileHandle(forReadingAtPath: path)
        else {
            throw Problem(reason: words(errno: errno))
        }
        defer { if !standardInput { try? handle.close() } }
        var data = Data()
        do {
            while let chunk = try handle.read(upToCount: 1 << 16), !chunk.isEmpty {
                data += chunk
                if data.count > streamLimit {
                    throw Problem(
                        reason: "more than \(streamLimit >> 20) MB from a pipe: not an input file")
                }
            }
        } catch let problem as Problem {
            throw problem
        } catch {
            throw Problem(reason: reason(error))
        }
        return data
    }

    /// A read failure in words.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        public var reason: String
        public init(reason: String) { self.reason = reason }
        public var description: String { reason }
    }

    /// What went wrong opening or reading a file, from the POSIX error underneath
    /// Foundation's (lower-case, as it follows "PATH: cannot read: ").
    public static func reason(_ error: any Error) -> String {
        let error = error as NSError
        var current: NSError? = error
        while let e = current {
            if e.domain == NSPOSIXErrorDomain { return words(errno: Int32(e.code)) }
            current = (e.userInfo[NSUnderlyingErrorKey] as? any Error).map { $0 as NSError }
        }
        switch error.code {
        case CocoaError.fileReadNoSuchFile.rawValue, CocoaError.fileNoSuchFile.rawValue:
            return words(errno: ENOENT)
        case CocoaError.fileReadNoPermission.rawValue: return "permission denied"
        case CocoaError.fileReadTooLarge.rawValue: return "the file is too large"
        case CocoaError.fileReadInapplicableStringEncoding.rawValue: return "the file is not UTF-8 text"
        default: return "the file could not be read"
        }
    }

    /// Why `path` could not be written (or a folder made there), in words: what is in the way
    /// is looked at first ("is a directory", "no folder /x", "/x is not a folder"), then the
    /// POSIX error under Foundation's ("permission denied", "read-only file system").
    public static func reasonWriting(_ path: String, _ error: any Error) -> String {
        var info = stat()
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR { return "is a directory" }
        let parent = path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        if stat(parent, &info) != 0 {
            return errno == ENOTDIR ? "a part of \(parent) is not a folder" : "no folder \(parent)"
        }
        if (info.st_mode & S_IFMT) != S_IFDIR { return "\(parent) is not a folder" }
        if access(parent, W_OK) != 0 { return "cannot write in \(parent): \(words(errno: errno))" }
        var current: NSError? = error as NSError
        while let e = current {
            if e.domain == NSPOSIXErrorDomain { return words(errno: Int32(e.code)) }
            current = (e.userInfo[NSUnderlyingErrorKey] as? any Error).map { $0 as NSError }
        }
        return "it could not be written"
    }

    /// Why the file (or, with `directoryAllowed`, the folder) at `path` cannot be opened for
    /// reading, or nil when it can: the real reason ("permission denied" for a folder that
    /// cannot be entered, "is a directory, not a file", a symbolic link to nothing), where
    /// `FileManager.fileExists` says only "no" and the caller used to guess "no such file".
    ///
    /// A FIFO, a device or a socket is "not a file" unless `streamAllowed` (a config read from
    /// `<(…)`): opening a FIFO waits for a writer for ever, and a database on one hung the
    /// daemon's start where no signal could stop it (a review found it).
    public static func unreadable(
        _ path: String, directoryAllowed: Bool = false, streamAllowed: Bool = false
    ) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            if code == ENOENT, lstat(path, &info) == 0 {
                let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?"
                return "is a symbolic link to \(target), which does not exist"
            }
            // The wording Pathfinder's messages have always used for a missing file.
            return code == ENOENT ? "no such file" : words(errno: code)
        }
        let type = info.st_mode & S_IFMT
        if type == S_IFDIR {
            guard directoryAllowed else { return "is a directory, not a file" }
            return access(path, R_OK | X_OK) == 0 ? nil : words(errno: errno)
        }
        let stream = type == S_IFIFO || type == S_IFCHR
        if type != S_IFREG, !(stream && streamAllowed), let kind = kind(ofMode: info.st_mode) {
            return "is \(kind), not a file"
        }
        return access(path, R_OK) == 0 ? nil : words(errno: errno)
    }

    /// The first part of `path`'s folder that is there and is no folder, in words ("/x/notes.txt
    /// is a regular file, not a folder"): nothing can ever be made at `path` (ENOTDIR); or a
    /// symbolic link that leads nowhere ("/x/run is a symbolic link to /y, which does not
    /// exist"), through which no folder is made either (before: taken for a missing folder).
    /// Nil when every part there is a folder (or a link to one), including when the rest is
    /// missing (a folder that can be made), or when a part cannot be looked at.
    public static func partThatIsNoFolder(of path: String) -> String? {
        guard let slash = path.lastIndex(of: "/") else { return nil }
        var prefix = path.hasPrefix("/") ? "/" : ""
        for part in path[..<slash].split(separator: "/") {
            prefix += prefix.isEmpty || prefix.hasSuffix("/") ? part : "/" + part
            var info = stat()
            guard stat(prefix, &info) == 0 else {
                let code = errno
                guard lstat(prefix, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK else { return nil }
                let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: prefix)) ?? "?"
                return "\(prefix) is a symbolic link to \(target), "
                    + (code == ENOENT
                        ? "which does not exist" : "which cannot be followed: \(words(errno: code))")
            }
            if (info.st_mode & S_IFMT) != S_IFDIR {
                return "\(prefix) is \(kind(ofMode: info.st_mode) ?? "a regular file"), not a folder"
            }
        }
        return nil
    }

    /// What a file of `mode` (`st_mode`) is, in words, when it is not a regular file: "a
    /// directory", "a FIFO (named pipe)", "a character device", "a block device", "a socket";
    /// nil for a regular file or another kind.
    public static func kind(ofMode mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        default: nil
        }
    }

    /// `strerror`'s text with a lower-case first letter ("no such file or directory").
    public static func words(errno code: Int32) -> String {
        let text = String(cString: strerror(code))
        return text.prefix(1).lowercased() + text.dropFirst()
    }
}
