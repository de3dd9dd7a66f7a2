import Arrival
import Foundation
import Speech

/// Decoded observations on disk (`--save FILE`), so the scoring and the tuning can be redone
/// at any operating point without decoding again (`--rescore FILE`). Confidences are kept at
/// full precision (the Utterance JSON rounds them to three decimals).
struct SavedRun: Codable {
    struct Heard: Codable {
        var start: Double, end: Double
        var heard: String
        var meaning: ArrivalWords?
        var confidence: Double?
        var sure: Bool
        /// The scores behind the confidence (runs saved before the phone loop have none).
        var evidence: ConfidenceEvidence?
        /// Every decoder's hearing (``Utterance/hearings``) when more than one heard it; `nil`
        /// for one, and in runs saved before 2 Dec (they kept only the chosen hearing).
        var hearings: [Heard]?
        /// `true` for a re-hearing (``Utterance/reheard``); absent for the stream's hearings,
        /// and in runs saved before 2 Dec, stop 25 (their re-hearings count as the stream's).
        var reheard: Bool?

        init(_ u: Utterance) {
            (start, end, heard, meaning, confidence, sure, evidence) = (
                u.start, u.end, u.heard, u.meaning, u.confidence, u.sure, u.evidence
            )
            hearings = u.hearings.isEmpty ? nil : u.hearings.map(Heard.init)
            reheard = u.reheard ? true : nil
        }

        var utterance: Utterance {
            var u = Utterance(
                start: start, end: end, heard: heard, meaning: meaning, confidence: confidence, sure: sure)
            u.evidence = evidence
            // Saved runs are decoded at the permissive point: the meaning is the answer before the
            // thresholds, which `Utterance.judged(at:)` judges again.
            u.candidate = meaning
            u.hearings = hearings?.map(\.utterance) ?? []
            u.reheard = reheard ?? false
            return u
        }
    }

    struct Observation: Codable {
        var condition: String
        var kind: String
        var text: String
        var expected: ArrivalWords?
        var voice: String
        var perturbation: String
        var first: [Heard]
        var second: [Heard]
    }

    struct Stats: Codable {
        var condition: String
        var cpuSeconds: Double, audioSeconds: Double
        var pauses: [Heard]
    }

    var label: String
    /// The speeds of the decoders beside the plain one (``Listener/speeds``): a point tuned on
    /// the run is written with them. `nil` in runs saved before they were recorded.
    var speeds: [Double]?
    /// The speeds of the decoders that hear an utterance again (``Listener/rehear``). `nil` in
    /// runs saved before they existed.
    var rehear: [Double]?
    /// The cutoff of the high-pass filter in front of the Listener (``Listener/Policy/highPass``);
    /// `nil` for none, and in runs saved before it existed.
    var highPass: Double?
    /// The search gate's lead (``Listener/Policy/searchLead``); `nil` for none, and in runs
    /// saved before it existed.
    var searchLead: Double?
    /// Where the filler rule counted (``Listener/Policy/fillers``); `nil` for the whole
    /// utterance, and in runs saved before it existed.
    var fillers: FillerSpan?
    /// Whether the decoders that hear again used an utterance's own cepstral mean
    /// (``Listener/Policy/rehearOwnMean``); `nil` for no, and in runs saved before it existed.
    var rehearOwnMean: Bool?
    /// The noise suppression in front of the decoders and its gate
    /// (``Listener/Policy/noiseSuppression``); `nil` for none, and in runs saved before it existed.
    var noiseSuppression: NoiseSuppression?
    var observations: [Observation]
    var stats: [Stats]

    /// The run's decoders and front end, on placeholder thresholds (a point tuned on the run
    /// takes them: ``OperatingPoint/withDecoders(of:)``).
    var decoders: OperatingPoint {
        OperatingPoint(
            notHere: OperatingPoint.placeholder.notHere, thisIsIt: OperatingPoint.placeholder.thisIsIt,
            speeds: speeds ?? [], rehear: rehear ?? [], highPass: highPass, searchLead: searchLead,
            fillers: fillers, rehearOwnMean: rehearOwnMean ?? false, noiseSuppression: noiseSuppression)
    }

    /// A run decoded with `decoders` (their thresholds are not kept: a run is decoded at the
    /// permissive point).
    init(
        label: String, decoders: OperatingPoint, observations: [Tuning.Observation],
        stats: [Condition: Tuning.ConditionStats]
    ) {
        self.label = label
        self.speeds = decoders.speeds
        self.rehear = decoders.rehear
        self.highPass = decoders.highPass
        self.searchLead = decoders.searchLead
        self.fillers = decoders.fillers == .speech ? .speech : nil
        self.rehearOwnMean = decoders.rehearOwnMean ? true : nil
        self.noiseSuppression = decoders.noiseSuppression
        self.observations = observations.map { o in
            Observation(
                condition: o.condition.name, kind: o.item.kind.rawValue, text: o.item.text,
                expected: o.item.expected,
                voice: o.item.voice, perturbation: o.item.perturbation, first: o.first.map(Heard.init),
                second: o.second.map(Heard.init))
        }
        self.stats = stats.map {
            Stats(
                condition: $0.key.name, cpuSeconds: $0.value.cpuSeconds, audioSeconds: $0.value.audioSeconds,
                pauses: $0.value.pauses.map(Heard.init))
        }
    }

    func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(self).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    static func read(_ path: String) throws -> SavedRun {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw BadInput("\(path): not readable")
        }
        do { return try JSONDecoder().decode(SavedRun.self, from: data) } catch {
            throw BadInput("\(path): not a saved voice-eval run (\(error))")
        }
    }

    /// Back to the in-memory form (items without audio), each confidence recomputed from the
    /// saved evidence as `feature` when one is given (`--confidence`; `babble`, `--babble-shift`,
    /// for `perFrameInBabble`, else the product's); `path` names the file in errors.
    func restored(
        confidence feature: ConfidenceEvidence.Feature?, babble: BabbleShift? = nil, path: String
    ) throws
        -> (observations: [Tuning.Observation], stats: [Condition: Tuning.ConditionStats])
    {
        let (observations, stats) = try restored()
        guard let feature else { return (observations, stats) }
        func carries(_ heard: [Utterance]) -> Bool {
            heard.contains { $0.evidence?.value(feature) != nil || carries($0.hearings) }
        }
        let carriesTheScore = observations.contains { carries($0.first) || carries($0.second) }
        func recomputed(_ heard: [Utterance]) throws -> [Utterance] {
            try heard.map { u in
                var changed = u
                changed.hearings = try recomputed(u.hearings)
                guard u.confidence != nil else { return changed }
                guard let evidence = u.evidence else {
                    throw BadInput(
                        "\(path): an utterance (\(u.heard), \(u.start) s) has no scores saved (a run saved before the phone loop)"
                    )
                }
                // A score the run was decoded without would be a confidence of 0 everywhere:
                // every answer silently lost. One utterance may lack it where the live Listener
                // had none either (the margin of a hearing the filler rule refused, or one the
                // rescorer found no path for): a confidence of 0 there, as live.
                guard evidence.value(feature) != nil || carriesTheScore else {
                    let flag =
                        feature == .phraseRatio || feature == .utteranceRatio
                        ? "--phone-loop" : "--neighbour-margin"
                    throw BadInput(
                        "\(path): an utterance (\(u.heard), \(u.start) s) has no score for --confidence \(feature.rawValue) saved, nor has any other (decode the run with \(flag))"
                    )
                }
                changed.confidence = Listener.confidence(
                    of: evidence, feature: feature, babble: babble ?? .product)
                return changed
            }
        }
        return (
            try observations.map { o in
                var changed = o
                changed.first = try recomputed(o.first)
                changed.second = try recomputed(o.second)
                return changed
            }, stats
        )
    }

    /// Back to the in-memory form (items without audio).
    func restored() throws -> (observations: [Tuning.Observation], stats: [Condition: Tuning.ConditionStats])
    {
        func condition(_ name: String) throws -> Condition {
            guard let c = Condition(name: name) else {
                throw BadInput("saved run: unknown condition \(name)")
            }
            return c
        }
        let observations = try self.observations.map { o in
            guard let kind = Item.Kind(rawValue: o.kind) else {
                throw BadInput("saved run: unknown kind \(o.kind)")
            }
            return Tuning.Observation(
                condition: try condition(o.condition),
                item: Item(
                    kind: kind, text: o.text, expected: o.expected, voice: o.voice,
                    perturbation: o.perturbation,
                    audio: []),
                first: o.first.map(\.utterance), second: o.second.map(\.utterance))
        }
        var stats: [Condition: Tuning.ConditionStats] = [:]
        for s in self.stats {
            stats[try condition(s.condition)] = Tuning.ConditionStats(
                cpuSeconds: s.cpuSeconds, audioSeconds: s.audioSeconds, pauses: s.pauses.map(\.utterance))
        }
        return (observations, stats)
    }
}
