public import Foundation

/// Text that is not what it claims to be.
public enum TextDiagnostics {
    /// Where `data` first stops being UTF-8: the byte's offset (0-based) and its line
    /// (1-based); nil when all of it is UTF-8. Reads the bytes in place, no copy.
    public static func firstInvalidUTF8(in data: Data) -> (offset: Int, line: Int)? {
        data.withUnsafeBytes { raw in
            var iterator = raw.makeIterator()
            var decoder = UTF8()
            var offset = 0
            var line = 1
            while true {
                switch decoder.decode(&iterator) {
                case .scalarValue(let scalar):
                    offset += UTF8.width(scalar)
                    if scalar == "\n" { line += 1 }
                case .emptyInput: return nil
                case .error: return (offset, line)
                }
            }
        }
    }

    /// `text`'s lines as a person sees them in an editor: split at each "\n", a "\r" before it
    /// (a file saved on Windows) or at the very end dropped. A last line ended by its newline
    /// leaves an empty one after it. Split by Unicode scalars, not Characters: "\r\n" is one
    /// Character, which `split(separator: "\n")` never splits at.
    public static func lines(of text: String) -> [Substring] {
        text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { scalars in
            Substring(scalars.last == "\r" ? scalars.dropLast() : scalars)
        }
    }

    /// Where a file cut short (a full disk, a copy stopped) ends: its last line with anything
    /// on it (1-based), as a person looking at the end of the file sees it.
    public static func lastLine(of data: Data) -> Int {
        var end = data.endIndex
        while end > data.startIndex, [0x0A, 0x0D, 0x20, 0x09].contains(data[data.index(before: end)]) {
            end = data.index(before: end)
        }
        return 1 + data[..<end].count(where: { $0 == UInt8(ascii: "\n") })
    }
}
