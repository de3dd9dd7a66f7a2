/// What went wrong with a memory file, naming the file and, for a file that does not parse,
/// the line and field.
public struct MemoryFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The memory file.
    public var path: String
    /// 1-based line of the fault, when known.
    public var line: Int?
    /// The field at fault ("buildings[0].changed"), when known.
    public var field: String?
    /// What was wrong.
    public var reason: String
    /// Where the unreadable file was moved (`<path>.corrupt-<time>`), when it was.
    public var setAside: String?

    public init(
        path: String, line: Int? = nil, field: String? = nil, reason: String, setAside: String? = nil
    ) {
        self.path = path
        self.line = line
        self.field = field
        self.reason = reason
        self.setAside = setAside
    }

    /// "memory.json: line 4: field buildings[0].changed: expected … (set aside as …)".
    public var description: String {
        var text = "\(path): \(JSONDiagnostics.describe(line: line, field: field, reason: reason))"
        if let setAside { text += "; set aside as \(setAside), carrying on with an empty memory" }
        return text
    }
}
