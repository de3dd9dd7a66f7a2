import Arrival
import Foundation
import TestSupport
import Testing

@testable import Speech

/// The phone-loop confidence (`Listener.Policy.phoneLoop`, off in the product): the phrase's
/// score against a free phone loop over the same frames.
///
/// Measured on the grammar the phone loop was measured on (docs/speech.md): the committed one
/// without the pair decoys that start with 거기/저기 (`generate.py --without-onset-neighbours`).
/// With them, "거기 아니야" and "거기가 입구야" are no phrase candidates at all any more
/// (`ListenerTests.oneOnsetAwayMeansNothing`), so there would be nothing to score.
@Suite(.serialized) struct PhoneLoopTests {
    /// Every threshold open, so each candidate phrase keeps its meaning and confidence.
    static let open = OperatingPoint(notHere: .init(act: 0, ask: 0), thisIsIt: .init(act: 0, ask: 0))

    /// The repository's model as the phone loop was measured on it: the grammar before the
    /// 거기/저기 pair decoys, written by `models/generate.py` into `directory`, and
    /// PocketSphinx's default search beams (the committed narrower ones came later and hear
    /// ko's "거기 아니야" as no phrase at all; docs/speech.md, "Paid for").
    func modelWithoutOnsetNeighbours(in directory: String) throws -> PhraseModel {
        let script = modelsDirectory + "/generate.py"
        try #require(
            try run(
                "python3", [script, "--out", directory, "--without-onset-neighbours"], install: "python3")
                == 0)
        var model = try phraseModelBeforeTheSessionsMean()
        model.dictionary = directory + "/pathfinder.dict"
        model.grammar = directory + "/pathfinder.fsg"
        model.settings.removeAll { ["-beam", "-pbeam", "-wbeam"].contains($0.0) }
        return model
    }

    /// `text` spoken by espeak-ng `voice` at its own speed, decoded from the WAV file: the
    /// utterances that became a `meaning` candidate.
    func heard(_ text: String, voice: String, phoneLoop: Bool) throws -> [Utterance] {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let wav = directory + "/spoken.wav"
        try #require(try run("espeak-ng", ["-v", voice, "-w", wav, text], install: "espeak-ng") == 0)
        // The plain decoder alone: the phone loop runs beside it only. No high-pass filter:
        // the loop was measured (docs/speech.md, "Against a phone loop") before the product
        // had one (stop 25); with it the near-miss of ko+f2 scores 0.00005 below the answer
        // per frame instead of above it — still no threshold between them worth the name. From
        // the session's first mean of stop 33 the same: 0.0001 below, so each session starts
        // here from the acoustic model's own mean, as the loop was measured.
        let policy = Listener.Policy(operatingPoint: Self.open, phoneLoop: phoneLoop, speeds: [], highPass: 0)
        return try Listener.decode(
            wav: wav, model: try modelWithoutOnsetNeighbours(in: directory), policy: policy
        )
        .filter { $0.meaning != nil }
    }

    /// "거기 아니야" (there, not here) is heard as "여기 아니야" by every development voice. Its
    /// score per frame alone does not tell it from the answer — for ko+f2 it is even higher,
    /// which is why the shipped confidence acts on it (0.995, sure) — while against the phone
    /// loop it scores well below the answer for every voice: "거" fits worse than the phones
    /// the loop finds.
    @Test(arguments: ["ko", "ko+m3", "ko+f2"])
    func nearMissScoresBelowTheAnswer(voice: String) throws {
        let answer = try #require(try heard("여기 아니야", voice: voice, phoneLoop: true).first)
        let nearMiss = try #require(try heard("거기 아니야", voice: voice, phoneLoop: true).first)
        #expect(answer.meaning == .notHere && nearMiss.meaning == .notHere)
        let a = try #require(answer.evidence?.phraseRatio)
        let n = try #require(nearMiss.evidence?.phraseRatio)
        #expect(a - n > 5, "answer \(a), near-miss \(n) (search units a frame)")
        let answerConfidence = try #require(answer.confidence)
        let nearMissConfidence = try #require(nearMiss.confidence)
        #expect(answerConfidence > 0.9)
        #expect(nearMissConfidence < answerConfidence - 0.05)
        if voice == "ko+f2" {
            // Before: the near-miss scores above the answer per frame, so no threshold on that
            // score rejects it and keeps the answer.
            let before = try heard("거기 아니야", voice: voice, phoneLoop: false)
            let beforeAnswer = try heard("여기 아니야", voice: voice, phoneLoop: false)
            let nearMissBefore = try #require(before.first?.confidence)
            let answerBefore = try #require(beforeAnswer.first?.confidence)
            #expect(nearMissBefore >= answerBefore, "\(before) \(beforeAnswer)")
        }
    }

    /// "거기가 입구야" (the entrance is over there) against "여기가 입구야": the same.
    @Test func confirmationNearMiss() throws {
        let answer = try #require(try heard("여기가 입구야", voice: "ko", phoneLoop: true).first)
        let nearMiss = try #require(try heard("거기가 입구야", voice: "ko", phoneLoop: true).first)
        #expect(answer.meaning == .thisIsIt && nearMiss.meaning == .thisIsIt)
        let a = try #require(answer.evidence?.phraseRatio)
        let n = try #require(nearMiss.evidence?.phraseRatio)
        #expect(a - n > 4, "answer \(a), near-miss \(n)")
    }

    /// Without the phone loop (the product's default) nothing changes: no loop scores, and
    /// the confidence is the per-frame score's, as before.
    @Test func offByDefault() throws {
        let utterances = try Listener.decode(
            wav: ConcurrentDecodeTests.answers, model: try phraseModel(),
            policy: .init(operatingPoint: Self.open))
        try #require(utterances.compactMap(\.meaning) == [.notHere, .thisIsIt])
        for u in utterances {
            let evidence = try #require(u.evidence)
            #expect(evidence.phraseRatio == nil && evidence.utteranceRatio == nil)
            #expect(u.confidence == Listener.confidence(of: evidence, feature: .perFrame))
        }
        #expect(Listener.Policy.standard.phoneLoop == false)
    }

    /// With the phone loop both demo answers are still heard, with the ratio's confidence.
    @Test func demoAnswersWithTheLoop() throws {
        let utterances = try Listener.decode(
            wav: ConcurrentDecodeTests.answers, model: try phraseModel(),
            policy: .init(operatingPoint: Self.open, phoneLoop: true))
        #expect(utterances.compactMap(\.meaning) == [.notHere, .thisIsIt])
        for u in utterances where u.meaning != nil {
            let evidence = try #require(u.evidence)
            #expect(u.confidence == Listener.confidence(of: evidence, feature: .phraseRatio))
            #expect(evidence.phraseRatio != nil && evidence.utteranceRatio != nil)
        }
    }

    func segment(_ word: String, _ start: Int, _ end: Int, _ score: Int32) -> Decoder.Segment {
        Decoder.Segment(word: word, startFrame: start, endFrame: end, acousticScore: score)
    }

    /// The loop's phones straddle the phrase's word boundaries: each counts in proportion to
    /// its frames inside the phrase.
    @Test func loopScoreOverThePhrasesFrames() throws {
        let loop = [segment("SIL", 0, 9, -100), segment("Y", 10, 19, -200), segment("AH", 20, 39, -400)]
        #expect(ConfidenceEvidence.score(of: loop, from: 15, to: 29) == -100 - 200)
        #expect(ConfidenceEvidence.score(of: loop, from: 40, to: 50) == 0)
        let phrase = [segment("여기_아니야", 15, 29, -600)]
        let path = [segment("<sil>", 0, 14, -150)] + phrase + [segment("<sil>", 30, 39, -250)]
        let evidence = try #require(ConfidenceEvidence(phrase: phrase, path: path, loop: loop))
        #expect(evidence.perFrame == -40)
        #expect(evidence.phraseRatio == (-600.0 + 300) / 15)
        #expect(evidence.utteranceRatio == (-1000.0 + 700) / 40)
        // No loop path: no ratio, and a confidence of 0 from it (not trusted), never "sure".
        let alone = try #require(ConfidenceEvidence(phrase: phrase, path: path, loop: []))
        #expect(alone.phraseRatio == nil && alone.perFrame == -40)
        #expect(Listener.confidence(of: alone, feature: .phraseRatio) == 0)
        #expect(ConfidenceEvidence(phrase: [], path: path, loop: loop) == nil)
    }
}

extension PhoneLoopTests {
    /// Each sped-up decoder has its own phone loop, on its own audio. The demo's answers
    /// through a longer vocal tract (sox `pitch -500`) are heard by the 1.25× decoder only; with
    /// no loop of its own their ratio was missing and their confidence 0, so a policy with
    /// the phone loop never heard a lowered voice. The committed model and grammar, every block
    /// searched (no search gate), as the phone loop was measured (it is not the product's).
    @Test func aSpedUpHearingIsMeasuredAgainstItsOwnLoop() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let demo =
            URL(fileURLWithPath: modelsDirectory).deletingLastPathComponent().path
            + "/artifacts/demo/answers.wav"
        let lowered = directory + "/lowered.wav"
        try #require(try run("sox", ["-R", demo, lowered, "pitch", "-500"], install: "sox") == 0)
        let policy = Listener.Policy(
            operatingPoint: Self.open, phoneLoop: true, speeds: [1.25], searchLead: 0)
        let heard = try Listener.decode(wav: lowered, model: try phraseModel(), policy: policy)
            .filter { $0.meaning != nil }
        #expect(heard.map(\.meaning) == [.notHere, .thisIsIt], "\(heard.map(\.heard))")
        for utterance in heard {
            #expect(utterance.evidence?.phraseRatio != nil, "\(utterance.heard): no loop")
            #expect((utterance.confidence ?? 0) > 0.3, "\(utterance.heard): \(utterance.confidence ?? 0)")
        }
    }
}
