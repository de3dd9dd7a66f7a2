import Diagnostics

/// What went wrong with a memory file, naming the file and, for a file that does not parse,
/// the line and field.
public struct MemoryFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of trouble, which decides what `MemoryFile.load` does about it.
    public enum Kind: Sendable, Hashable {
        /// The bytes are not a memory this Pathfinder reads: set aside.
        case malformed
        /// The file could not be read at all (permissions, I/O): left alone.
        case unreadable
        /// A save failed; the old file is untouched.
        case unwritable
        /// Another program holds the memory's lock (a daemon, or a command changing it).
        case inUse
        /// The file has other names (hard links), which a save would part from it and other
        /// programs could change it through: refused (``MemoryFile/refuseOtherNames(_:)``).
        case hardLinked
        /// Damaged, and it could not be copied or moved aside (a full disk): left alone, since
        /// a save would write over what it holds.
        case unprotected
    }

    /// Whether the file must be left as it is: its contents are not all in the loaded memory
    /// and not kept anywhere else.
    public var mustNotWriteOver: Bool { kind == .unreadable || kind == .unprotected }

    /// What must become possible before such a file is written: it can be "read", or "kept
    /// aside" (in messages: "nothing is saved until it can be …").
    public var untilItCanBe: String { kind == .unreadable ? "read" : "kept aside" }

    public var kind: Kind
    /// The memory file.
    public var path: String
    /// 1-based line of the fault, when known.
    public var line: Int?
    /// The field at fault ("buildings[0].changed"), when known.
    public var field: String?
    /// What was wrong.
    public var reason: String
    /// Where the unreadable file was moved, or copied when some buildings were kept
    /// (`<path>.corrupt-<time>`), when it was.
    public var setAside: String?
    /// How many buildings were kept from a file with damaged ones; nil when the file was
    /// set aside whole.
    public var kept: Int?

    public init(
        _ kind: Kind = .malformed, path: String, line: Int? = nil, field: String? = nil, reason: String,
        setAside: String? = nil
    ) {
        self.kind = kind
        self.path = path
        self.line = line
        self.field = field
        self.reason = reason
        self.setAside = setAside
    }

    /// "memory.json: line 4: field buildings[0].changed: expected … (set aside as …)".
    public var description: String {
        var text = "\(path): \(JSONDiagnostics.describe(line: line, field: field, reason: reason))"
        if let setAside, let kept {
            text += "; copied to \(setAside), carrying on with the \(kept) buildings that parse"
        } else if let setAside {
            text += "; set aside as \(setAside), carrying on with an empty memory"
        }
        return text
    }
}
