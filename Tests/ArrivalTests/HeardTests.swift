import Arrival
import Foundation
import Geo
import Testing

/// A walk standing at door A in the last stretch, the arrival question just asked.
func atDoorA() -> WalkSimulator {
    var sim = WalkSimulator(from: Scene.startPoint)
    sim.send(.go(Scene.destination))
    sim.wait(3)
    sim.send(.doorsArrived([Scene.doorA, Scene.doorB]))
    sim.walk(to: Scene.doorA.coordinate)
    sim.wait(2)
    return sim
}

@Suite("Heard: one decision path")
struct HeardTests {
    @Test func typedText_followsTheWordRules_andIsSure() {
        #expect(Heard.typed("여기 아니야") == Heard(text: "여기 아니야", meaning: .notHere, source: .socket))
        #expect(Heard.typed("저기 아니야?").meaning == nil)
        #expect(
            Heard.button(.thisIsIt, key: "KEY_Y") == Heard(text: "KEY_Y", meaning: .thisIsIt, source: .button)
        )
    }

    /// The approach acts on the meaning the answer carries, never on its text: a voice answer
    /// whose text reads like a refusal but which the Listener rejected moves no door.
    @Test func theCarriedMeaningDecides_notTheText() {
        var sim = atDoorA()
        let before = sim.approach.plan?.entrance
        sim.send(.heard(Heard(text: "… 여기 아니야 … …", meaning: nil, confidence: 0.9, source: .voice)))
        sim.wait(3)
        #expect(sim.approach.plan?.entrance == before)
        #expect(!sim.records.contains { if case .rejected = $0 { true } else { false } })

        // And the reverse: a meaning without matching text acts.
        sim.send(.heard(Heard(text: "KEY_N", meaning: .notHere, source: .button)))
        #expect(sim.records.contains(.rejected(Scene.doorA)))
    }

    @Test func theLogLine_carriesConfidenceAndSource() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let voice = FinalApproach.LogLine(
            t: 1,
            effect: .log(
                .heard(Heard(text: "여기 아니야", meaning: .notHere, confidence: 0.87654, source: .voice))))
        #expect(
            String(decoding: try encoder.encode(voice), as: UTF8.self)
                == #"{"confidence":0.877,"event":"heard","meaning":"notHere","source":"voice","t":1,"text":"여기 아니야"}"#
        )
        let typed = FinalApproach.LogLine(t: 2, effect: .log(.heard(.typed("뭐라고"))))
        #expect(
            String(decoding: try encoder.encode(typed), as: UTF8.self)
                == #"{"event":"heard","meaning":null,"source":"socket","t":2,"text":"뭐라고"}"#)
    }
}
