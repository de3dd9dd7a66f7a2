public import Arrival
public import Foundation

/// The memory file as a long-running program keeps it (the daemon): loaded once, saved after
/// every change, and never written over while it cannot be read.
///
/// A file that exists but cannot be read at start (EACCES, EIO) loads as an empty memory; a
/// save then would replace what the walker taught with nothing. So while the file cannot be
/// read, every save first tries to read it again: still unreadable, the save is refused;
/// readable at last, its buildings are merged under the program's changes
/// (``EntranceMemory/merging(_:)``) and that is written.
public struct MemoryStore: Sendable {
    /// The memory file.
    public let path: String
    /// Why the file could not be read; nil once it was read (or there was none).
    public private(set) var unreadable: MemoryFileError?

    public init(path: String) {
        self.path = path
    }

    /// Loads the memory as ``MemoryFile/load(path:now:)`` does, and remembers a file that
    /// could not be read.
    public mutating func load(now: Date = Date()) -> (memory: EntranceMemory, warning: MemoryFileError?) {
        let loaded = MemoryFile.load(path: path, now: now)
        unreadable = loaded.warning?.mustNotWriteOver == true ? loaded.warning : nil
        return loaded
    }

    /// Writes `memory`, unless the file could not be read and still cannot.
    /// - Returns: the memory the file held when a file that could not be read was read at last
    ///   (what was written is that memory merged under `memory`: the caller merges it the same
    ///   way); nil otherwise.
    /// - Throws: `MemoryFileError` of kind `.unreadable` when the file still cannot be read
    ///   (nothing is written), or `.unwritable` when the write failed (the old file is untouched).
    @discardableResult
    public mutating func save(
        _ memory: EntranceMemory, now: Date = Date()
    ) throws(MemoryFileError)
        -> EntranceMemory?
    {
        guard unreadable != nil else {
            try MemoryFile.save(memory, path: path)
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
        try MemoryFile.save(loaded.memory.merging(memory), path: path)
        unreadable = nil
        return loaded.memory
    }
}
