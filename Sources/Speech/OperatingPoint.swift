import Foundation

/// The confidence thresholds of the two answers (`models/operating-point.json`):
/// confidence ≥ `act` acts at once; `ask` ≤ confidence < `act` asks the walker to repeat;
/// below `ask` the utterance is ignored. Chosen on the development split of
/// `Scripts/voice-eval` only, then applied unchanged to its test split.
public struct OperatingPoint: Sendable, Hashable, Codable {
    /// Thresholds of one answer.
    public struct Thresholds: Sendable, Hashable, Codable {
        /// At or above: act at once.
        public var act: Double
        /// At or above (and below `act`): ask to repeat.
        public var ask: Double

        public init(act: Double, ask: Double) {
            self.act = act
            self.ask = ask
        }
    }

    /// For "여기 아니야" and its variants.
    public var notHere: Thresholds
    /// For "여기가 입구야" and its variants.
    public var thisIsIt: Thresholds

    public init(notHere: Thresholds, thisIsIt: Thresholds) {
        self.notHere = notHere
        self.thisIsIt = thisIsIt
    }

    /// Used when the models directory has no `operating-point.json`.
    public static let placeholder = OperatingPoint(
        notHere: Thresholds(act: 0.5, ask: 0.3), thisIsIt: Thresholds(act: 0.6, ask: 0.4))

    /// Reads and checks `path`.
    /// - Throws: `SpeechError.model` naming the file and the missing or bad field.
    public static func load(path: String) throws(SpeechError) -> OperatingPoint {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .model("\(path) not readable")
        }
        // JSONDecoder, not JSONSerialization: on Linux the latter's 0 and 1 are also Bools.
        let object: [String: [String: Double]]
        do { object = try JSONDecoder().decode([String: [String: Double]].self, from: data) } catch let
            DecodingError.typeMismatch(_, context)
        {
            let field = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw .model(
                field.isEmpty
                    ? "\(path): not a JSON object of objects"
                    : "\(path): \(field) is not a number or not an object")
        } catch {
            throw .model("\(path): not valid JSON (\(error))")
        }
        func thresholds(_ key: String) throws(SpeechError) -> Thresholds {
            guard let entry = object[key] else { throw .model("\(path): \"\(key)\" missing") }
            for field in entry.keys where field != "act" && field != "ask" {
                throw .model("\(path): unknown key \(key).\(field) (expected act, ask)")
            }
            guard let act = entry["act"], act.isFinite else { throw .model("\(path): \(key).act missing") }
            guard let ask = entry["ask"], ask.isFinite else { throw .model("\(path): \(key).ask missing") }
            guard ask <= act else { throw .model("\(path): \(key).ask \(ask) is above \(key).act \(act)") }
            return Thresholds(act: act, ask: ask)
        }
        for key in object.keys where key != "notHere" && key != "thisIsIt" {
            throw .model("\(path): unknown key \"\(key)\" (expected notHere, thisIsIt)")
        }
        return OperatingPoint(notHere: try thresholds("notHere"), thisIsIt: try thresholds("thisIsIt"))
    }
}
