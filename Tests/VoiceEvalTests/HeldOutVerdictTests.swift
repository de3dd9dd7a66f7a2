import Testing

@testable import VoiceEval

/// `--check-model --held-out`'s verdict (``ModelCheck/heldOutVerdict(installed:candidate:)``),
/// on the counts ``ModelCheck/heldOutSpeakers(_:folders:candidate:installed:)`` makes of each
/// person's recordings: decoding real recordings into a given set of counts would need a model
/// that hears one person worse and another better, which no test can make to order.
@Suite("The held-out check's verdict")
struct HeldOutVerdictTests {
    typealias Heard = ModelCheck.Heard

    /// One person heard worse fails the check, even when another heard better makes the totals
    /// no worse (before, only the totals were compared, and it passed).
    @Test func onePersonHeardWorseFailsThoughTheTotalsPass() {
        let installed = ["mom": Heard(answers: 10, nearMisses: 0), "uncle": Heard(answers: 6, nearMisses: 1)]
        let candidate = ["mom": Heard(answers: 7, nearMisses: 0), "uncle": Heard(answers: 10, nearMisses: 0)]
        #expect(!Heard.total(candidate).isWorse(than: Heard.total(installed)))
        let verdict = ModelCheck.heldOutVerdict(installed: installed, candidate: candidate)
        #expect(!verdict.passed)
        #expect(verdict.heardWorse == ["mom"])
    }

    /// More of a person's near-misses taken for an answer is heard worse, too.
    @Test func aPersonsNearMissTakenFailsThoughTheTotalsPass() {
        let installed = ["mom": Heard(answers: 10, nearMisses: 0), "uncle": Heard(answers: 8, nearMisses: 2)]
        let candidate = ["mom": Heard(answers: 10, nearMisses: 1), "uncle": Heard(answers: 8, nearMisses: 0)]
        let verdict = ModelCheck.heldOutVerdict(installed: installed, candidate: candidate)
        #expect(!verdict.passed)
        #expect(verdict.heardWorse == ["mom"])
    }

    /// Everyone heard the same or better passes; worse totals fail.
    @Test func everyoneNoWorsePassesAndWorseTotalsFail() {
        let installed = ["mom": Heard(answers: 10, nearMisses: 1), "uncle": Heard(answers: 6, nearMisses: 0)]
        let better = ["mom": Heard(answers: 10, nearMisses: 0), "uncle": Heard(answers: 9, nearMisses: 0)]
        let passed = ModelCheck.heldOutVerdict(installed: installed, candidate: better)
        #expect(passed.passed && passed.heardWorse.isEmpty)
        #expect(ModelCheck.heldOutVerdict(installed: installed, candidate: installed).passed)
        let worse = ["mom": Heard(answers: 9, nearMisses: 1), "uncle": Heard(answers: 5, nearMisses: 0)]
        let failed = ModelCheck.heldOutVerdict(installed: installed, candidate: worse)
        #expect(!failed.passed && failed.heardWorse == ["mom", "uncle"])
    }
}
