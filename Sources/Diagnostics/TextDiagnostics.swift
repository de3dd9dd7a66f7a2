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
}
