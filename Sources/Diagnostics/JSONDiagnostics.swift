public import Foundation

/// Turns a `DecodingError` into the line and field a person can find in the file.
public enum JSONDiagnostics {
    /// Where and what: `line` of the fault (1-based), the dotted `field` path
    /// ("buildings[0].center.lat"), and the `reason`.
    public struct Fault: Sendable, Hashable, CustomStringConvertible {
        public var line: Int?
        public var field: String?
        public var reason: String

        /// "line 3: field center.lat: expected a number", "line 1: field center is missing".
        public var description: String { JSONDiagnostics.describe(line: line, field: field, reason: reason) }
    }

    /// The one wording of a fault, shared by every file Pathfinder reads.
    public static func describe(line: Int?, field: String?, reason: String) -> String {
        var parts: [String] = []
        if let line { parts.append("line \(line)") }
        if let field {
            parts.append(reason.hasPrefix("is ") ? "field \(field) \(reason)" : "field \(field): \(reason)")
        } else {
            parts.append(reason)
        }
        return parts.joined(separator: ": ")
    }

    /// Locates `error` in `data`, the JSON text it came from.
    public static func fault(_ error: DecodingError, in data: Data) -> Fault {
        // Bytes that are not UTF-8 inside a string make JSONDecoder report the wrong thing
        // ("expected Dictionary<String, Any>" where a string could not be decoded).
        if let fault = encodingFault(in: data) { return fault }
        switch error {
        case .keyNotFound(let key, let ctx):
            return Fault(
                line: line(of: ctx.codingPath, in: data), field: field(ctx.codingPath + [key]),
                reason: "is missing")
        case .typeMismatch(let type, let ctx):
            return Fault(
                line: line(of: ctx.codingPath, in: data), field: field(ctx.codingPath),
                reason: "expected \(typeName(type))")
        case .valueNotFound(let type, let ctx):
            return Fault(
                line: line(of: ctx.codingPath, in: data), field: field(ctx.codingPath),
                reason: "expected \(typeName(type)), found null")
        case .dataCorrupted(let ctx):
            if ctx.codingPath.isEmpty {
                // A syntax error. JSONDecoder does not say where; JSONSerialization does
                // ("… around character 42."), so ask it.
                var message = ctx.debugDescription
                do {
                    _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
                } catch {
                    if let detail = (error as NSError).userInfo["NSDebugDescription"] as? String {
                        message = detail.hasSuffix(".") ? String(detail.dropLast()) : detail
                    }
                }
                // Valid JSON, but a number no Double holds (1e400): said as such, with its line.
                if let number = outOfRangeNumber(in: message) {
                    return Fault(
                        line: numberValue(number, in: data)?.line, field: nil,
                        reason: "the number \(number) is too large to read (at most about 1.8e308)")
                }
                return Fault(
                    line: syntaxLine(message, in: data), field: nil,
                    reason: "not valid JSON: \(message)")
            }
            return Fault(
                line: line(of: ctx.codingPath, in: data), field: field(ctx.codingPath),
                reason: ctx.debugDescription)
        @unknown default:
            return Fault(line: nil, field: nil, reason: "\(error)")
        }
    }

    /// The fault of a file whose `"version"` is not `current`, the one this Pathfinder reads
    /// (its line, the field `version`), or nil when it is. Checked before the rest of the
    /// file, which another version may lay out otherwise.
    /// - Throws: `DecodingError` when `data` is no object with a number `version`
    ///   (``fault(_:in:)`` words it).
    public static func versionFault(in data: Data, current: Int) throws -> Fault? {
        // A number, not Int: "1.5" decoded as Int is Foundation's "not valid JSON", unsaid where.
        struct Header: Decodable { var version: Double }
        enum Key: String, CodingKey { case version }
        let version = try JSONDecoder().decode(Header.self, from: data).version
        guard version != Double(current) else { return nil }
        let text =
            version.rounded() == version && abs(version) < 1e15 ? String(Int64(version)) : String(version)
        return Fault(
            line: line(of: [Key.version], in: data), field: field([Key.version]),
            reason: "version \(text) is not one this Pathfinder reads (\(current))")
    }

    /// The reason any error from decoding `data` happened, in words: `fault(_:in:)` for a
    /// `DecodingError`, otherwise the error's own description.
    public static func describe(_ error: any Error, in data: Data) -> String {
        if let error = error as? DecodingError { return fault(error, in: data).description }
        if let fault = encodingFault(in: data) { return fault.description }
        return "not valid JSON"
    }

    /// Where `data` stops being UTF-8, which JSON must be; nil when it is UTF-8 throughout.
    public static func encodingFault(in data: Data) -> Fault? {
        guard let bad = TextDiagnostics.firstInvalidUTF8(in: data) else { return nil }
        return Fault(
            line: bad.line, field: nil,
            reason: "not valid JSON: bytes that are not UTF-8 at byte \(bad.offset + 1)")
    }

    /// "buildings[0].center.lat".
    public static func field(_ path: [any CodingKey]) -> String {
        var text = ""
        for key in path {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += (text.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return text.isEmpty ? "(top level)" : text
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is any BinaryInteger.Type, is any BinaryFloatingPoint.Type: "a number"
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Date.Type: "an ISO 8601 time with zone"
        default: "\(type)".contains("Array") ? "an array" : "an object"
        }
    }

    /// The line of the value at `path`, or of its nearest enclosing value that exists.
    public static func line(of path: [any CodingKey], in data: Data) -> Int? {
        let bytes = [UInt8](data)
        for length in stride(from: path.count, through: 0, by: -1) {
            var scanner = JSONLineScanner(bytes: bytes)
            if let line = scanner.locate(path.prefix(length)) { return line }
        }
        return nil
    }

    /// The line of a syntax error whose message says "line N" or "character N".
    /// The number literal of Foundation's "Number 1e400 is not representable in Swift.".
    public static func outOfRangeNumber(in message: String) -> String? {
        guard let start = message.range(of: "Number "), let end = message.range(of: " is not representable")
        else { return nil }
        let number = message[start.upperBound..<end.lowerBound]
        return number.isEmpty || number.contains(where: \.isWhitespace) ? nil : String(number)
    }

    /// Where `number` stands as a value in `data` (after ":", "[" or ","): its byte range and
    /// line; nil when it is not there as a whole value.
    public static func numberValue(_ number: String, in data: Data) -> (range: Range<Int>, line: Int)? {
        let bytes = [UInt8](data)
        let literal = [UInt8](number.utf8)
        guard !literal.isEmpty, bytes.count >= literal.count else { return nil }
        var line = 1
        var inString = false
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if inString {
                if b == UInt8(ascii: "\\") {
                    i += 2
                    continue
                }
                if b == UInt8(ascii: "\"") { inString = false }
            } else if b == UInt8(ascii: "\"") {
                inString = true
            } else if b == 0x0A {
                line += 1
            } else if i + literal.count <= bytes.count, bytes[i..<(i + literal.count)].elementsEqual(literal)
            {
                var before = i - 1
                while before >= 0, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[before]) { before -= 1 }
                let after = i + literal.count
                let opens =
                    before >= 0
                    && [UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: ",")].contains(bytes[before])
                let closes =
                    after == bytes.count
                    || [0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]")]
                        .contains(bytes[after])
                if opens && closes { return (i..<after, line) }
            }
            i += 1
        }
        return nil
    }

    private static func syntaxLine(_ message: String, in data: Data) -> Int? {
        if let range = message.range(of: "line "),
            let n = Int(message[range.upperBound...].prefix(while: \.isNumber))
        {
            return n
        }
        if let range = message.range(of: "character "),
            let offset = Int(message[range.upperBound...].prefix(while: \.isNumber))
        {
            return 1 + data.prefix(offset).count(where: { $0 == UInt8(ascii: "\n") })
        }
        if message.localizedCaseInsensitiveContains("end of file") {
            // A file cut short: where it ends (before, no line was named).
            return TextDiagnostics.lastLine(of: data)
        }
        return nil
    }

    /// The first key an object of `data` (valid JSON) names twice, with its second line:
    /// JSONDecoder keeps one of them without a word, so a key added at the end of a file
    /// seems to do nothing.
    public static func duplicateKey(in data: Data) -> Fault? {
        let bytes = [UInt8](data)
        // Per open container: an object, whether its next string is a key, the keys so far.
        var stack: [(isObject: Bool, expectsKey: Bool, keys: Set<[UInt8]>)] = []
        var line = 1
        var i = 0
        while i < bytes.count {
            switch bytes[i] {
            case 0x0A: line += 1
            case UInt8(ascii: "{"): stack.append((true, true, []))
            case UInt8(ascii: "["): stack.append((false, false, []))
            case UInt8(ascii: "}"), UInt8(ascii: "]"): _ = stack.popLast()
            case UInt8(ascii: ","):
                if stack.last?.isObject == true { stack[stack.count - 1].expectsKey = true }
            case UInt8(ascii: "\""):
                var raw: [UInt8] = []
                i += 1
                while i < bytes.count, bytes[i] != UInt8(ascii: "\"") {
                    if bytes[i] == UInt8(ascii: "\\"), i + 1 < bytes.count {
                        raw.append(bytes[i])
                        i += 1
                    }
                    raw.append(bytes[i])
                    i += 1
                }
                if let top = stack.last, top.isObject, top.expectsKey {
                    if top.keys.contains(raw) {
                        return Fault(
                            line: line, field: nil,
                            reason:
                                "key \"\(String(decoding: raw, as: UTF8.self))\" is given twice (one would be ignored)"
                        )
                    }
                    stack[stack.count - 1].keys.insert(raw)
                    stack[stack.count - 1].expectsKey = false
                }
            default: break
            }
            i += 1
        }
        return nil
    }
}

/// A small forward scan over JSON text that finds the line on which the value at a coding
/// path starts. It trusts the text to be JSON up to that value (the decoder got that far).
struct JSONLineScanner {
    let bytes: [UInt8]
    var i = 0
    var line = 1

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func locate(_ path: ArraySlice<any CodingKey>) -> Int? {
        skipSpace()
        guard let key = path.first else { return i < bytes.count ? line : nil }
        guard i < bytes.count else { return nil }
        switch bytes[i] {
        case UInt8(ascii: "{"):
            i += 1
            while true {
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { return nil }
                let name = readString()
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { return nil }
                i += 1
                if key.intValue == nil, name == key.stringValue { return locate(path.dropFirst()) }
                skipValue()
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ",") else { return nil }
                i += 1
            }
        case UInt8(ascii: "["):
            guard let wanted = key.intValue else { return nil }
            i += 1
            var index = 0
            while true {
                skipSpace()
                guard i < bytes.count, bytes[i] != UInt8(ascii: "]") else { return nil }
                if index == wanted { return locate(path.dropFirst()) }
                skipValue()
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ",") else { return nil }
                i += 1
                index += 1
            }
        default:
            return nil
        }
    }

    private mutating func skipSpace() {
        while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) {
            if bytes[i] == 0x0A { line += 1 }
            i += 1
        }
    }

    /// Reads a string token (escapes kept raw: keys in our formats have none).
    private mutating func readString() -> String {
        i += 1
        let start = i
        while i < bytes.count, bytes[i] != UInt8(ascii: "\"") {
            i += bytes[i] == UInt8(ascii: "\\") ? 2 : 1
        }
        let text = String(decoding: bytes[start..<min(i, bytes.count)], as: UTF8.self)
        i += 1
        return text
    }

    private mutating func skipValue() {
        var depth = 0
        while i < bytes.count {
            switch bytes[i] {
            case UInt8(ascii: "\""):
                _ = readString()
                if depth == 0 { return }
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if depth == 0 { return }
                depth -= 1
                if depth == 0 {
                    i += 1
                    return
                }
            case UInt8(ascii: ","):
                if depth == 0 { return }
            case 0x0A:
                line += 1
            default:
                break
            }
            i += 1
        }
    }
}
