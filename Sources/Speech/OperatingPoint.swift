package import Arrival
import Foundation

/// Where the filler rule (``Listener/Policy/maxFillersNotHere``) counts the filler syllables
/// and decoy words a decoder heard around an answer.
public enum FillerSpan: String, Sendable, Hashable, Codable {
    /// The decoder's whole utterance: the walker's speech and the background it heard before
    /// and after it (since its last utterance, or its last pause).
    case utterance
    /// Only the walker's speech (the foreground, ``ForegroundDetector``): talk behind the
    /// walker before and after the answer is not held against it, and the answer's phrase must
    /// start within it too. The product's since stop 29 (docs/speech.md, "A phrase that starts
    /// within the speech").
    case speech
}

/// The confidence thresholds of the two answers (`models/operating-point.json`):
/// confidence ≥ `act` acts at once; `ask` ≤ confidence < `act` asks the walker to repeat;
/// below `ask` the utterance is ignored. Chosen on the development split of
/// `Scripts/voice-eval` only, then applied unchanged to its test split.
public struct OperatingPoint: Sendable, Hashable {
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
    /// The decoders of sped-up audio beside the plain one (``Listener/Policy/speeds``) these
    /// thresholds were chosen with: the confidence an utterance gets depends on which decoders
    /// heard it, so the point and its decoders travel in one file (`"speeds"`, optional: none).
    public var speeds: [Double]
    /// The decoders that hear an utterance again, played at these speeds, when no decoder of
    /// the stream heard an answer in it (``Listener/Policy/rehear``; `"rehear"`, optional: none).
    public var rehear: [Double]
    /// The cutoff (Hz) of the high-pass filter in front of the Listener these thresholds were
    /// chosen with (``Listener/Policy/highPass``; `"highPass"`, optional: none).
    public var highPass: Double?
    /// The lead (seconds) of the search gate these thresholds were chosen with
    /// (``Listener/Policy/searchLead``; `"searchLead"`, optional: none, every block searched).
    public var searchLead: Double?
    /// Where the filler rule these thresholds were chosen with counts filler syllables
    /// (``Listener/Policy/fillers``; `"fillers"`, optional: the whole utterance).
    public var fillers: FillerSpan?
    /// Whether the ``rehear`` decoders these thresholds were chosen with normalise an utterance
    /// by its own cepstral mean (``Listener/Policy/rehearOwnMean``; `"rehearOwnMean"`,
    /// optional: no, by the running mean).
    public var rehearOwnMean: Bool
    /// The noise suppression in front of the decoders these thresholds were chosen with, and
    /// the background spread below which it runs (``Listener/Policy/noiseSuppression``;
    /// `"noiseSuppression": {"level": 1, "belowSpread": 3}`, optional: none); never one whose
    /// gate is at 0 (``NoiseSuppression/isOn``), which is none.
    public var noiseSuppression: NoiseSuppression?

    /// The range a search lead may take (seconds): at least the 100 ms the level that opens the
    /// gate is averaged over, at most what the Listener's history keeps to spare.
    public static let searchLeadRange = 0.1...2.0

    /// The range a speed may take: beyond it the audio is no longer speech a model knows.
    public static let speedRange = 0.5...2.0

    /// The thresholds `answer` is judged by.
    package func thresholds(for answer: ArrivalWords) -> Thresholds {
        answer == .notHere ? notHere : thisIsIt
    }

    /// Speed factors as logs and reports print them: "×1.25, ×0.82".
    public static func factors(_ speeds: [Double]) -> String {
        speeds.map { "×\($0)" }.joined(separator: ", ")
    }

    /// The decoders and front end the thresholds go with, in words, as the daemon's log, the
    /// model check and the benchmark print them: "plain + sped up ×1.25; heard again ×0.82
    /// when not acted on at once; high-passed at 100.0 Hz first; …".
    public var decoderSummary: String {
        "plain"
            + (speeds.isEmpty ? "" : " + sped up " + Self.factors(speeds))
            + (rehear.isEmpty
                ? ""
                : "; heard again " + Self.factors(rehear) + " when not acted on at once"
                    + (rehearOwnMean ? ", by its own cepstral mean" : ""))
            + (highPass.flatMap { $0 > 0 ? "; high-passed at \($0) Hz first" : nil } ?? "")
            + (searchLead.flatMap {
                $0 > 0 ? "; searched only while someone is near, from \($0) s before" : nil
            }
                ?? "")
            + (fillers == .speech ? "; fillers counted within the walker's speech" : "")
            + (noiseSuppression.map { "; " + $0.summary } ?? "")
    }

    /// These thresholds with `other`'s decoders and front end (speeds, re-hearing, high-pass,
    /// search lead, filler span, noise suppression): a point tuned with those decoders is
    /// written with them.
    public func withDecoders(of other: OperatingPoint) -> OperatingPoint {
        OperatingPoint(
            notHere: notHere, thisIsIt: thisIsIt, speeds: other.speeds, rehear: other.rehear,
            highPass: other.highPass, searchLead: other.searchLead, fillers: other.fillers,
            rehearOwnMean: other.rehearOwnMean, noiseSuppression: other.noiseSuppression)
    }

    public init(
        notHere: Thresholds, thisIsIt: Thresholds, speeds: [Double] = [], rehear: [Double] = [],
        highPass: Double? = nil, searchLead: Double? = nil, fillers: FillerSpan? = nil,
        rehearOwnMean: Bool = false, noiseSuppression: NoiseSuppression? = nil
    ) {
        self.notHere = notHere
        self.thisIsIt = thisIsIt
        self.speeds = speeds
        self.rehear = rehear
        self.highPass = highPass
        self.searchLead = searchLead
        self.fillers = fillers
        self.rehearOwnMean = rehearOwnMean
        // A gate that never opens is none: one place, so no reader of a point checks it again.
        self.noiseSuppression = noiseSuppression.flatMap { $0.isOn ? $0 : nil }
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
        let file: File
        let keys: [String: Ignored]
        do {
            keys = try JSONDecoder().decode([String: Ignored].self, from: data)
            file = try JSONDecoder().decode(File.self, from: data)
        } catch let DecodingError.typeMismatch(_, context) {
            let field = String(
                context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
                    .drop { (c: Character) in c == "." })
            throw .model(
                field.isEmpty
                    ? "\(path): not a JSON object"
                    : field.hasPrefix("noiseSuppression")
                        ? "\(path): noiseSuppression is not an object of a level (0 to 3) and a belowSpread (dB)"
                        : field == "rehearOwnMean"
                            ? "\(path): rehearOwnMean is not true or false"
                            : field.hasPrefix("speeds") || field.hasPrefix("rehear")
                                ? "\(path): \(field) is not a number or not a list of numbers"
                                : field == "highPass" || field == "searchLead"
                                    ? "\(path): \(field) is not a number"
                                    : field == "fillers"
                                        ? "\(path): fillers is not \"speech\" or \"utterance\""
                                        : "\(path): \(field) is not a number or not an object")
        } catch DecodingError.keyNotFound(let key, let context)
            where context.codingPath.first?.stringValue == "noiseSuppression"
        {
            throw .model("\(path): noiseSuppression.\(key.stringValue) missing")
        } catch DecodingError.dataCorrupted(let context)
            where context.codingPath.last?.stringValue == "fillers"
        {
            throw .model("\(path): fillers is not \"speech\" or \"utterance\"")
        } catch {
            throw .model("\(path): not valid JSON (\(error))")
        }
        func thresholds(_ key: String, _ entry: [String: Double]?) throws(SpeechError) -> Thresholds {
            guard let entry else { throw .model("\(path): \"\(key)\" missing") }
            for field in entry.keys where field != "act" && field != "ask" {
                throw .model("\(path): unknown key \(key).\(field) (expected act, ask)")
            }
            guard let act = entry["act"], act.isFinite else { throw .model("\(path): \(key).act missing") }
            guard let ask = entry["ask"], ask.isFinite else { throw .model("\(path): \(key).ask missing") }
            guard ask <= act else { throw .model("\(path): \(key).ask \(ask) is above \(key).act \(act)") }
            return Thresholds(act: act, ask: ask)
        }
        for key in keys.keys.sorted()
        where ![
            "notHere", "thisIsIt", "speeds", "rehear", "highPass", "searchLead", "fillers", "rehearOwnMean",
            "noiseSuppression",
        ]
        .contains(key) {
            throw .model(
                "\(path): unknown key \"\(key)\" (expected notHere, thisIsIt, speeds, rehear, highPass, searchLead, fillers, rehearOwnMean, noiseSuppression)"
            )
        }
        if let lead = file.searchLead, lead != 0, !searchLeadRange.contains(lead) {
            throw .model(
                "\(path): searchLead \(lead) is not 0 (none) or a lead from \(searchLeadRange.lowerBound) to \(searchLeadRange.upperBound) s"
            )
        }
        if let cutoff = file.highPass, !HighPass.cutoffRange.contains(cutoff) {
            throw .model(
                "\(path): highPass \(cutoff) is not a cutoff from \(Int(HighPass.cutoffRange.lowerBound)) to \(Int(HighPass.cutoffRange.upperBound)) Hz"
            )
        }
        for (name, list) in [("speeds", file.speeds ?? []), ("rehear", file.rehear ?? [])] {
            for (index, speed) in list.enumerated() where !speedRange.contains(speed) {
                throw .model(
                    "\(path): \(name)[\(index)] \(speed) is not between \(speedRange.lowerBound) and \(speedRange.upperBound)"
                )
            }
        }
        if let suppression = file.noiseSuppression,
            let problem = NoiseSuppression.problem(
                level: suppression.level, belowSpread: suppression.belowSpread)
        {
            throw .model("\(path): noiseSuppression.\(problem)")
        }
        return OperatingPoint(
            notHere: try thresholds("notHere", file.notHere),
            thisIsIt: try thresholds("thisIsIt", file.thisIsIt),
            speeds: file.speeds ?? [], rehear: file.rehear ?? [], highPass: file.highPass,
            searchLead: file.searchLead, fillers: file.fillers, rehearOwnMean: file.rehearOwnMean ?? false,
            noiseSuppression: file.noiseSuppression)
    }

    /// The file's shape; the thresholds are checked by hand for messages naming the field.
    private struct File: Decodable {
        var notHere: [String: Double]?
        var thisIsIt: [String: Double]?
        var speeds: [Double]?
        var rehear: [Double]?
        var highPass: Double?
        var searchLead: Double?
        var fillers: FillerSpan?
        var rehearOwnMean: Bool?
        var noiseSuppression: NoiseSuppression?
    }

    /// Any JSON value, read only for the object's keys.
    private struct Ignored: Decodable {
        init(from decoder: any Swift.Decoder) throws {}
    }
}
