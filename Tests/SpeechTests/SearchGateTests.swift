import Arrival
import Foundation
import Speech
import TestSupport
import Testing

/// The search gate (``Listener/Policy/searchLead``): talk behind the walker is searched only
/// where its level rises 6 dB above the background the foreground detector learns; an answer
/// spoken near the microphone is searched from the lead before it, and heard as well as
/// without the gate.
@Suite(.serialized) struct SearchGateTests {
    /// `recording` decoded with every candidate kept (thresholds 0), every block searched
    /// (`lead` 0) or behind the committed model's search gate (`lead` `nil`: its `searchLead`),
    /// the filler rule the model's.
    static func decode(
        _ recording: [Int16], lead: Double?
    ) throws -> (heard: [Utterance], searched: Double, audio: Double) {
        let open = OperatingPoint.Thresholds(act: 0, ask: 0)
        let listener = try Listener(
            model: try phraseModel(),
            policy: .init(operatingPoint: OperatingPoint(notHere: open, thisIsIt: open), searchLead: lead))
        let heard = try listener.process(samples: recording) + listener.finish()
        return (heard.filter { $0.meaning != nil }, listener.searched, listener.position)
    }

    static let answers: [(String, ArrivalWords)] = [
        ("여기 아니야", .notHere), ("여기가 입구야", .thisIsIt), ("입구 아니야", .notHere),
    ]

    /// Three answers in each of two voices, 5 s apart, over the test talkers' babble 10 dB below
    /// them; and where each answer lies in it (seconds).
    static func recording() throws -> (
        audio: [Int16], answers: [(range: ClosedRange<Double>, meaning: ArrivalWords)]
    ) {
        var speech = silence(5)
        var placed: [(ClosedRange<Double>, ArrivalWords)] = []
        var loudness: [Double] = []
        for voice in ["ko", "ko+m3"] {
            for (text, meaning) in answers {
                let clip = try spoken(text, voice: voice)
                let start = Double(speech.count) / 16_000
                placed.append((start...start + Double(clip.count) / 16_000, meaning))
                loudness.append(speechLevel(clip))
                speech += clip + silence(5)
            }
        }
        let babble = try BabbleTests.babble(seconds: 60)
        let gain = loudness.reduce(0, +) / Double(loudness.count) / pow(10, 10.0 / 20) / 1_000
        let audio = speech.indices.map { i in
            Int16(clamping: Int(Double(speech[i]) + gain * Double(babble[i % babble.count])))
        }
        return (audio, placed)
    }

    @Test func talkBehindTheWalkerIsNotSearched() throws {
        let (recording, answers) = try Self.recording()
        try #require(
            try phraseModel().operatingPoint.searchLead != nil, "the committed model searches behind the gate"
        )
        let everyBlock = try Self.decode(recording, lead: 0)
        let gated = try Self.decode(recording, lead: nil)
        // Without the gate the decoders hear every block of the talk.
        #expect(
            everyBlock.searched >= everyBlock.audio - 0.1, "\(everyBlock.searched) of \(everyBlock.audio) s")
        // With it, not most of the talk between the answers (each under 2 s, 5 s apart; what is
        // searched is where the talkers rise 6 dB above their own background, and the lead).
        #expect(gated.searched < gated.audio * 0.75, "searched \(gated.searched) of \(gated.audio) s")
        // And the answers are heard as well as without it, none as the other answer, and no
        // more candidates in the talk between them (every candidate kept, thresholds 0).
        func during(_ u: Utterance, _ answer: (range: ClosedRange<Double>, meaning: ArrivalWords)) -> Bool {
            u.start < answer.range.upperBound && u.end > answer.range.lowerBound
                && u.meaning == answer.meaning
        }
        func correct(_ heard: [Utterance]) -> Int {
            answers.filter { answer in heard.contains { during($0, answer) } }.count
        }
        func elsewhere(_ heard: [Utterance]) -> [String] {
            heard.filter { u in !answers.contains { during(u, $0) } }.map(\.heard)
        }
        #expect(correct(everyBlock.heard) >= 5, "every block: \(everyBlock.heard.map(\.heard))")
        #expect(correct(gated.heard) >= correct(everyBlock.heard), "gated: \(gated.heard.map(\.heard))")
        #expect(
            elsewhere(gated.heard).count <= elsewhere(everyBlock.heard).count,
            "gated \(elsewhere(gated.heard)), every block \(elsewhere(everyBlock.heard))")
    }
}
