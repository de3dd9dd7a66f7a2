public import Arrival
public import Foundation
import SystemCalls

/// The memory file as a long-running program keeps it (the daemon): loaded once, saved after
/// every change, and never written over while it cannot be read, nor when another program
/// replaced it since.
///
/// A file that exists but cannot be read at start (EACCES, EIO) loads as an empty memory; a
/// save then would replace what the walker taught with nothing. So while the file cannot be
/// read, every save first tries to read it again: still unreadable, the save is refused;
/// readable at last, its buildings are merged under the program's changes
/// (``EntranceMemory/merging(_:base:)``, nothing known of the file) and that is written.
///
/// A file replaced while the program runs (a restored backup, a sync tool, `mv new
/// memory.json`) is found before the save by its stamp (device, inode, size, modification
/// time: `stat`, not its content) differing from the file the program last read or wrote; it
/// is then read as at a start — one that does not parse set aside as `.corrupt-<time>`, damaged
/// buildings skipped and the file copied aside, one that cannot be read not written over — and
/// merged three ways (``EntranceMemory/merging(_:base:)``) with ``base``, the memory as this
/// store last read or wrote it: a building the program did not change since stays as the file
/// has it (a family's correction). Before the save wrote over it unsaid, and then (audit 10
/// A10-1) laid the program's whole memory over it.
///
/// A file moved in during the save itself, after that check, is found when the save exchanges
/// its temp file with the path (``saveMerging(_:now:)``) and merged the same way.
public struct MemoryStore: Sendable {
    /// The memory file.
    public let path: String
    /// Why the file could not be read; nil once it was read (or there was none).
    public private(set) var unreadable: MemoryFileError?
    /// The file as this store last read or wrote it; nil: there was none.
    private var known: FileStamp?
    /// The memory as this store last read or wrote it (empty while the file cannot be read): the
    /// base of the three-way merge with a file replaced since.
    public private(set) var base = EntranceMemory()
    /// Run by each save between its check of the path and its replacing the file there: a seam
    /// for tests, which move a file in at that moment (audit 11 A11-2).
    var beforeReplacing: @Sendable () -> Void = {}

    /// What a save found at the path and merged under the program's memory before writing.
    public struct Merge: Sendable {
        public enum Cause: Sendable, Hashable {
            /// The file could not be read before, and now can.
            case readAgain
            /// Another program replaced or changed the file since this store read or wrote it.
            case replaced
        }
        public var cause: Cause
        /// The memory the file held (empty when it was no memory: then set aside).
        public var file: EntranceMemory
        /// What was wrong with a replaced file that was read (it did not parse, or some
        /// buildings did not): where it was set aside or copied is in it.
        public var warning: MemoryFileError?
        /// What was written: the file's memory merged with the program's.
        public var merged: EntranceMemory
        /// The buildings both the file and the program changed since ``base``.
        public var bothChanged: [EntranceMemory.BothChanged]
        /// The buildings the file held in a version older than ``base``'s, not taken.
        public var olderInFile: [String]
        /// The buildings a person edited in the file from a version older than ``base``'s: the
        /// program's kept, with what of the file's did not contradict it.
        public var editedFromOlder: [EntranceMemory.EditedFromOlder]

        public init(
            cause: Cause, file: EntranceMemory, warning: MemoryFileError?, merged: EntranceMemory,
            bothChanged: [EntranceMemory.BothChanged] = [], olderInFile: [String] = [],
            editedFromOlder: [EntranceMemory.EditedFromOlder] = []
        ) {
            self.cause = cause
            self.file = file
            self.warning = warning
            self.merged = merged
            self.bothChanged = bothChanged
            self.olderInFile = olderInFile
            self.editedFromOlder = editedFromOlder
        }
    }

    public init(path: String) {
        self.path = path
    }

    /// Whether another program replaced or changed the file since this store last read or wrote
    /// it (a file since removed is not: there is nothing in it to lose).
    public var changedOnDisk: Bool {
        let found = FileStamp(path: path)
        return found != nil && found != known
    }

    /// Loads the memory as ``MemoryFile/load(path:now:)`` does, and remembers a file that
    /// could not be read.
    public mutating func load(now: Date = Date()) -> (memory: EntranceMemory, warning: MemoryFileError?) {
        let loaded = MemoryFile.load(path: path, now: now)
        unreadable = loaded.warning?.mustNotWriteOver == true ? loaded.warning : nil
        known = FileStamp(path: path)
        base = loaded.memory
        return loaded
    }

    /// Writes `memory`, unless the file could not be read and still cannot.
    /// - Returns: the memory the file held when it was read first (a file that could not be
    ///   read, read at last, or one another program replaced): what was written is that memory
    ///   merged under `memory`, and the caller merges it the same way; nil otherwise.
    /// - Throws: `MemoryFileError` of kind `.unreadable` when the file still cannot be read
    ///   (nothing is written), or `.unwritable` when the write failed (the old file is untouched).
    @discardableResult
    public mutating func save(
        _ memory: EntranceMemory, now: Date = Date()
    ) throws(MemoryFileError)
        -> EntranceMemory?
    {
        try saveMerging(memory, now: now)?.file
    }

    /// ``save(_:now:)``, saying why the file was read and what was wrong with it.
    ///
    /// The file is replaced only if it is still the one this store last read or wrote (or the
    /// one just read for the merge): one moved in at the path during the save, between its check
    /// and its rename, is found by the exchange (``AtomicFile/replace(_:at:expecting:mode:beforeRenaming:)``),
    /// left in place, read and merged, at most ``attempts`` times. Before (audit 11 A11-2), it
    /// was written over unread, and one moved in just after the rename was taken for this
    /// store's own file.
    public mutating func saveMerging(
        _ memory: EntranceMemory, now: Date = Date()
    ) throws(MemoryFileError) -> Merge? {
        for _ in 0..<Self.attempts {
            // A file gone since is nothing to merge: the save makes it again.
            let found = FileStamp(path: path)
            if unreadable == nil, found == nil || found == known {
                guard case .written(let stamp) = try replace(memory, expecting: found) else { continue }
                known = stamp
                base = memory
                return nil
            }
            let loaded = MemoryFile.load(path: path, now: now)
            if let warning = loaded.warning, warning.mustNotWriteOver {
                unreadable = warning
                throw MemoryFileError(
                    warning.kind, path: path,
                    reason: "\(warning.reason); not writing over a file that could not be "
                        + warning.untilItCanBe)
            }
            // The file read (none: it was set aside); another moved in during the read is read next.
            let read = FileStamp(path: path)
            guard read == nil || read == found else { continue }
            // Compared as the file holds them (times to the second); a file never read has no base.
            let merge = loaded.memory.merging(
                MemoryFile.asWritten(memory),
                base: unreadable != nil ? EntranceMemory() : MemoryFile.asWritten(base))
            guard case .written(let stamp) = try replace(merge.memory, expecting: read) else { continue }
            let cause: Merge.Cause = unreadable != nil ? .readAgain : .replaced
            unreadable = nil
            known = stamp
            base = merge.memory
            return Merge(
                cause: cause, file: loaded.memory, warning: loaded.warning, merged: merge.memory,
                bothChanged: merge.bothChanged, olderInFile: merge.olderInFile,
                editedFromOlder: merge.editedFromOlder)
        }
        throw MemoryFileError(
            .unwritable, path: path,
            reason:
                "cannot write: another file was moved in at the path during each of \(Self.attempts) saves in a row; not writing over a file not read"
        )
    }

    /// How many times a save reads and merges a file moved in during it before it gives up (and
    /// is retried as any failed save).
    static let attempts = 3

    /// ``MemoryFile/replace(_:path:expecting:beforeReplacing:)`` with this store's seam.
    private func replace(
        _ memory: EntranceMemory, expecting expected: FileStamp?
    ) throws(MemoryFileError) -> AtomicFile.Replacement {
        try MemoryFile.replace(memory, path: path, expecting: expected, beforeReplacing: beforeReplacing)
    }
}
