import Arrival
import Foundation
import TestSupport
import Testing

@testable import Speech

/// The neighbour margin (`Listener.Policy.neighbourMargin`, off in the product): an utterance
/// taken for an answer is decoded again with the answer's phrase and with its one-onset
/// neighbours in its place.
@Suite(.serialized) struct NeighbourMarginTests {
    /// Every threshold open, so each candidate phrase keeps its meaning and confidence.
    static let open = OperatingPoint(notHere: .init(act: 0, ask: 0), thisIsIt: .init(act: 0, ask: 0))

    /// `text` spoken by espeak-ng's Korean voice at its own speed, decoded from the WAV file
    /// through the product's Listener: the utterances that became a `meaning` candidate.
    func heard(_ text: String, neighbourMargin: Bool) throws -> [Utterance] {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let wav = directory + "/spoken.wav"
        try #require(try run("espeak-ng", ["-v", "ko", "-w", wav, text], install: "espeak-ng") == 0)
        let policy = Listener.Policy(operatingPoint: Self.open, neighbourMargin: neighbourMargin)
        let model = try phraseModelBeforeTheSessionsMean()
        return try Listener.decode(wav: wav, model: model, policy: policy).filter { $0.meaning != nil }
    }

    /// The rule: 여 gets each onset in place of its glide, 이/입 each onset in front, anything
    /// else has no neighbours.
    @Test func neighboursByTheFixedRule() {
        #expect(
            Rescorer.neighbours(of: "Y AH G IY AA N IY Y AA") == [
                "G AH G IY AA N IY Y AA", "K AH G IY AA N IY Y AA", "JH AH G IY AA N IY Y AA",
                "CH AH G IY AA N IY Y AA", "D AH G IY AA N IY Y AA", "B AH G IY AA N IY Y AA",
            ])
        #expect(Rescorer.neighbours(of: "IY P K UW").first == "G IY P K UW")
        #expect(Rescorer.neighbours(of: "IH P G UW").last == "B IH P G UW")
        #expect(Rescorer.neighbours(of: "AA N IY").isEmpty)
        #expect(Rescorer.neighbours(of: "").isEmpty)
    }

    /// The answer fits better than its neighbours; "거기가 아니야", which the grammar took for
    /// "여기가 아니야" in this voice, fits worse than its best neighbour (거기가 is one). Each
    /// session starts from the acoustic model's own mean, as the margin was measured: from the
    /// product's (stop 33) the plain decoder hears this near-miss as its decoy instead.
    @Test func answerAboveItsNeighboursNearMissBelow() throws {
        let answer = try #require(try heard("여기가 아니야", neighbourMargin: true).first)
        let nearMiss = try #require(try heard("거기가 아니야", neighbourMargin: true).first)
        #expect(answer.meaning == .notHere && nearMiss.meaning == .notHere)
        let a = try #require(answer.evidence?.neighbourMargin)
        let n = try #require(nearMiss.evidence?.neighbourMargin)
        #expect(a > 0, "answer's margin \(a)")
        #expect(n < 0, "near-miss's margin \(n)")
        #expect(try #require(answer.confidence) > (try #require(nearMiss.confidence)))
        let evidence = try #require(answer.evidence)
        #expect(answer.confidence == Listener.confidence(of: evidence, feature: .perFramePlusMargin))
    }

    /// Off (the product): no second pass, no margin, the per-frame confidence as before.
    @Test func offByDefault() throws {
        #expect(Listener.Policy.standard.neighbourMargin == false)
        let answer = try #require(try heard("여기가 아니야", neighbourMargin: false).first)
        let evidence = try #require(answer.evidence)
        #expect(evidence.neighbourMargin == nil)
        #expect(answer.confidence == Listener.confidence(of: evidence, feature: .perFrame))
    }
}
