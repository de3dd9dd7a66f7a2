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

/// The short dialogue: sure answers act, middling ones are asked about in the answer window.
@Suite("Heard: the dialogue")
struct DialogueTests {
    static func voice(_ meaning: ArrivalWords, sure: Bool) -> FinalApproach.Event {
        .heard(
            Heard(
                text: meaning == .notHere ? "여기 아니야" : "여기가 입구야", meaning: meaning,
                confidence: sure ? 0.9 : 0.5, source: .voice, sure: sure))
    }

    var rejections: (WalkSimulator) -> [Door] = { sim in
        sim.records.compactMap { if case .rejected(let door) = $0 { door } else { nil } }
    }

    @Test func sureActsAtOnce() {
        var sim = atDoorA()
        sim.send(Self.voice(.notHere, sure: true))
        #expect(rejections(sim) == [Scene.doorA])
        #expect(!sim.said.contains(Prompts.sayAgain))
    }

    /// A middling answer just after the arrival question gets "다시 한 번 말해줘" and acts
    /// when the repeat means the same within 8 s.
    @Test func middlingInTheWindow_asks_thenTheRepeatActs() {
        var sim = atDoorA()
        sim.send(Self.voice(.notHere, sure: false))
        #expect(sim.said.last == Prompts.sayAgain)
        #expect(rejections(sim).isEmpty)
        sim.wait(4)
        sim.send(Self.voice(.notHere, sure: false))
        #expect(rejections(sim) == [Scene.doorA])
    }

    @Test func aRepeatTooLate_orMeaningOtherwise_doesNotAct() {
        var late = atDoorA()
        late.send(Self.voice(.notHere, sure: false))
        late.wait(9)
        late.send(Self.voice(.notHere, sure: false))
        #expect(rejections(late).isEmpty)
        // Still in the window (it reopened with the question): asked again.
        #expect(late.said.filter { $0 == Prompts.sayAgain }.count == 2)

        var other = atDoorA()
        other.send(Self.voice(.thisIsIt, sure: false))
        other.wait(2)
        other.send(Self.voice(.notHere, sure: false))
        #expect(rejections(other).isEmpty)
        #expect(!other.records.contains { if case .confirmed = $0 { true } else { false } })
        #expect(other.said.filter { $0 == Prompts.sayAgain }.count == 2)
    }

    /// The answer window runs from when the walker has heard the question to its end: at a `go`
    /// 5 m from the door, the start, the last stretch and the question take 22.3 s to say (the
    /// lengths espeak-ng gives them), and a middling answer at 24 s is asked about and its repeat
    /// acts (before: the window ran from the question's queueing, closed at 21 s, and both were
    /// ignored). It closes 20 s after the question's end.
    @Test func theWindowRunsFromWhenTheQuestionWasHeard() {
        let door = Door(
            coordinate: Scene.doorA.coordinate, source: .companion, level: "0", note: "2층 출발 홀", label: "A")
        let destination = Destination(name: "Test Hall", center: Scene.center, door: door)
        func atTheDoor() -> WalkSimulator {
            var sim = WalkSimulator(from: door.coordinate.offset(metres: 5, bearing: 180))
            sim.noise = 0
            sim.speakingSeconds = { text in
                switch text {
                case Prompts.start("Test Hall"): 3.4
                case Prompts.lastStretch("Test Hall", door: door): 7.7
                case Prompts.arrived(at: door): 11.2
                default: 1.7
                }
            }
            sim.send(.go(destination))
            sim.wait(1)  // the first fix: the last stretch and the arrival, said after the start
            #expect(sim.arrivals == 1)
            return sim
        }
        var sim = atTheDoor()
        sim.wait(23)  // t = 24 s: the question ended at 22.3 s
        sim.send(Self.voice(.notHere, sure: false))
        #expect(sim.said.last == Prompts.sayAgain, "\(sim.said)")
        sim.wait(4)  // "다시 한 번 말해줘." heard at 25.7 s, the repeat 2.3 s after
        sim.send(Self.voice(.notHere, sure: false))
        #expect(rejections(sim) == [door])

        var late = atTheDoor()
        late.wait(42)  // t = 43 s: 20.7 s after the question's end
        late.send(Self.voice(.notHere, sure: false))
        #expect(!late.said.contains(Prompts.sayAgain))
    }

    /// `repeat` of the arrival question opens the window again, from when it is heard again
    /// (before: only the arrival opened it, and a middling answer after the repeat was ignored).
    @Test func aRepeatedQuestion_opensTheWindowAgain() {
        var sim = atDoorA()
        sim.wait(25)
        sim.send(Self.voice(.notHere, sure: false))
        #expect(!sim.said.contains(Prompts.sayAgain), "the window closed 20 s after the question")
        sim.send(.repeatLast)
        #expect(sim.said.last == Prompts.arrived(at: Scene.doorA))
        sim.wait(13)
        sim.send(Self.voice(.notHere, sure: false))
        #expect(sim.said.last == Prompts.sayAgain, "\(sim.said.suffix(3))")
        sim.wait(3)
        sim.send(Self.voice(.notHere, sure: false))
        #expect(rejections(sim) == [Scene.doorA])
    }

    /// Outside the answer window a middling answer is logged and ignored; a sure one acts.
    @Test func outsideTheWindow_onlySureActs() {
        var sim = atDoorA()
        sim.wait(25)
        let before = sim.effects.count
        sim.send(Self.voice(.notHere, sure: false))
        #expect(sim.effects.count == before + 1)
        #expect(
            sim.records.last
                == .heard(
                    Heard(text: "여기 아니야", meaning: .notHere, confidence: 0.5, source: .voice, sure: false)))
        sim.send(Self.voice(.notHere, sure: true))
        #expect(rejections(sim) == [Scene.doorA])
    }

    /// The same meaning again within 5 s of acting is the same answer: door B survives a
    /// repeated "여기 아니야"; later it is an answer about B. Buttons always act.
    @Test func aRepeatAfterActing_isTheSameAnswer_butButtonsAlwaysAct() {
        var sim = atDoorA()
        sim.send(Self.voice(.notHere, sure: true))
        sim.wait(3)
        sim.send(Self.voice(.notHere, sure: true))
        #expect(rejections(sim) == [Scene.doorA])
        sim.wait(3)
        sim.send(Self.voice(.notHere, sure: true))
        #expect(rejections(sim) == [Scene.doorA, Scene.doorB])

        var buttons = atDoorA()
        buttons.send(.heard(.button(.notHere, key: "KEY_N")))
        buttons.wait(1)
        buttons.send(.heard(.button(.notHere, key: "KEY_N")))
        #expect(rejections(buttons) == [Scene.doorA, Scene.doorB])
    }
}
