import Arrival
import Foundation
import Speech

/// Chooses the operating point on the development split only: each item of each condition is
/// decoded twice (the walker's first answer and the repeat after "다시 한 번 말해줘", new noise)
/// with the permissive point, then every pair of thresholds is scored from those utterances.
/// Per answer: no confusion, near-misses acted on ≤ 2.5 % and unrelated ≤ 0.5 % (each answer
/// takes half of the 5 % and 1 % budgets), then the most answers acted on within two
/// turns; ties go to the higher thresholds.
enum Tuning {
    struct Observation {
        var condition: Condition
        var item: Item
        var first: [Utterance]
        var second: [Utterance]
    }

    /// Per condition: decoder CPU and audio seconds, and what was heard in the pauses.
    struct ConditionStats {
        var cpuSeconds = 0.0, audioSeconds = 0.0
        var pauses: [Utterance] = []
    }

    static func observe(
        _ items: [Item], conditions: [Condition], model: PhraseModel, options: Options, bank: NoiseBank,
        stats: inout [Condition: ConditionStats]
    ) throws -> [Observation] {
        var policy = options.policy
        policy.operatingPoint = permissive
        var observations: [Observation] = []
        for condition in conditions {
            var random = benchmarkRandom(
                options.seed &* 313 &+ UInt64(Condition.all.firstIndex(of: condition) ?? 0))
            var tally = Tally()
            let order = items.shuffled(using: &random)
            let first = try decodeRecording(
                order, condition: condition, model: model, policy: policy, bank: bank, random: &random,
                tally: &tally)
            // The repeat matters only where the first turn may ask: a phrase whose confidence is
            // below the highest `act` the sweep tries (`repeatBelow`). Elsewhere the first turn
            // decides at every point (acts, or hears no answer), so only those are said again.
            let repeated = order.indices.filter { i in
                first.perItem[i].contains { $0.meaning != nil && ($0.confidence ?? 1) < repeatBelow }
            }
            var second = [[Utterance]](repeating: [], count: order.count)
            if !repeated.isEmpty {
                let again = try decodeRecording(
                    repeated.map { order[$0] }, condition: condition, model: model, policy: policy,
                    bank: bank,
                    random: &random, tally: &tally)
                for (k, i) in repeated.enumerated() { second[i] = again.perItem[k] }
            }
            for (i, item) in order.enumerated() {
                observations.append(
                    Observation(condition: condition, item: item, first: first.perItem[i], second: second[i]))
            }
            stats[condition] = ConditionStats(
                cpuSeconds: tally.cpuSeconds, audioSeconds: tally.audioSeconds, pauses: first.spurious)
            FileHandle.standardError.write(Data("tune: \(condition) decoded\n".utf8))
        }
        return observations
    }

    /// What the dialogue acts on for one observation at `point`.
    static func actions(_ observation: Observation, point: OperatingPoint) -> Set<ArrivalWords> {
        let first = observation.first.map { decide($0, point: point) }
        let acted = first.compactMap { if case .act(let m) = $0 { m } else { nil } }
        if !acted.isEmpty { return Set(acted) }
        let asked = first.compactMap { if case .ask(let m) = $0 { m } else { nil } }
        let second = observation.second.map { decide($0, point: point) }
        return Set(asked.filter { m in second.contains { agrees(m, $0) } })
    }

    struct Score {
        var hits = 0, positives = 0, confusions = 0, nearMiss = 0, nearMisses = 0, unrelated = 0,
            unrelateds = 0
        var recall: Double { Double(hits) / Double(max(positives, 1)) }
        var nearMissRate: Double { Double(nearMiss) / Double(max(nearMisses, 1)) }
        var unrelatedRate: Double { Double(unrelated) / Double(max(unrelateds, 1)) }
    }

    static func score(_ observations: [Observation], answer: ArrivalWords, point: OperatingPoint) -> Score {
        var score = Score()
        for observation in observations {
            let acted = actions(observation, point: point).contains(answer)
            switch observation.item.kind {
            case .phrase:
                if observation.item.expected == answer {
                    score.positives += 1
                    if acted { score.hits += 1 }
                } else if acted {
                    score.confusions += 1
                }
            case .nearMiss, .anIya:
                score.nearMisses += 1
                if acted { score.nearMiss += 1 }
            case .unrelated, .english:
                score.unrelateds += 1
                if acted { score.unrelated += 1 }
            }
        }
        return score
    }

    /// The highest `act` whose "ask" band the observations can score: the repeat is decoded
    /// for items whose first-turn confidence is below it — 1, every item heard as an answer
    /// (0.95 first: with the adapted model's confidences near 1 that left no band to choose).
    static let repeatBelow = 1.0

    static func choose(_ observations: [Observation], start: OperatingPoint) -> OperatingPoint {
        var point = start
        for answer in [ArrivalWords.notHere, .thisIsIt] {
            // Candidate thresholds: the confidences actually observed for this answer (up to
            // 120 quantiles; with the adapted model they crowd towards 1, so a fixed grid
            // would not separate them), and 0.
            let seen = Set(
                observations.flatMap { $0.first + $0.second }.filter { $0.meaning == answer }.compactMap(
                    \.confidence)
            ).sorted()
            let step = max(1, seen.count / 120)
            let grid = [0.0] + stride(from: 0, to: seen.count, by: step).map { seen[$0] }
            var best: (thresholds: OperatingPoint.Thresholds, score: Score)?
            for act in grid {
                // ask == act: no ask band; ask < act only where the repeat was decoded.
                for ask in grid where ask == act || (ask < act && act <= repeatBelow) {
                    var candidate = point
                    let thresholds = OperatingPoint.Thresholds(act: act, ask: ask)
                    if answer == .notHere {
                        candidate.notHere = thresholds
                    } else {
                        candidate.thisIsIt = thresholds
                    }
                    let s = score(observations, answer: answer, point: candidate)
                    guard s.confusions == 0, s.nearMissRate <= 0.025, s.unrelatedRate <= 0.005 else {
                        continue
                    }
                    // Strictly better recall wins; on a tie the later (higher) thresholds win.
                    if best == nil || s.hits >= best!.score.hits { best = (thresholds, s) }
                }
            }
            let chosen = best?.thresholds ?? .init(act: 1, ask: 1)
            if answer == .notHere { point.notHere = chosen } else { point.thisIsIt = chosen }
            if let best {
                print(
                    String(
                        format:
                            "%@: act %.6f ask %.6f — dev two-turn recall %.1f %% (%d/%d), near-miss acted %.1f %%, unrelated %.1f %%, confusions %d",
                        answer.rawValue, chosen.act, chosen.ask, 100 * best.score.recall, best.score.hits,
                        best.score.positives, 100 * best.score.nearMissRate, 100 * best.score.unrelatedRate,
                        best.score.confusions))
            } else {
                print("\(answer.rawValue): no thresholds meet the constraints on the dev split")
            }
        }
        return point
    }

    static func json(_ point: OperatingPoint) -> String {
        func pair(_ t: OperatingPoint.Thresholds) -> String {
            String(format: "{\"act\": %.6f, \"ask\": %.6f}", t.act, t.ask)
        }
        return "{\n  \"notHere\": \(pair(point.notHere)),\n  \"thisIsIt\": \(pair(point.thisIsIt))\n}\n"
    }
}

/// Scores observations (both turns decoded with the permissive point) at `point`: the same
/// decisions the Listener makes at that point, and the dialogue's second turn.
func score(
    _ observations: [Tuning.Observation], point: OperatingPoint, stats: [Condition: Tuning.ConditionStats]
) -> [(Condition, Tally)] {
    var tallies: [Condition: Tally] = [:]
    for observation in observations {
        var tally = tallies[observation.condition] ?? Tally()
        let item = observation.item
        let first = observation.first.map { decide($0, point: point) }
        let actedFirst = first.compactMap { if case .act(let m) = $0 { m } else { nil } }
        let actions = Tuning.actions(observation, point: point)
        if let expected = item.expected {
            tally.positives += 1
            if actedFirst.contains(expected) { tally.firstTurn += 1 }
            if actions.contains(expected) { tally.twoTurns += 1 }
            if actions.contains(where: { $0 != expected }) { tally.confusions += 1 }
            let key = item.perturbation.isEmpty ? "none" : item.perturbation
            let old = tally.byPerturbation[key] ?? (0, 0)
            tally.byPerturbation[key] = (old.hits + (actions.contains(expected) ? 1 : 0), old.total + 1)
        } else {
            tally.negatives[item.kind, default: 0] += 1
            if !actions.isEmpty {
                tally.acted[item.kind, default: 0] += 1
                tally.actedTexts[item.text, default: 0] += 1
            }
        }
        tallies[observation.condition] = tally
    }
    return Condition.all.compactMap { condition in
        guard var tally = tallies[condition] else { return nil }
        let stat = stats[condition] ?? .init()
        tally.cpuSeconds = stat.cpuSeconds
        tally.audioSeconds = stat.audioSeconds
        tally.spurious = stat.pauses.filter { decide($0, point: point) != .ignore }.count
        return (condition, tally)
    }
}
