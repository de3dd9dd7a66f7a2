import Diagnostics
package import Foundation
import Storage

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
            data = try FileDiagnostics.contents(of: path)
        } catch {
            throw .usage("\(path): cannot read \(what): \(error)")
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
        } catch {
            throw .usage("\(path): not a valid \(what): \(JSONDiagnostics.describe(error, in: data))")
        }
    }

    /// A decoding error as "line N: field a.b.c: what went wrong" (see `JSONDiagnostics`).
    package static func describe(_ error: DecodingError, in data: Data) -> String {
        JSONDiagnostics.fault(error, in: data).description
    }
}
