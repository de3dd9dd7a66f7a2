import Foundation
import Glibc
package import SystemCalls

/// Replaces a file's content all at once: a reader (or the next start after a crash or
/// power cut) sees the old content or the new, never a torn mix.
///
/// How: write a temp file in the same directory (same file system, so `rename` is atomic),
/// `fsync` it, `rename` it over the target, `fsync` the directory so the rename itself is
/// on disk. Temp files are named `.<name>.tmp-<pid>-<random>`; one left by a writer that
/// died is removed by the next write.
public enum AtomicFile {
    /// Writes `bytes` to `path` atomically with permission bits `mode`.
    /// A symbolic link at `path` is written through: its target is replaced (or made) and the
    /// link stays (before, the link itself was replaced by a file, and the target silently
    /// stopped being kept).
    static func write(_ bytes: [UInt8], to link: String, mode: mode_t) throws(SystemCallError) {
        let path = try resolvingLink(link)
        let (directory, name) = split(path)
        removeStaleTemps(of: name, in: directory)
        let temp = try writeTemp(bytes, for: name, in: directory, mode: mode)
        do {
            try retryingOnInterrupt("rename \(temp) to \(path)") { rename(temp, path) }
        } catch {
            _ = try? retryingOnInterrupt("unlink \(temp)") { unlink(temp) }
            throw error
        }
        try syncFolder(directory)
    }

    /// What ``replace(_:at:expecting:mode:beforeRenaming:)`` did.
    enum Replacement: Sendable, Hashable {
        /// Written; the stamp of the file now at the path, taken from the temp file before its
        /// rename, so a file moved in just after it is not taken for it (audit 11 A11-2).
        case written(FileStamp?)
        /// Not written: the path held another file than the one expected (moved in since the
        /// caller looked), left there as it was.
        case changed
    }

    /// ``write(_:to:mode:)``, but only in the place of the file `expected` (nil: none): the temp
    /// file is exchanged with the path (`renameat2` `RENAME_EXCHANGE`; `RENAME_NOREPLACE` when
    /// none is expected), and what came out is checked against `expected` (device, inode, size,
    /// modification time). Another file, moved in after the caller read the path, is exchanged
    /// back, untouched, and nothing is written (`.changed`): the caller reads it and tries again.
    /// Where the file system or C library has no `renameat2` (`EINVAL`, `ENOSYS`), a plain
    /// `rename`, as ``write(_:to:mode:)``. The temp file is synced first and the folder after,
    /// as there.
    static func replace(
        _ bytes: [UInt8], at link: String, expecting expected: FileStamp?, mode: mode_t,
        beforeRenaming: () -> Void = {}
    ) throws(SystemCallError) -> Replacement {
        let path = try resolvingLink(link)
        let (directory, name) = split(path)
        removeStaleTemps(of: name, in: directory)
        let temp = try writeTemp(bytes, for: name, in: directory, mode: mode)
        let written = FileStamp(path: temp)
        beforeRenaming()
        do {
            switch try swap(temp, into: path, expecting: expected) {
            case .done: break
            case .changed: return .changed
            case .unsupported: try retryingOnInterrupt("rename \(temp) to \(path)") { rename(temp, path) }
            }
        } catch {
            _ = try? retryingOnInterrupt("unlink \(temp)") { unlink(temp) }
            throw error
        }
        try syncFolder(directory)
        return .written(written)
    }

    private enum Swap { case done, changed, unsupported }

    /// `temp` in the place of `path` if `path` holds `expected`; else all left as it was, and
    /// `temp` removed.
    private static func swap(
        _ temp: String, into path: String, expecting expected: FileStamp?
    ) throws(SystemCallError) -> Swap {
        guard let renameat2 = renameAt2 else { return .unsupported }
        let call = "renameat2 \(temp) to \(path)"
        do {
            try retryingOnInterrupt(call) {
                renameat2(AT_FDCWD, temp, AT_FDCWD, path, expected == nil ? renameNoReplace : renameExchange)
            }
        } catch  where error.code == EINVAL || error.code == ENOSYS {
            return .unsupported
        } catch  where error.code == EEXIST || error.code == ENOENT {
            // One there where none was, or none where one was: moved in, or removed, since.
            _ = try? retryingOnInterrupt("unlink \(temp)") { unlink(temp) }
            return .changed
        }
        guard expected != nil else { return .done }
        // `temp` names the file that was at the path: the one expected, or one moved in since.
        let out = FileStamp(path: temp)
        if out != expected {
            // Back in its place; should that fail, it goes back over this one (and should that
            // fail too, it stays under the temp name, never removed). (A second file moved in
            // between the two exchanges, microseconds, would come out here and be lost.)
            if (try? retryingOnInterrupt(call) { renameat2(AT_FDCWD, temp, AT_FDCWD, path, renameExchange) })
                == nil
            {
                _ = try? retryingOnInterrupt("rename \(temp) to \(path)") { rename(temp, path) }
                return .changed
            }
        }
        // The file replaced (or this one, given back); a failure leaves a stale temp file.
        _ = try? retryingOnInterrupt("unlink \(temp)") { unlink(temp) }
        return out == expected ? .done : .changed
    }

    /// `renameat2(2)` (Linux 3.15, glibc 2.28), found at run time: Swift's Glibc module does not
    /// declare it. Nil where the C library lacks it.
    private static let renameAt2:
        (@convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32)? =
            dlsym(nil, "renameat2").map {
                unsafeBitCast(
                    $0,
                    to: (@convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) ->
                        Int32)
                        .self)
            }
    /// `<linux/fs.h>`'s flags, which the Glibc module does not bring either.
    private static let renameNoReplace: UInt32 = 1
    private static let renameExchange: UInt32 = 2

    /// Writes `bytes` to a new file at `path` with permission bits `mode`, whole or not at all
    /// as ``write(_:to:mode:)`` does, but never in the place of a file (or link) already there:
    /// the name is taken by `link(2)`, which fails when it exists, so two writers of one name
    /// cannot both think they made it (before, `record` checked the name, then renamed over it).
    /// - Throws: `SystemCallError` with `EEXIST` when `path` exists (left as it was), or the
    ///   failed call, naming the file; nothing of the new bytes is left behind.
    package static func create(_ bytes: [UInt8], at path: String, mode: UInt32) throws(SystemCallError) {
        let (directory, name) = split(path)
        let temp = try writeTemp(bytes, for: name, in: directory, mode: mode)
        defer { _ = try? retryingOnInterrupt("unlink \(temp)") { unlink(temp) } }
        do {
            try retryingOnInterrupt("link \(temp) to \(path)") { link(temp, path) }
        } catch  where error.code == EPERM || error.code == EOPNOTSUPP {
            // A file system without hard links (FAT on a USB stick): the name is taken by
            // creating it (O_EXCL), then the bytes renamed onto that empty file of our own.
            let fd = try retryingOnInterrupt("open \(path)") {
                open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(mode))
            }
            try? closeDescriptor(fd)
            do {
                try retryingOnInterrupt("rename \(temp) to \(path)") { rename(temp, path) }
            } catch {
                _ = try? retryingOnInterrupt("unlink \(path)") { unlink(path) }
                throw error
            }
        }
        try syncFolder(directory)
    }

    /// `bytes` in a new temp file beside `name` in `directory`, synced to disk: its path.
    private static func writeTemp(
        _ bytes: [UInt8], for name: String, in directory: String, mode: mode_t
    ) throws(SystemCallError) -> String {
        let temp = "\(directory)/\(tempPrefix(name))\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = try retryingOnInterrupt("open \(temp)") {
            open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        }
        do {
            // The umask may have taken bits away; set exactly what was asked.
            try retryingOnInterrupt("fchmod \(temp)") { fchmod(fd, mode) }
            try writeAll(fd, bytes)
            try retryingOnInterrupt("fsync \(temp)") { fsync(fd) }
        } catch {
            try? closeDescriptor(fd)
            _ = try? retryingOnInterrupt("unlink \(temp)") { unlink(temp) }
            throw error
        }
        do {
            try closeDescriptor(fd, "close \(temp)")  // once, whatever it says
        } catch {
            _ = try? retryingOnInterrupt("unlink \(temp)") { unlink(temp) }
            throw error
        }
        return temp
    }

    /// `fsync`s `directory`, so a name made or renamed in it is on disk.
    private static func syncFolder(_ directory: String) throws(SystemCallError) {
        let dirFD = try retryingOnInterrupt("open \(directory)") {
            open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        }
        defer { try? closeDescriptor(dirFD) }
        try retryingOnInterrupt("fsync \(directory)") { fsync(dirFD) }
    }

    /// `path`, or the file a symbolic link at `path` leads to, there or not yet (a link to a
    /// file set aside, or not made yet, is where the next save goes). The door index's
    /// import writes through links the same way.
    package static func resolvingLink(_ path: String) throws(SystemCallError) -> String {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK else { return path }
        if let resolved = realpath(path, nil) {
            defer { free(resolved) }
            return String(cString: resolved)
        }
        // Dangling: each link's text from its own folder, along the chain (a link to a link:
        // before, the middle one was replaced) to a name that is no link; its folder must exist.
        var target = path
        for _ in 0..<40 {
            guard lstat(target, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK else { break }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = try retryingOnInterrupt("readlink \(target)") { readlink(target, &buffer, Int(PATH_MAX)) }
            let text = String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            target = text.hasPrefix("/") ? text : split(target).directory + "/" + text
        }
        guard lstat(target, &info) != 0 || (info.st_mode & S_IFMT) != S_IFLNK else {
            throw SystemCallError(call: "readlink \(path)", code: ELOOP)
        }
        let (directory, name) = split(target)
        guard let folder = realpath(directory, nil) else {
            // Said whole: the link's text is relative to the link's own folder (before:
            // "realpath ./nowhere: a symbolic link into a folder that is not there").
            let code = errno
            let whole = wholePath(directory)
            let why =
                switch code {
                case ENOENT: "is not there"
                case ENOTDIR:
                    fileAmongFolders(of: whole + "/" + name).map { "is not a folder: \($0) is a file" }
                        ?? "is not a folder (a part of it is a file)"
                default: "cannot be reached: \(String(cString: strerror(code)))"
                }
            throw SystemCallError(
                call: path, code: code,
                reason: "a symbolic link to \(whole)/\(name), whose folder \(whole) \(why)")
        }
        defer { free(folder) }
        let whole = String(cString: folder)
        // realpath(3) takes a file for a folder's path too (before: SQLite's "unable to open
        // database file" at the first write).
        guard isFolder(whole) != false else {
            throw SystemCallError(
                call: path, code: ENOTDIR,
                reason: "a symbolic link to \(whole)/\(name), whose folder \(whole) is a file, not a folder")
        }
        return whole + "/" + name
    }

    /// The first part of `path`'s folders (from the top) that is there and is no folder (a
    /// regular file, say), as written; nil when each is a folder or not there yet. Links are
    /// followed.
    package static func fileAmongFolders(of path: String) -> String? {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for part in split(path).directory.split(separator: "/") {
            prefix += (prefix.isEmpty || prefix.hasSuffix("/") ? "" : "/") + part
            guard let folder = isFolder(prefix) else { return nil }
            if !folder { return prefix }
        }
        return nil
    }

    /// Whether what is at `path` is a folder (links followed); nil when nothing is there.
    private static func isFolder(_ path: String) -> Bool? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return (status.st_mode & S_IFMT) == S_IFDIR
    }

    /// `directory` absolute, as far as it exists resolved (`a/sub/../gone` is `/…/a/gone`), the
    /// rest as written.
    static func wholePath(_ directory: String) -> String {
        var head =
            directory.hasPrefix("/") ? directory : FileManager.default.currentDirectoryPath + "/" + directory
        var rest: [String] = []
        while head != "/" {
            if let resolved = realpath(head, nil) {
                defer { free(resolved) }
                let base = String(cString: resolved)
                return rest.isEmpty ? base : (base == "/" ? "" : base) + "/" + rest.joined(separator: "/")
            }
            let (parent, name) = split(head)
            rest.insert(name, at: 0)
            head = parent
        }
        return "/" + rest.joined(separator: "/")
    }

    /// ``write(_:to:mode:)`` for other modules (its error a `SystemCallError`, naming the call
    /// and the path).
    public static func save(_ bytes: [UInt8], to path: String, mode: UInt32) throws {
        try write(bytes, to: path, mode: mode)
    }

    /// The temp files of `path` now in its directory (for tests and cleaning).
    static func temps(of path: String) -> [String] {
        let (directory, name) = split(path)
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return entries.filter { $0.hasPrefix(tempPrefix(name)) }.sorted().map { "\(directory)/\($0)" }
    }

    /// Removes temp files left by writers that no longer run. A live writer's temp file is
    /// left alone, so two processes saving at once never break each other's write.
    private static func removeStaleTemps(of name: String, in directory: String) {
        for temp in temps(of: "\(directory)/\(name)") {
            removeIfStale(temp, pidAt: temp.dropFirst(directory.count + 1 + tempPrefix(name).count))
        }
    }

    /// Removes the temp files of every name in `directory` whose writers no longer run: a
    /// folder whose files are each written once (recordings) never writes a name again, so
    /// the write of one name cannot clean up after an interrupted other.
    public static func removeStaleTemps(in directory: String) {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for entry in entries where entry.hasPrefix(".") {
            guard let marker = entry.range(of: ".tmp-", options: .backwards) else { continue }
            removeIfStale("\(directory)/\(entry)", pidAt: entry[marker.upperBound...])
        }
    }

    private static func removeIfStale(_ temp: String, pidAt rest: Substring) {
        guard let pid = Int32(rest.prefix(while: \.isNumber)) else { return }
        if pid != getpid(), processIsGone(pid) { _ = try? retryingOnInterrupt("unlink") { unlink(temp) } }
    }

    private static func tempPrefix(_ name: String) -> String { ".\(name).tmp-" }

    /// The longest name, in bytes, of a temp file ``create(_:at:mode:)`` or ``save(_:to:mode:)``
    /// writes `name` through (`.<name>.tmp-<pid>-<random>`, the pid and the random number at
    /// their most digits): what a folder's file system must allow for `name` to be written.
    package static func longestTempName(of name: String) -> Int {
        tempPrefix(name).utf8.count + "\(Int32.max)-\(UInt32.max)".utf8.count
    }

    /// The directory ("." when none is given) and the file name.
    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }
}
