package import Foundation

/// JSON in and out, the same way for every command.
package enum JSONIO {
    /// One encoder for all output: keys sorted so output is byte-for-byte reproducible,
    /// slashes unescaped, times ISO 8601 with zone.
    package static func encoder(pretty: Bool = false) -> JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting =
            pretty
            ? [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted] : [.sortedKeys, .withoutEscapingSlashes]
        e.dateEncodingStrategy = .iso8601
        return e
    }

    package static func decoder() -> JSONDecoder {
        let d = JSONDecoder()
        d.dateDecodingStrategy = .iso8601
        return d
    }

    /// One compact JSON line.
    package static func line(_ value: some Encodable) throws -> String {
        String(decoding: try encoder().encode(value), as: UTF8.self)
    }

    /// Reads and decodes a JSON file, naming the file, line and field on failure.
    /// - Throws: `CLIError.usage` (exit 2) for a missing, unreadable or malformed file.
    package static func read<T: Decodable>(
        _ type: T.Type, from path: String, what: String
    ) throws(CLIError) -> T {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .usage("\(path): cannot read \(what): \(error.localizedDescription)")
        }
        return try decode(type, from: data, path: path, what: what)
    }

    /// Decodes JSON bytes, naming `path`, the line and the field on failure.
    package static func decode<T: Decodable>(
        _ type: T.Type, from data: Data, path: String, what: String
    )
        throws(CLIError) -> T
    {
        do {
            return try decoder().decode(type, from: data)
        } catch let error as DecodingError {
            throw .usage("\(path): not a valid \(what): \(describe(error, in: data))")
        } catch {
            throw .usage("\(path): not a valid \(what): \(error)")
        }
    }

    /// A decoding error as "line N: field a.b.c: what went wrong".
    package static func describe(_ error: DecodingError, in data: Data) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
                .joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
        }
        switch error {
        case .keyNotFound(let key, let ctx):
            let at = path(ctx.codingPath + [key])
            return "field \(at) is missing\(lineHint(for: ctx.codingPath, in: data))"
        case .typeMismatch(let type, let ctx):
            return "field \(path(ctx.codingPath)): expected \(type)\(lineHint(for: ctx.codingPath, in: data))"
        case .valueNotFound(let type, let ctx):
            return
                "field \(path(ctx.codingPath)): expected \(type), found null\(lineHint(for: ctx.codingPath, in: data))"
        case .dataCorrupted(let ctx):
            if ctx.codingPath.isEmpty {
                // Foundation puts the offset of a syntax error into the underlying error.
                let underlying = (ctx.underlyingError as NSError?)?.userInfo["NSDebugDescription"] as? String
                let message = underlying ?? ctx.debugDescription
                if let offset = Self.offset(in: message) {
                    return "line \(lineNumber(atOffset: offset, in: data)): \(message)"
                }
                return message
            }
            return
                "field \(path(ctx.codingPath)): \(ctx.debugDescription)\(lineHint(for: ctx.codingPath, in: data))"
        @unknown default:
            return "\(error)"
        }
    }

    private static func offset(in message: String) -> Int? {
        // "… around line 3, column 7." or "… at character 42."
        guard let range = message.range(of: "character ") else { return nil }
        return Int(message[range.upperBound...].prefix(while: \.isNumber))
    }

    private static func lineNumber(atOffset offset: Int, in data: Data) -> Int {
        1 + data.prefix(offset).count(where: { $0 == UInt8(ascii: "\n") })
    }

    /// " (line N)" for the last named key of `codingPath`, found by a plain text search —
    /// good enough to point a person at the right place in a hand-edited file.
    private static func lineHint(for codingPath: [any CodingKey], in data: Data) -> String {
        guard let key = codingPath.last(where: { $0.intValue == nil })?.stringValue,
            let text = String(data: data, encoding: .utf8),
            let range = text.range(of: "\"\(key)\"")
        else { return "" }
        let line = 1 + text[..<range.lowerBound].count(where: { $0 == "\n" })
        return " (line \(line))"
    }
}
