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
