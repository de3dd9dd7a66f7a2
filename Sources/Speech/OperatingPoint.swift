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
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw .model("\(path): not a JSON object")
        }
        func thresholds(_ key: String) throws(SpeechError) -> Thresholds {
            guard let entry = object[key] as? [String: Any] else {
                throw .model("\(path): \"\(key)\" missing or not an object")
            }
            var values: [String: Double] = [:]
            for field in ["act", "ask"] {
                guard let number = entry[field] as? NSNumber, !(entry[field] is Bool),
                    number.doubleValue.isFinite
                else {
                    throw .model(
                        "\(path): \(key).\(field) missing or not a number (\(entry[field] ?? "absent"))")
                }
                values[field] = number.doubleValue
            }
            let (act, ask) = (values["act"]!, values["ask"]!)
            guard ask <= act else { throw .model("\(path): \(key).ask \(ask) is above \(key).act \(act)") }
            return Thresholds(act: act, ask: ask)
        }
        for key in object.keys where key != "notHere" && key != "thisIsIt" {
            throw .model("\(path): unknown key \"\(key)\" (expected notHere, thisIsIt)")
        }
        return OperatingPoint(notHere: try thresholds("notHere"), thisIsIt: try thresholds("thisIsIt"))
    }
}
