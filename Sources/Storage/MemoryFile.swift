public import Arrival
import Diagnostics
public import Foundation
import Glibc
import SystemCalls

/// The EntranceMemory file: `{"version": 1, "buildings": [...]}` (see docs/CONTRACT.md),
/// written only by Pathfinder, mode 0600, replaced atomically, never overwritten when it
/// cannot be read.
public enum MemoryFile {
    /// Permission bits: the walker's doors are theirs alone.
    public static let mode: mode_t = 0o600

    /// Loads the memory for a program that will write it back.
    ///
    /// A missing file is an empty memory. A file that does not parse, or has a version this
    /// Pathfinder does not read, is renamed aside to `<path>.corrupt-<time>` (so the next save
    /// never overwrites it) and an empty memory is returned with the error as a warning:
    /// the walk goes on without what was remembered. A file whose buildings parse but for
    /// some damaged ones is copied aside the same way (nothing is lost) and every building
    /// that parses is returned, with a warning naming the damaged buildings and fields; the
    /// next save writes those. A file that cannot be read at all (permissions, I/O) is left
    /// where it is, with a warning of kind `.unreadable`: it must not be written over
    /// (``MemoryStore`` refuses to); so is a damaged one that could not be copied or moved
    /// aside (a full disk), kind `.unprotected`.
    /// - Parameter now: the time that names the set-aside file.
    public static func load(
        path: String, now: Date = Date()
    ) -> (
        memory: EntranceMemory, warning: MemoryFileError?
    ) {
        let data: Data
        do {
            guard let bytes = try bytes(path: path) else { return (EntranceMemory(), nil) }
            data = bytes
        } catch {
            return (EntranceMemory(), error)
        }
        do {
            let (memory, damaged) = try decodeSalvaging(data, path: path)
            guard var warning = damaged.first else { return (memory, nil) }
            warning.kept = memory.buildings.count
            if damaged.count > 1 {
                warning.reason +=
                    "; also \(damaged.dropFirst().map { "line \($0.line.map(String.init) ?? "?"): \($0.field ?? "?")" }.joined(separator: ", "))"
            }
            do {
                // Beside the file itself when `path` is a link to it.
                warning.setAside = try copyAside(
                    (try? AtomicFile.resolvingLink(path)) ?? path, data, now: now)
            } catch let failure {
                // Before, the save that followed dropped the damaged buildings for good.
                warning.kind = .unprotected
                warning.reason += "; could not copy it aside (\(failure.description)), so it is left as it is"
            }
            return (memory, warning)
        } catch var error {
            do {
                // The file itself when `path` is a link to it: the link stays, and the next
                // save writes through it (before, the link was moved aside and replaced).
                error.setAside = try setAside((try? AtomicFile.resolvingLink(path)) ?? path, now: now)
            } catch let failure {
                error.kind = .unprotected
                error.reason += "; could not set it aside (\(failure.description)), so it is left as it is"
            }
            return (EntranceMemory(), error)
        }
    }

    /// Reads the memory without changing anything on disk (for read-only commands).
    /// A missing file is an empty memory.
    /// - Throws: `MemoryFileError` naming the file, line and field.
    public static func read(path: String) throws(MemoryFileError) -> EntranceMemory {
        guard let data = try bytes(path: path) else { return EntranceMemory() }
        return try decode(data, path: path)
    }

    /// Reads the memory without changing anything on disk, keeping every building that parses
    /// (for `plan`: one damaged building must not hide the others). A missing file is an
    /// empty memory.
    /// - Returns: the buildings that parse, and one error (line, field) per damaged building.
    /// - Throws: `MemoryFileError` when the file cannot be read or is no memory at all.
    public static func readSalvaging(
        path: String
    ) throws(MemoryFileError) -> (memory: EntranceMemory, damaged: [MemoryFileError]) {
        guard let data = try bytes(path: path) else { return (EntranceMemory(), []) }
        return try decodeSalvaging(data, path: path)
    }

    /// The file's bytes, or nil when there is no file.
    /// - Throws: `MemoryFileError` of kind `.unreadable` for any other failure (EACCES, EIO…).
    static func bytes(path: String) throws(MemoryFileError) -> Data? {
        do {
            return Data(try readAll(path))
        } catch let error where error.code == ENOENT || error.code == ENOTDIR {
            return nil  // no file: nothing to lose (a save makes the directories or says why not)
        } catch {
            throw MemoryFileError(.unreadable, path: path, reason: "cannot read: \(error.description)")
        }
    }

    /// Writes `memory` to `path` atomically (temp file in the same directory, fsync, rename,
    /// fsync of the directory), mode 0600. Missing directories above it are made first, mode
    /// 0700 (as the XDG base directory spec asks: a fresh account has no
    /// `~/.local/share/pathfinder/`).
    /// - Throws: `MemoryFileError` naming the system call that failed, or of kind
    ///   `.hardLinked` (``refuseOtherNames(_:)``); the old file is then untouched.
    public static func save(_ memory: EntranceMemory, path: String) throws(MemoryFileError) {
        let bytes = try prepare(memory, path: path)
        do {
            try AtomicFile.write(bytes, to: path, mode: mode)
        } catch {
            throw MemoryFileError(.unwritable, path: path, reason: "cannot write: \(error.description)")
        }
    }

    /// ``save(_:path:)``, but only in the place of the file `expected` (nil: none): another file
    /// moved in since is left as it was and nothing written (``AtomicFile/replace(_:at:expecting:mode:beforeRenaming:)``).
    /// `beforeReplacing` runs between the temp file's write and its rename (a seam for tests).
    static func replace(
        _ memory: EntranceMemory, path: String, expecting expected: FileStamp?,
        beforeReplacing: () -> Void = {}
    ) throws(MemoryFileError) -> AtomicFile.Replacement {
        let bytes = try prepare(memory, path: path)
        do {
            return try AtomicFile.replace(
                bytes, at: path, expecting: expected, mode: mode, beforeRenaming: beforeReplacing)
        } catch {
            throw MemoryFileError(.unwritable, path: path, reason: "cannot write: \(error.description)")
        }
    }

    /// `memory`'s bytes for `path`, once the path may be written (one name) and its folder is made.
    private static func prepare(_ memory: EntranceMemory, path: String) throws(MemoryFileError) -> [UInt8] {
        let bytes: [UInt8]
        do {
            bytes = [UInt8](try encode(memory))
        } catch {
            throw MemoryFileError(.unwritable, path: path, reason: "cannot encode: \(error)")
        }
        try refuseOtherNames(path)
        do {
            try PrivateDirectory.make(AtomicFile.split(path).directory)
        } catch {
            throw MemoryFileError(.unwritable, path: path, reason: "cannot write: \(error.description)")
        }
        return bytes
    }

    /// Runs `body` holding an exclusive lock on the memory at `path` (`flock` on the folder
    /// that holds it: no file of its own to leave behind): two processes that each read,
    /// change and write the memory take turns, so neither writes over what the other saved.
    /// A running daemon holds a shared lock on it for its life (``DaemonHold``): it
    /// keeps the memory in RAM and saves what it holds, so a change made beside it would be
    /// lost at its next save. After `waitSeconds` without the lock, the change is refused.
    /// - Throws: `MemoryFileError`: `.unwritable` when the folder cannot be made or locked,
    ///   `.inUse` when it stays locked, `.hardLinked` for a file with other names
    ///   (``refuseOtherNames(_:)``); `body`'s errors.
    public static func locked<T>(path: String, waitSeconds: Double = 5, _ body: () throws -> T) throws -> T {
        let lock = try Lock(path: path, waitSeconds: waitSeconds)
        return try withExtendedLifetime(lock) { try body() }
    }

    /// The exclusive lock of ``locked(path:waitSeconds:_:)``, held until the value goes away:
    /// for a program that reads the memory, then writes it at each change for a while
    /// (`replay --memory`).
    public final class Lock {
        private let fd: Int32

        /// Takes the lock, waiting up to `waitSeconds`.
        /// - Throws: `MemoryFileError` as ``MemoryFile/locked(path:waitSeconds:_:)``.
        public init(path: String, waitSeconds: Double = 5) throws(MemoryFileError) {
            fd = try MemoryFile.lockExclusive(path: path, waitSeconds: waitSeconds)
        }

        deinit { try? closeDescriptor(fd) }
    }

    /// The memory's folder, open and locked exclusively; the caller closes it.
    private static func lockExclusive(path: String, waitSeconds: Double) throws(MemoryFileError) -> Int32 {
        try refuseOtherNames(path)
        let directory = AtomicFile.split(path).directory
        let fd = try openFolder(of: path)
        var locked = false
        defer { if !locked { try? closeDescriptor(fd) } }
        let deadline = Date().addingTimeInterval(waitSeconds)
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                throw MemoryFileError(
                    .unwritable, path: path,
                    reason: "cannot write: flock \(directory): \(String(cString: strerror(errno)))")
            }
            guard Date() < deadline else {
                // Only shared locks held: a daemon's. An exclusive one: another command that
                // changes the memory (a replay holds it for its walk).
                let daemon = flock(fd, LOCK_SH | LOCK_NB) == 0
                throw MemoryFileError(
                    .inUse, path: path,
                    reason: daemon
                        ? "in use by a running pathfinder daemon (its memory is in this folder), which would write over this change; stop it first (systemctl --user stop pathfinder)"
                        : "in use by another pathfinder command changing the memory in this folder (a replay holds it for its walk); try again when it has finished"
                )
            }
            usleep(20_000)
        }
        locked = true
        return fd
    }

    /// A running daemon's hold on the memory at `path`, for its life (until the value goes
    /// away). It keeps the memory in RAM and saves what it holds, so nothing else may change
    /// the file beside it:
    /// - a shared lock on the folder, so ``locked(path:waitSeconds:_:)`` refuses a
    ///   `pathfinder memory` change (it would be written over at the daemon's next save);
    /// - an exclusive lock on `.<name>.daemon` beside the memory, holding the daemon's pid, so
    ///   a second daemon given the same memory (on another socket) is refused at its start
    ///   instead of each writing over the other's saves. The folder's lock cannot do it: two
    ///   daemons' shared locks do not exclude each other. The small file stays behind; the
    ///   lock goes with the process.
    public final class DaemonHold {
        /// The memory file, as given.
        public let path: String
        // Swapped only by ``verify()`` (the daemon's loop, the one user), with a hold of the
        // folder now at the path, whose `deinit` then closes these.
        private var folder: Int32
        /// The lock file, when it could be opened and locked; -1 when not (``claimProblem``).
        private var claim: Int32
        /// Why the lock file could not be taken (it is another user's, a link, a folder, or
        /// the folder is read-only): the daemon runs with the folder's lock alone, which still
        /// refuses `pathfinder memory` changes, but not a second daemon. Nil when taken.
        public private(set) var claimProblem: MemoryFileError?
        /// The folder held (the memory's, a link followed) and the lock file in it, as they
        /// were when taken.
        private var held: (directory: String, claimPath: String)

        /// The lock file's path for the memory at `path` (its link followed, as saves are).
        public static func claimPath(for path: String) -> String {
            let (directory, name) = AtomicFile.split((try? AtomicFile.resolvingLink(path)) ?? path)
            return (directory as NSString).appendingPathComponent(".\(name).daemon")
        }

        /// Takes the folder's shared lock, waiting while a command changing the memory (a
        /// replay's walk) holds it, then the lock file's.
        /// - Throws: `MemoryFileError`: `.inUse` when another daemon holds this memory,
        ///   `.hardLinked` for a file with other names (``MemoryFile/refuseOtherNames(_:)``),
        ///   `.unwritable` when the folder cannot be made or opened. A lock file that cannot
        ///   be opened or locked is ``claimProblem``, not thrown: before, it was thrown, and the
        ///   daemon ran with no lock at all, so a `memory confirm` beside it was written over.
        public convenience init(path: String) throws(MemoryFileError) {
            try self.init(path: path, waiting: true)
        }

        /// `waiting` false: a folder locked by a command changing the memory is `.inUse` at once.
        private init(path: String, waiting: Bool) throws(MemoryFileError) {
            self.path = path
            try MemoryFile.refuseOtherNames(path)
            let lockPath = Self.claimPath(for: path)
            held = (AtomicFile.split((try? AtomicFile.resolvingLink(path)) ?? path).directory, lockPath)
            let folder = try Self.lockedFolder(of: path, waiting: waiting)
            var claim: Int32 = -1
            var problem: MemoryFileError?
            do {
                claim = try retryingOnInterrupt("open \(lockPath)") {
                    open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, MemoryFile.mode)
                }
            } catch {
                problem = MemoryFileError(
                    .unwritable, path: path,
                    reason: "cannot lock against a second daemon: \(error.description)")
            }
            if claim >= 0, flock(claim, LOCK_EX | LOCK_NB) != 0 {
                let code = errno
                let other = Self.pid(in: claim)
                try? closeDescriptor(claim)
                claim = -1
                guard code == EWOULDBLOCK else {
                    problem = MemoryFileError(
                        .unwritable, path: path,
                        reason:
                            "cannot lock against a second daemon: flock \(lockPath): \(String(cString: strerror(code)))"
                    )
                    self.folder = folder
                    self.claim = claim
                    self.claimProblem = problem
                    return
                }
                try? closeDescriptor(folder)
                throw MemoryFileError(
                    .inUse, path: path,
                    reason: "in use by another running pathfinder daemon"
                        + (other.map { " (pid \($0))" } ?? "")
                        + ", which keeps it and would write over this one's saves; give each daemon its own memory file (--memory or \"memory\" in its config)"
                )
            }
            if claim >= 0 {
                // Our pid for the next one's message; a failure here costs only that.
                let text = Array("\(getpid())\n".utf8)
                if ftruncate(claim, 0) == 0 { _ = pwrite(claim, text, text.count, 0) }
            }
            self.folder = folder
            self.claim = claim
            self.claimProblem = problem
        }

        /// The memory's folder (made 0700 when missing), open and locked shared; `waiting`
        /// false: a folder locked by a command changing the memory is `.inUse` at once.
        private static func lockedFolder(of path: String, waiting: Bool) throws(MemoryFileError) -> Int32 {
            let folder = try openFolder(of: path)
            if waiting {
                _ = try? retryingOnInterrupt("flock") { flock(folder, LOCK_SH) }
            } else if flock(folder, LOCK_SH | LOCK_NB) != 0, errno == EWOULDBLOCK {
                try? closeDescriptor(folder)
                throw MemoryFileError(
                    .inUse, path: path,
                    reason:
                        "in use by another pathfinder command changing the memory in this folder (a replay holds it for its walk)"
                )
            }
            return folder
        }

        deinit {
            if claim >= 0 { try? closeDescriptor(claim) }
            try? closeDescriptor(folder)
        }

        /// What ``verify()`` found.
        public enum Verification: Sendable {
            /// The folder and the lock file at the path are the ones held.
            case held
            /// They were not (removed, replaced: the locks had gone with them); they are now,
            /// locked again. `note` says what had happened, for the log.
            case retaken(note: String)
            /// Another holds the memory at the path (a daemon, naming its pid when known; or a
            /// command changing it): nothing may be saved while it does.
            case lost(MemoryFileError)
            /// The folder at the path cannot be made or locked (`.unwritable`): nobody else
            /// holds it either; saves go on, and say their own failure.
            case unlocked(MemoryFileError)
        }

        /// Whether the folder and the lock file at the path are still the ones locked (device
        /// and inode): a folder removed (`rm -rf`) or replaced (a restore) while the daemon runs
        /// takes its locks with it, and a second daemon would start on the one made at the path.
        /// When they are not, they are locked again (the folder made again, 0700, when missing),
        /// without waiting: another daemon holding them now is ``Verification/lost(_:)``.
        /// A `stat` or two when nothing changed.
        public func verify() -> Verification {
            let directory = AtomicFile.split((try? AtomicFile.resolvingLink(path)) ?? path).directory
            let lockPath = Self.claimPath(for: path)
            // The folder as `openFolder(of:)` opened it: a link to it followed (before, the link
            // itself was compared, so a folder reached through a link was never "held").
            let folderHeld = pathNamesOpenFile(directory, folder)
            let claimHeld = claim < 0 || pathNamesOpenFile(lockPath, claim, followingLink: false)
            if folderHeld && claimHeld { return .held }
            if claim >= 0 && claimHeld {
                // The lock file at the path is the one this daemon holds, so no other daemon
                // holds it: only the folder's lock is taken again. A whole new hold would lock
                // the file a second time, collide with this daemon's own lock and take it for
                // another daemon's.
                let fresh: Int32
                do {
                    fresh = try Self.lockedFolder(of: path, waiting: false)
                } catch {
                    return error.kind == .unwritable ? .unlocked(error) : .lost(error)
                }
                try? closeDescriptor(folder)
                folder = fresh
                return .retaken(
                    note:
                        "memory folder \(directory) is not the one opened at the start, though the lock file in it is this daemon's: the folder locked again, so a `memory` command on it is refused as before"
                )
            }
            var info = stat()
            let existed = stat(directory, &info) == 0
            let fresh: DaemonHold
            do {
                fresh = try DaemonHold(path: path, waiting: false)
            } catch {
                return error.kind == .unwritable ? .unlocked(error) : .lost(error)
            }
            let before = held
            swap(&folder, &fresh.folder)
            swap(&claim, &fresh.claim)
            claimProblem = fresh.claimProblem
            held = fresh.held
            let again = "locked again, so a second daemon or a `memory` command on it is refused as before"
            if before.directory != held.directory {
                // The memory file now leads elsewhere (it became a link, or stopped being one):
                // the lock file left in the folder it was in is this daemon's, and no longer
                // locks anything (before, audit 11 A11-3, it stayed, and the log said the
                // folder was replaced, which it was not).
                if before.claimPath != held.claimPath { unlink(before.claimPath) }
                return .retaken(
                    note:
                        "memory file \(path) now leads to another folder, \(held.directory) (it was in \(before.directory)): \(again); the memory is saved there at the next change"
                )
            }
            if folderHeld {
                return .retaken(
                    note:
                        "memory lock file \(lockPath) was removed or replaced while the daemon ran: \(again)")
            }
            return .retaken(
                note: existed
                    ? "memory folder \(directory) was replaced while the daemon ran (its locks stayed with the old one): \(again); the memory is saved there at the next change"
                    : "memory folder \(directory) was removed while the daemon ran (its locks went with it): made again (mode 0700) and \(again); the memory is saved there at the next change"
            )
        }

        /// The pid written in the lock file by the daemon holding it, if it reads as one.
        private static func pid(in fd: Int32) -> Int32? {
            var buffer = [UInt8](repeating: 0, count: 32)
            let count = pread(fd, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            let text = String(decoding: buffer[..<count], as: UTF8.self)
            return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    /// Refuses a memory file with more than one name (hard links to it, here or in other
    /// folders): each save replaces the file under the name it was given, which parts it from
    /// the others without a word, and a program given another name takes that name's
    /// folder's lock, so it would change the memory beside this one, each writing over the
    /// other. A symbolic link is followed and is fine; a missing file is too.
    /// - Throws: `MemoryFileError` of kind `.hardLinked`, naming the file and why.
    public static func refuseOtherNames(_ path: String) throws(MemoryFileError) {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_nlink > 1 else { return }
        throw MemoryFileError(
            .hardLinked, path: path,
            reason:
                "it has \(info.st_nlink) names (hard links): each save replaces the file under one name, which parts it from the others without a word, and a program given another name (locked by its own folder) would change it beside this one; give it one name (remove the other links, or make them symbolic links to it: ln -sf)"
        )
    }

    /// The memory's folder (made 0700 when missing), open for `flock`.
    private static func openFolder(of path: String) throws(MemoryFileError) -> Int32 {
        // The folder of the file a link leads to: where the saves go, and the one a program
        // naming the file itself locks.
        let directory = AtomicFile.split((try? AtomicFile.resolvingLink(path)) ?? path).directory
        do {
            try PrivateDirectory.make(directory)
            return try retryingOnInterrupt("open \(directory)") {
                open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            }
        } catch {
            throw MemoryFileError(.unwritable, path: path, reason: "cannot write: \(error.description)")
        }
    }

    /// The file's bytes: pretty-printed with sorted keys (so an error's line number points
    /// somewhere useful and two saves of one memory are identical), times ISO 8601 in UTC.
    public static func encode(_ memory: EntranceMemory) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        var data = try encoder.encode(memory)
        data.append(UInt8(ascii: "\n"))
        return data
    }

    /// `memory` as the file would hold it (times to the second), so what was read back compares
    /// equal to what was written; `memory` itself if it cannot be encoded.
    public static func asWritten(_ memory: EntranceMemory) -> EntranceMemory {
        (try? decode(encode(memory), path: "")) ?? memory
    }

    /// Parses the file's bytes; `path` only names them in errors.
    /// - Throws: `MemoryFileError` with line and field for bad JSON, a wrong field or an
    ///   unknown version.
    public static func decode(_ data: Data, path: String) throws(MemoryFileError) -> EntranceMemory {
        do {
            if let fault = try JSONDiagnostics.versionFault(in: data, current: EntranceMemory.currentVersion)
            {
                throw MemoryFileError(path: path, line: fault.line, field: fault.field, reason: fault.reason)
            }
            return try makeDecoder().decode(EntranceMemory.self, from: data)
        } catch let error as MemoryFileError {
            throw error
        } catch let error as DecodingError {
            let fault = JSONDiagnostics.fault(error, in: data)
            throw MemoryFileError(path: path, line: fault.line, field: fault.field, reason: fault.reason)
        } catch {
            throw MemoryFileError(
                path: path, reason: "not a memory file: \(JSONDiagnostics.describe(error, in: data))")
        }
    }

    /// Parses the file's bytes, keeping every building that parses.
    /// - Returns: the memory of the buildings that parse, and one error (line and field) per
    ///   building that does not.
    /// - Throws: `MemoryFileError` when the file as a whole is no memory (syntax, version,
    ///   no `buildings` array).
    public static func decodeSalvaging(
        _ data: Data, path: String
    ) throws(MemoryFileError) -> (memory: EntranceMemory, damaged: [MemoryFileError]) {
        try decodeSalvaging(data, path: path, outOfRange: [:])
    }

    /// `decodeSalvaging(_:path:)`; `outOfRange` holds the numbers too large to read that were
    /// quoted in `data`, by line, so a building holding one is skipped saying so.
    private static func decodeSalvaging(
        _ data: Data, path: String, outOfRange: [Int: String]
    ) throws(MemoryFileError) -> (memory: EntranceMemory, damaged: [MemoryFileError]) {
        do {
            return (try decode(data, path: path), [])
        } catch let strict {
            // A number no Double holds (1e400) stops Foundation's parser for the whole file:
            // quoted, it is a string where a number goes, and only its building is skipped
            // (before, every building was set aside with the file).
            if strict.field == nil, outOfRange.isEmpty, let (quoted, lines) = quotingOutOfRangeNumbers(data) {
                return try decodeSalvaging(quoted, path: path, outOfRange: lines)
            }
            // Only a fault inside one building is worth salvaging around.
            guard strict.field?.hasPrefix("buildings[") == true else { throw strict }
        }
        let decoder = makeDecoder()
        let dropped = DroppedAltitudes()
        decoder.userInfo[DroppedAltitudes.key] = dropped
        let salvaged: Salvaged
        do {
            salvaged = try decoder.decode(Salvaged.self, from: data)
        } catch let error as DecodingError {
            let fault = JSONDiagnostics.fault(error, in: data)
            throw MemoryFileError(path: path, line: fault.line, field: fault.field, reason: fault.reason)
        } catch {
            throw MemoryFileError(path: path, reason: "not a memory file: \(error)")
        }
        let names = buildingNames(data)
        let damaged = salvaged.faults.map { (index, error) in
            let fault = JSONDiagnostics.fault(error, in: data)
            let name = index < names.count ? names[index].map { " (\"\($0)\")" } ?? "" : ""
            let reason =
                fault.line.flatMap { outOfRange[$0] }.map { "the number \($0) is too large to read" }
                ?? fault.reason
            return MemoryFileError(
                path: path, line: fault.line, field: fault.field,
                reason: "building \(index)\(name) skipped: " + reason)
        }
        // A door whose altitude is no barometer's keeps its place; only the altitude goes.
        let withoutAltitude = dropped.all.map { error in
            let fault = JSONDiagnostics.fault(error, in: data)
            let index = fault.field.flatMap { field in
                field.hasPrefix("buildings[") ? Int(field.dropFirst(10).prefix { $0.isNumber }) : nil
            }
            let name = index.flatMap { $0 < names.count ? names[$0].map { " (\"\($0)\")" } : nil } ?? ""
            return MemoryFileError(
                path: path, line: fault.line, field: fault.field,
                reason: "building \(index.map(String.init) ?? "?")\(name): altitude dropped, the door kept: "
                    + fault.reason)
        }
        return (EntranceMemory(buildings: salvaged.buildings), damaged + withoutAltitude)
    }

    /// `data` with each number too large for a Double quoted (`1e400` → `"1e400"`), and the
    /// numbers by line; nil when it has none.
    private static func quotingOutOfRangeNumbers(_ data: Data) -> (Data, [Int: String])? {
        var data = data
        var lines: [Int: String] = [:]
        for _ in 0..<1000 {
            do {
                _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
                break
            } catch {
                guard let message = (error as NSError).userInfo["NSDebugDescription"] as? String,
                    let number = JSONDiagnostics.outOfRangeNumber(in: message),
                    let place = JSONDiagnostics.numberValue(number, in: data)
                else { return nil }
                data.replaceSubrange(place.range, with: Data("\"\(number)\"".utf8))
                lines[place.line] = number
            }
        }
        return lines.isEmpty ? nil : (data, lines)
    }

    /// The buildings of a file whose other buildings may be damaged, each decoded on its own.
    private struct Salvaged: Decodable {
        var buildings: [EntranceMemory.Building] = []
        var faults: [(Int, DecodingError)] = []

        /// Decodes nothing: steps over a building that did not decode.
        private struct Skip: Decodable {
            init(from decoder: any Decoder) throws {}
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: SalvageKey.self)
            var array = try c.nestedUnkeyedContainer(forKey: .buildings)
            while !array.isAtEnd {
                let index = array.currentIndex
                do {
                    buildings.append(try array.decode(EntranceMemory.Building.self))
                } catch let error as DecodingError {
                    faults.append((index, error))
                    if array.currentIndex == index { _ = try array.decode(Skip.self) }
                }
            }
        }
    }

    private enum SalvageKey: String, CodingKey { case buildings }

    /// Each building's `name` where the JSON has one (for warnings about damaged buildings).
    private static func buildingNames(_ data: Data) -> [String?] {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let buildings = object["buildings"] as? [Any]
        else { return [] }
        return buildings.map { ($0 as? [String: Any])?["name"] as? String }
    }

    /// The decoder of memory files: times ISO 8601 with zone.
    private static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        // Custom rather than `.iso8601` so that a bad time names its own field, not its parent.
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = try? Date(text, strategy: .iso8601) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "\"\(text)\" is not an ISO 8601 time with zone")
            }
            // Before, "2025-02-30" was read as 2 March.
            if let fault = TimeDiagnostics.calendarFault(in: text) {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "\"\(text)\": \(fault)")
            }
            return date
        }
        return decoder
    }

    /// Renames `path` to `<path>.corrupt-<UTC time>` (with `-2`, `-3`… if taken: an earlier
    /// set-aside file is never overwritten either). Returns the new path.
    static func setAside(_ path: String, now: Date) throws(SystemCallError) -> String {
        let candidate = asideName(path, now: now)
        try retryingOnInterrupt("rename \(path) to \(candidate)") { rename(path, candidate) }
        return candidate
    }

    /// Copies `data` (the bytes of `path`) to `<path>.corrupt-<UTC time>`, unless an earlier
    /// copy holds the same bytes (a restart without a save in between makes no second copy).
    /// Returns the copy's path.
    private static func copyAside(_ path: String, _ data: Data, now: Date) throws(SystemCallError) -> String {
        let (directory, name) = AtomicFile.split(path)
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for entry in entries.sorted() where entry.hasPrefix("\(name).corrupt-") {
            let other = "\(directory)/\(entry)"
            if FileManager.default.contents(atPath: other) == data { return other }
        }
        let candidate = asideName(path, now: now)
        try AtomicFile.write([UInt8](data), to: candidate, mode: mode)
        return candidate
    }

    /// `<path>.corrupt-<UTC time>` (with `-2`, `-3`… if taken).
    private static func asideName(_ path: String, now: Date) -> String {
        // Basic ISO 8601 (20250430T080000Z): sorts by time and has no ':' to trip up tools.
        let stamp =
            now.formatted(.iso8601).replacingOccurrences(of: ":", with: "")
            .replacingOccurrences(of: "-", with: "")
        var candidate = "\(path).corrupt-\(stamp)"
        var n = 1
        while access(candidate, F_OK) == 0 {
            n += 1
            candidate = "\(path).corrupt-\(stamp)-\(n)"
        }
        return candidate
    }
}
