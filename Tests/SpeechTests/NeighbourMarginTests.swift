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
    func heard(
        _ text: String, neighbourMargin: Bool, rule: Listener.Policy.NeighbourRule = .firstOnset
    ) throws -> [Utterance] {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let wav = directory + "/spoken.wav"
        try #require(try run("espeak-ng", ["-v", "ko", "-w", wav, text], install: "espeak-ng") == 0)
        let policy = Listener.Policy(
            operatingPoint: Self.open, neighbourMargin: neighbourMargin, neighbourRule: rule)
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
        #expect(answer.confidence == Listener.confidence(of: evidence, feature: .perFrameInBabblePlusMargin))
    }

    /// `everyOnset`: any one consonant or glide swapped for another of the grammar's 13
    /// syllable onsets, or one of them put in front of a syllable that starts with a vowel;
    /// never the pronunciation itself, never twice.
    @Test func neighboursOfEveryOnset() {
        let n = Rescorer.neighbours(of: "Y AH G IY AA N IY Y AA", rule: .everyOnset)
        // Y, G, N, Y: 12 other onsets each (13 for the glides, which are no onset); 13 before 아.
        #expect(n.count == 13 + 12 + 12 + 13 + 13)
        #expect(Set(n).count == n.count && !n.contains("Y AH G IY AA N IY Y AA"))
        #expect(n.contains("Y AH G IY AA D IY Y AA"))  // 여기 아디야 (어디야's neighbour)
        #expect(n.contains("Y AH G IY AA G IY Y AA"))  // 여기 아기야
        #expect(n.contains("Y AH G IY M AA N IY Y AA"))  // 여기 마니야
        #expect(n.contains("G AH G IY AA N IY Y AA"))  // 거기 아니야, as firstOnset
        #expect(!n.contains("Y AH G IY AA N IY Y OW"))  // vowels stay
        #expect(Rescorer.neighbours(of: "AA", rule: .everyOnset).count == 13)
        #expect(Rescorer.neighbours(of: "", rule: .everyOnset).isEmpty)
    }

    /// Every hearing of an answer carries the margin, the sped-up decoder's and a re-hearing's
    /// too (the plain audio weighed once per phrase), so the confidence that chooses between
    /// them is one feature; and "여기 어디야", one onset from "여기 아니야" in its second word,
    /// which the first-onset rule cannot reach and the grammar takes for it in this voice, gets a
    /// margin under `everyOnset` well below the answer's (+5 against +10 here).
    @Test func everyOnsetReachesTheSecondWord() throws {
        let answer = try #require(try heard("여기 아니야", neighbourMargin: true, rule: .everyOnset).first)
        #expect(answer.meaning == .notHere)
        let hearings = answer.hearings
        #expect(hearings.count >= 2, "the plain and the sped-up decoder's hearings")
        for hearing in hearings where hearing.candidate != nil {
            #expect(hearing.evidence?.neighbourMargin != nil, "\(hearing.heard) has no margin")
        }
        let a = try #require(answer.evidence?.neighbourMargin)
        #expect(a > 0, "answer's margin \(a)")
        let nearMiss = try #require(
            try heard("여기 어디야", neighbourMargin: true, rule: .everyOnset).first { $0.meaning == .notHere })
        let n = try #require(nearMiss.evidence?.neighbourMargin)
        #expect(n < a - 3, "near-miss's margin \(n) against the answer's \(a)")
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
