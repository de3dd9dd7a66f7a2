import Arrival
import Foundation
import Speech

/// How well a point tuned on the development split carries to voices and near-miss sentences it
/// was not tuned on, measured on that split alone (`--rescore RUN --cross-validate`): the test
/// split is never needed to see the gap, and nothing is tuned on it.
///
/// Two folds. The voices, sorted, go alternately to two halves, and so do the near-miss
/// sentences; a fold tunes on one half of each (`Tuning.choose`, the same budgets and guard
/// runs) and is scored on the other half of both: unheard voices saying unheard near-misses.
/// Phrases and unrelated sentences follow their voice.
enum CrossValidation {
    /// One fold: the point chosen on its tuning half, its score there and on the held-out half.
    struct Fold {
        var point: OperatingPoint
        var tuned: Tuning.Score
        var heldOut: Tuning.Score
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

    /// The observations of `voices` whose sentence, where it is split by sentence, is in `sentences`.
    static func part(
        _ observations: [Tuning.Observation], voices: Set<String>, sentences: Set<String>
    ) -> [Tuning.Observation] {
        observations.filter {
            voices.contains($0.item.voice)
                && (!splitsBySentence($0.item.kind) || sentences.contains($0.item.text))
        }
    }

    /// Both folds, printing each one's tuning (as `--tune` prints it) and its held-out figures.
    static func run(
        _ observations: [Tuning.Observation], start: OperatingPoint, budgets: Tuning.Budgets,
        guards: [(label: String, observations: [Tuning.Observation])]
    ) -> [Fold] {
        let (voices, sentences) = halves(observations)
        var folds: [Fold] = []
        for k in [0, 1] {
            let held = 1 - k
            print(
                "\n### fold \(k + 1): tuned on \(voices[k].count) voices and near-misses "
                    + sentences[k].sorted().joined(separator: ", "))
            let tuning = part(observations, voices: voices[k], sentences: sentences[k])
            let foldGuards = guards.map {
                (
                    label: $0.label,
                    observations: part($0.observations, voices: voices[k], sentences: sentences[k])
                )
            }
            let point = Tuning.choose(tuning, start: start, budgets: budgets, guards: foldGuards)
            let heldOut = part(observations, voices: voices[held], sentences: sentences[held])
            let fold = Fold(
                point: point, tuned: Tuning.score(tuning, answer: nil, point: point),
                heldOut: Tuning.score(heldOut, answer: nil, point: point))
            print(
                "held out (\(voices[held].count) other voices, near-misses "
                    + sentences[held].sorted().joined(separator: ", ") + "): " + fold.heldOut.summary)
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
            "\n### both folds\n"
                + String(
                    format: "near-misses acted on: %.1f %% where tuned (%d/%d), %.1f %% held out (%d/%d)\n",
                    100 * tuned.nearMissRate, tuned.nearMiss, tuned.nearMisses, 100 * pooled.nearMissRate,
                    pooled.nearMiss, pooled.nearMisses)
                + "held out, both folds: " + pooled.summary)
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
    /// Two scores' counts together (two folds, or two runs).
    static func + (a: Self, b: Self) -> Self {
        Self(
            hits: a.hits + b.hits, firstHits: a.firstHits + b.firstHits, positives: a.positives + b.positives,
            confusions: a.confusions + b.confusions, nearMiss: a.nearMiss + b.nearMiss,
            nearMisses: a.nearMisses + b.nearMisses, nearMissFirst: a.nearMissFirst + b.nearMissFirst,
            unrelated: a.unrelated + b.unrelated, unrelateds: a.unrelateds + b.unrelateds)
    }
}
