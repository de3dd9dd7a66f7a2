import Foundation

/// Any JSON value, Sendable, for the control protocol's open-ended objects and the config
/// file's keys (each checked by name before use).
package enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try Self.number(in: container) {
            self = .number(value)
        } else if let value = try Self.string(in: container) {
            self = .string(value)
        } else if var array = try? decoder.unkeyedContainer() {
            // Element by element, so an element's own error (1e400, a lone surrogate) is said
            // with its place (before, swallowed here and reported as "expected an object").
            var values: [JSONValue] = []
            while !array.isAtEnd { values.append(try array.decode(JSONValue.self)) }
            self = .array(values)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// The number `container` holds; nil when it holds no number. A number that is there but
    /// does not fit a Double (`1e400`) is that error, not "expected an object" from the last
    /// type tried.
    private static func number(in container: any SingleValueDecodingContainer) throws -> Double? {
        try scalar(Double.self, in: container) { detail in
            // Foundation's parser error for the number itself, e.g.
            // numberIsNotRepresentableInSwift(parsed: "1e400").
            let text = detail.split(separator: "\"").dropFirst().first.map(String.init)
            guard let text, let value = Double(text) else { return "the number cannot be read (\(detail))" }
            return value.isInfinite
                ? "the number \(text) is too large (at most ±\(Double.greatestFiniteMagnitude))"
                : "the number \(text) is too close to 0 to be held (at least ±\(Double.leastNormalMagnitude))"
        }
    }

    /// The string `container` holds; nil when it holds no string. A string that is there but
    /// cannot be read (a lone UTF-16 surrogate, `"\\ud800"`) is that error, not "expected an
    /// object" from the last type tried.
    private static func string(in container: any SingleValueDecodingContainer) throws -> String? {
        try scalar(String.self, in: container) { detail in
            // Foundation's parser error for the string itself, e.g.
            // expectedLowSurrogateUTF8SequenceAfterHighSurrogate(location: …).
            detail.localizedCaseInsensitiveContains("surrogate")
                ? "a \\u escape is half of a UTF-16 surrogate pair (a lone surrogate), not a character"
                : "the string cannot be read (\(detail))"
        }
    }

    /// The `type` value `container` holds; nil when it holds another kind of value (a
    /// `DecodingError`). Any other error is the parser's about this very value: rethrown as
    /// `dataCorrupted` at its place, in the words `reason` makes of the parser's own.
    private static func scalar<T: Decodable>(
        _ type: T.Type, in container: any SingleValueDecodingContainer, reason: (String) -> String
    ) throws -> T? {
        do {
            return try container.decode(type)
        } catch is DecodingError {
            return nil
        } catch {
            throw DecodingError.dataCorrupted(
                .init(codingPath: container.codingPath, debugDescription: reason(String(describing: error))))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let v): try container.encode(v)
        case .number(let v):
            // Whole numbers print without ".0" so ports and counts read naturally.
            if v.rounded() == v, abs(v) < 1e15 {
                try container.encode(Int64(v))
            } else {
                try container.encode(v)
            }
        case .string(let v): try container.encode(v)
        case .array(let v): try container.encode(v)
        case .object(let v): try container.encode(v)
        }
    }

    /// The value as JSON text, keys sorted.
    package var text: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? String(decoding: encoder.encode(self), as: UTF8.self)) ?? "null"
    }

    /// Any Encodable value as a JSONValue (via its JSON text), e.g. a Door or a Plan.
    package static func from(_ value: some Encodable) -> JSONValue {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        guard let data = try? encoder.encode(value),
            let decoded = try? JSONDecoder().decode(JSONValue.self, from: data)
        else { return .null }
        return decoded
    }

    /// Decodes this value as `T` (e.g. a Destination from a request's field).
    package func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(type, from: Data(text.utf8))
    }

    package var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    package var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    package var numberValue: Double? { if case .number(let n) = self { n } else { nil } }
    package var objectValue: [String: JSONValue]? { if case .object(let o) = self { o } else { nil } }

    /// A short name of the value's kind, for messages ("a string", "a number").
    package var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
