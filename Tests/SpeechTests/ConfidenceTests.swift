import Arrival
import Foundation
import Speech
import Testing

/// The Listener's measured confidence and the operating point it is judged by.
@Suite struct ConfidenceTests {
    func decode(_ point: OperatingPoint) throws -> [Utterance] {
        try Listener.decode(
            wav: ConcurrentDecodeTests.answers, model: try phraseModel(),
            policy: Listener.Policy(operatingPoint: point))
    }

    func point(act: Double, ask: Double) -> OperatingPoint {
        OperatingPoint(notHere: .init(act: act, ask: ask), thisIsIt: .init(act: act, ask: ask))
    }

    /// Every recognised phrase carries a confidence in 0…1; at or above `act` it is sure,
    /// between `ask` and `act` it keeps its meaning but is not sure, below `ask` it has none —
    /// the confidence itself does not depend on the thresholds.
    @Test func thresholdsDecide_confidenceStays() throws {
        let open = try decode(point(act: 0, ask: 0))
        try #require(open.compactMap(\.meaning) == [.notHere, .thisIsIt], "\(open)")
        let confidences = open.compactMap(\.confidence)
        try #require(confidences.count == 2)
        #expect(confidences.allSatisfy { (0...1).contains($0) })
        #expect(open.allSatisfy { $0.sure })

        let middling = try decode(point(act: 1, ask: 0))
        #expect(middling.compactMap(\.meaning) == [.notHere, .thisIsIt])
        #expect(middling.allSatisfy { !$0.sure })
        #expect(middling.compactMap(\.confidence) == confidences)

        let strict = try decode(point(act: 1, ask: 1))
        #expect(strict.allSatisfy { $0.meaning == nil && !$0.sure }, "\(strict)")
        #expect(strict.compactMap(\.confidence) == confidences)
        #expect(strict.map(\.heard) == open.map(\.heard))
    }

    /// A stricter threshold for "여기가 입구야" rejects it while "여기 아니야" still acts.
    @Test func perAnswerThresholds() throws {
        let open = try decode(point(act: 0, ask: 0))
        let yes = try #require(open.last?.confidence)
        let strictYes = OperatingPoint(
            notHere: .init(act: 0, ask: 0), thisIsIt: .init(act: 1, ask: min(1, yes + 0.01)))
        #expect(try decode(strictYes).compactMap(\.meaning) == [.notHere])
    }

    /// Utterance JSON adds confidence and sure only when measured, and reads back.
    @Test func utteranceJSON_withConfidence() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let unsure = Utterance(
            start: 1, end: 2, heard: "여기 아니야", meaning: .notHere, confidence: 0.41234, sure: false)
        let json = String(decoding: try encoder.encode(unsure), as: UTF8.self)
        #expect(
            json
                == #"{"confidence":0.412,"end":2,"heard":"여기 아니야","meaning":"notHere","start":1,"sure":false}"#
        )
        let back = try JSONDecoder().decode(Utterance.self, from: Data(json.utf8))
        #expect(back.sure == false && back.confidence == 0.412 && back.meaning == .notHere)
        #expect(
            back.answer
                == Heard(text: "여기 아니야", meaning: .notHere, confidence: 0.412, source: .voice, sure: false))
    }
}
