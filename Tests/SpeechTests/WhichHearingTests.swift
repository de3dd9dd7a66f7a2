import Arrival
import Testing

@testable import Speech

/// Which of the decoders' hearings of one utterance the Listener keeps (``Listener/better(_:_:)``).
/// The benchmark decodes with a point that lets every answer through and judges the kept
/// hearing at the operating point afterwards, so the hearing kept must not depend on the
/// thresholds wherever the decision cannot: a rejected utterance reports the same text and
/// confidence at any point (`ConfidenceTests.thresholdsDecide_confidenceStays` on audio).
@Suite struct WhichHearingTests {
    /// A hearing of `candidate` at `confidence`, judged at a point whose `ask` is `ask`.
    func hearing(_ heard: String, _ candidate: ArrivalWords?, _ confidence: Double?, ask: Double) -> Utterance
    {
        let meaning = confidence.map { $0 >= ask } ?? true ? candidate : nil
        var u = Utterance(
            start: 1, end: 2, heard: heard, meaning: meaning, confidence: confidence, sure: false)
        u.candidate = candidate
        return u
    }

    /// The plain decoder heard "여기 아니야" at 0.95 and the sped-up one at 0.97: with every
    /// answer let through the sped-up one is kept, so a strict point (neither means anything)
    /// keeps it too. Before, the strict point kept the plain one and reported 0.95.
    @Test(arguments: [0.0, 0.96, 1.0])
    func theSameHearingAtAnyPoint(ask: Double) {
        let plain = hearing("여기 아니야 …", .notHere, 0.95, ask: ask)
        let spedUp = hearing("여기 아니야", .notHere, 0.97, ask: ask)
        let kept = Listener.better(plain, spedUp)
        #expect(kept?.heard == "여기 아니야" && kept?.confidence == 0.97)
        #expect((kept?.meaning != nil) == (ask <= 0.97))
    }

    /// A hearing with a meaning at the point wins over one without, whatever their confidences
    /// (the decision is the product's, unchanged); two with a meaning, the surer.
    @Test func aMeaningFirstThenTheSurer() {
        let asked = hearing("여기 아니야", .notHere, 0.90, ask: 0.9)
        let below = hearing("여기 아니야 …", .notHere, 0.85, ask: 0.9)
        #expect(Listener.better(below, asked)?.confidence == 0.90)
        #expect(Listener.better(asked, below)?.confidence == 0.90)
        let surer = hearing("여기 아니야", .notHere, 0.99, ask: 0.9)
        #expect(Listener.better(asked, surer)?.confidence == 0.99)
        #expect(Listener.better(surer, asked)?.confidence == 0.99)
    }

    /// Decoys and fillers only, or nothing: the plain decoder's hearing, or the one that heard
    /// an answer (below `ask`) over one that heard none.
    @Test func noAnswerKeepsThePlainHearing() {
        let decoy = hearing("[거기_아니야]", nil, nil, ask: 0.9)
        let filler = hearing("…", nil, nil, ask: 0.9)
        #expect(Listener.better(decoy, filler)?.heard == "[거기_아니야]")
        #expect(Listener.better(nil, filler) == nil)
        let rejected = hearing("여기 아니야", .notHere, 0.5, ask: 0.9)
        #expect(Listener.better(decoy, rejected)?.heard == "여기 아니야")
        #expect(Listener.better(nil, rejected)?.heard == "여기 아니야")
        #expect(Listener.better(rejected, decoy)?.heard == "여기 아니야")
    }

    /// Every decoder's hearing is kept beside the chosen one (``Utterance/hearings``), so the
    /// benchmark can choose again at another point as the Listener would: the demo's two
    /// answers are each heard by the plain and the sped-up decoder, and the one kept is the
    /// surer of the two.
    @Test func everyDecodersHearingIsKept() throws {
        let model = try phraseModel()
        try #require(
            model.operatingPoint.speeds == [1.25], "the shipped model decodes at 1.25× beside the plain speed"
        )
        let open = OperatingPoint(notHere: .init(act: 0, ask: 0), thisIsIt: .init(act: 0, ask: 0))
        let answers = try Listener.decode(
            wav: ConcurrentDecodeTests.answers, model: model, policy: Listener.Policy(operatingPoint: open)
        ).filter { $0.meaning != nil }
        try #require(answers.count == 2, "\(answers)")
        for answer in answers {
            #expect(answer.hearings.count == 2, "\(answer.hearings)")
            let surest = answer.hearings.max { ($0.confidence ?? 1) < ($1.confidence ?? 1) }
            #expect(
                answer.confidence == surest?.confidence && answer.heard == surest?.heard, "\(answer.hearings)"
            )
            #expect(answer.hearings.allSatisfy { $0.hearings.isEmpty })
        }
    }

    /// An answer that does not act at once is heard again (the committed model's
    /// ``Listener/Policy/rehear``, 0.82×), its re-hearing kept beside the stream's hearings and
    /// its meaning the same; one that acts at once is not (no CPU, no wait after the pause) —
    /// unless the benchmark asks for it (``Listener/rehearsSureAnswers``), to judge at another
    /// point later.
    @Test func onlyAnAnswerThatWaitsIsHeardAgain() throws {
        let model = try phraseModel()
        try #require(model.operatingPoint.speeds == [1.25] && model.operatingPoint.rehear == [0.82])
        let samples = try WAV.read16kMono(path: ConcurrentDecodeTests.answers).samples
        func answers(act: Double, always: Bool = false) throws -> [Utterance] {
            let point = OperatingPoint(
                notHere: .init(act: act, ask: 0), thisIsIt: .init(act: act, ask: 0), speeds: [1.25],
                rehear: [0.82])
            let listener = try Listener(model: model, policy: .init(operatingPoint: point))
            listener.rehearsSureAnswers = always
            return try (listener.process(samples: samples) + listener.finish()).filter { $0.meaning != nil }
        }
        let sure = try answers(act: 0)
        try #require(sure.map(\.meaning) == [.notHere, .thisIsIt], "\(sure)")
        #expect(sure.allSatisfy { $0.sure && $0.rehearing == nil && $0.hearings.count == 2 }, "\(sure)")

        // `act` above any confidence: each answer waits, so it is heard again.
        let waiting = try answers(act: 2)
        #expect(waiting.map(\.meaning) == [.notHere, .thisIsIt], "\(waiting)")
        for answer in waiting {
            #expect(!answer.sure && (answer.rehearing ?? -1) >= 0, "\(answer)")
            #expect(answer.hearings.count == 3, "plain, ×1.25, ×0.82: \(answer.hearings)")
            #expect(answer.hearings.allSatisfy { $0.candidate == answer.meaning }, "\(answer.hearings)")
        }
        let always = try answers(act: 0, always: true)
        #expect(always.allSatisfy { $0.sure && $0.rehearing != nil && $0.hearings.count == 3 }, "\(always)")
    }
}
