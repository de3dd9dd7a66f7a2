import Arrival
import Foundation
import Speech

/// How well a point tuned on the development split carries to voices and near-miss sentences it
/// was not tuned on, measured on that split alone (`--rescore RUN --cross-validate halves|sentences`):
/// the test split is never needed to see the gap, and nothing is tuned on it.
///
/// `halves`: two folds. The voices, sorted, go alternately to two halves, and so do the
/// near-miss sentences; a fold tunes on one half of each (`Tuning.choose`, the same budgets and
/// guard runs) and is scored on the other half of both: unheard voices saying unheard
/// near-misses. Phrases and unrelated sentences follow their voice.
///
/// `sentences`: one fold per near-miss sentence, tuned on every other observation and scored on
/// that sentence alone, every voice: how often a sentence no tuning heard is acted on.
enum CrossValidation {
    enum Mode: String, CaseIterable {
        case halves, sentences
    }

    /// One fold: the point chosen on its tuning part, its score there and on the held-out part.
    struct Fold {
        var point: OperatingPoint
        var tuned: Tuning.Score
        var heldOut: Tuning.Score
    }

    /// What one fold tunes on and what it holds out, with their descriptions.
    struct Split {
        var tunedOn: String
        var heldOutAs: String
        var tunes: (Tuning.Observation) -> Bool
        var holds: (Tuning.Observation) -> Bool
    }

    /// The sentences split by text: near-misses (and "여기 안이야"), whose wording is what a point
    /// must not have learnt.
    static func splitsBySentence(_ kind: Item.Kind) -> Bool { kind == .nearMiss || kind == .anIya }

    /// The two halves of `observations`' voices and of their near-miss sentences, each sorted and
    /// dealt alternately.
    static func halves(
        _ observations: [Tuning.Observation]
    ) -> (voices: [Set<String>], sentences: [Set<String>]) {
        func deal(_ values: Set<String>) -> [Set<String>] {
            let sorted = values.sorted()
            return [0, 1].map { k in Set(sorted.enumerated().filter { $0.offset % 2 == k }.map(\.element)) }
        }
        return (
            deal(Set(observations.map(\.item.voice))),
            deal(Set(observations.filter { splitsBySentence($0.item.kind) }.map(\.item.text)))
        )
    }

    /// The folds of `mode` over `observations`.
    static func splits(_ mode: Mode, _ observations: [Tuning.Observation]) -> [Split] {
        switch mode {
        case .halves:
            let (voices, sentences) = halves(observations)
            func inHalf(_ k: Int) -> (Tuning.Observation) -> Bool {
                { o in
                    voices[k].contains(o.item.voice)
                        && (!splitsBySentence(o.item.kind) || sentences[k].contains(o.item.text))
                }
            }
            return [0, 1].map { k in
                Split(
                    tunedOn: "\(voices[k].count) voices and near-misses "
                        + sentences[k].sorted().joined(separator: ", "),
                    heldOutAs: "\(voices[1 - k].count) other voices, near-misses "
                        + sentences[1 - k].sorted().joined(separator: ", "),
                    tunes: inHalf(k), holds: inHalf(1 - k))
            }
        case .sentences:
            let sentences = Set(observations.filter { splitsBySentence($0.item.kind) }.map(\.item.text))
                .sorted()
            return sentences.map { sentence in
                let isIt = { (o: Tuning.Observation) in
                    splitsBySentence(o.item.kind) && o.item.text == sentence
                }
                return Split(
                    tunedOn: "everything but \"\(sentence)\"", heldOutAs: "\"\(sentence)\", every voice",
                    tunes: { !isIt($0) }, holds: isIt)
            }
        }
    }

    /// Every fold of `mode`, printing each one's tuning (as `--tune` prints it) and its held-out
    /// figures, then the held-out figures of all folds together.
    static func run(
        _ mode: Mode, _ observations: [Tuning.Observation], start: OperatingPoint, budgets: Tuning.Budgets,
        guards: [(label: String, observations: [Tuning.Observation])]
    ) -> [Fold] {
        var folds: [Fold] = []
        for (k, split) in splits(mode, observations).enumerated() {
            print("\n### fold \(k + 1): tuned on \(split.tunedOn)")
            let tuning = observations.filter(split.tunes)
            let foldGuards = guards.map {
                (label: $0.label, observations: $0.observations.filter(split.tunes))
            }
            let point = Tuning.choose(tuning, start: start, budgets: budgets, guards: foldGuards)
            let heldOut = observations.filter(split.holds)
            let fold = Fold(
                point: point, tuned: Tuning.score(tuning, answer: nil, point: point),
                heldOut: Tuning.score(heldOut, answer: nil, point: point))
            print("held out (\(split.heldOutAs)): " + fold.heldOut.heldOutSummary)
            let acted = actedSentences(heldOut, point: point)
            if !acted.isEmpty {
                print(
                    "held-out near-misses acted on: "
                        + acted.map { "\($0.text) ×\($0.count)" }.joined(separator: ", "))
            }
            folds.append(fold)
        }
        let pooled = folds.map(\.heldOut).reduce(Tuning.Score(), +)
        let tuned = folds.map(\.tuned).reduce(Tuning.Score(), +)
        print(
            "\n### all \(folds.count) folds\n"
                + String(
                    format: "near-misses acted on: %.1f %% where tuned (%d/%d), %.1f %% held out (%d/%d)\n",
                    100 * tuned.nearMissRate, tuned.nearMiss, tuned.nearMisses, 100 * pooled.nearMissRate,
                    pooled.nearMiss, pooled.nearMisses)
                + "held out, all folds: " + pooled.heldOutSummary)
        return folds
    }
}

extension CrossValidation {
    /// The near-miss sentences of `observations` acted on at `point`, most often first (then by
    /// text): which sentences a point did not learn.
    static func actedSentences(
        _ observations: [Tuning.Observation], point: OperatingPoint
    ) -> [(text: String, count: Int)] {
        var counts: [String: Int] = [:]
        for o in observations
        where splitsBySentence(o.item.kind) && !Tuning.outcome(o, point: point).actions.isEmpty {
            counts[o.item.text, default: 0] += 1
        }
        return counts.map { (text: $0.key, count: $0.value) }.sorted {
            ($1.count, $0.text) < ($0.count, $1.text)
        }
    }
}

extension Tuning.Score {
    /// `summary`, or only the near-misses where nothing else was held out (one sentence a fold).
    var heldOutSummary: String {
        guard positives == 0, unrelateds == 0 else { return summary }
        return String(
            format: "near-miss acted %.1f %% (%d/%d; at the first turn %d)", 100 * nearMissRate, nearMiss,
            nearMisses, nearMissFirst)
    }

    /// Two scores' counts together (two folds, or two runs).
    static func + (a: Self, b: Self) -> Self {
        Self(
            hits: a.hits + b.hits, firstHits: a.firstHits + b.firstHits, positives: a.positives + b.positives,
            confusions: a.confusions + b.confusions, nearMiss: a.nearMiss + b.nearMiss,
            nearMisses: a.nearMisses + b.nearMisses, nearMissFirst: a.nearMissFirst + b.nearMissFirst,
            unrelated: a.unrelated + b.unrelated, unrelateds: a.unrelateds + b.unrelateds)
    }
}
