import Arrival
import Foundation
import Speech

/// `--agreement W,FLOOR` (with `--rescore`; measured, not in the product: docs/speech.md,
/// "Measured, not shipped (stop 25)"): the hearings of one utterance by several decoders
/// (the plain one, the sped-up one, a re-hearing) combine into the confidence of the answer
/// they heard: the surest hearing's log-odds plus `weight` times the next surest's, at least
/// `floor` (also when no other decoder heard that answer). Adding a hearing never lowers it.
struct Agreement {
    var weight: Double
    var floor: Double

    /// The combined confidence of `answer` over `hearings`; `nil` when none heard it.
    func confidence(of answer: ArrivalWords, in hearings: [Utterance]) -> Double? {
        let odds = hearings.filter { $0.candidate == answer }.map { Self.logit($0.confidence ?? 1) }
            .sorted(by: >)
        guard let best = odds.first else { return nil }
        let second = odds.count > 1 ? max(odds[1], floor) : floor
        return 1 / (1 + exp(-(best + weight * second)))
    }

    static func logit(_ p: Double) -> Double {
        let c = min(max(p, 1e-12), 1 - 1e-12)
        return log(c / (1 - c))
    }

    /// `utterance` with each hearing's confidence replaced by its answer's combined confidence.
    func applied(to utterance: Utterance) -> Utterance {
        let all = utterance.everyHearing
        func combined(_ u: Utterance) -> Utterance {
            guard let answer = u.candidate, u.confidence != nil else { return u }
            var changed = u
            changed.confidence = confidence(of: answer, in: all)
            return changed
        }
        var changed = combined(utterance)
        changed.hearings = utterance.hearings.map(combined)
        return changed
    }
}
