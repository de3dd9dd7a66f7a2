import Arrival
import Testing

@testable import Speech

/// Where the filler rule counts (``Listener/Policy/fillers``): with `.speech`, only the filler
/// syllables and decoys whose middle frame lies within the walker's speech; talk behind the
/// walker that the decoder heard before and after the answer is not held against it.
@Suite struct FillerSpanTests {
    static let open = OperatingPoint(
        notHere: .init(act: 0, ask: 0), thisIsIt: .init(act: 0, ask: 0))

    func segment(_ word: String, _ start: Int, _ end: Int) -> Decoder.Segment {
        Decoder.Segment(word: word, startFrame: start, endFrame: end, acousticScore: -500)
    }

    /// "… 여기가 입구야 …": a syllable of talk before the confirmation and one after it.
    var confirmationInTalk: [Decoder.Segment] {
        [
            segment("f_a", 0, 29), segment("<sil>", 30, 39), segment("여기가_입구야", 40, 119),
            segment("f_o", 120, 149),
        ]
    }

    func heard(_ segments: [Decoder.Segment], speech: ClosedRange<Int>?) -> Utterance? {
        Listener.utterance(
            from: segments.map(\.word).joined(separator: " "), segments: segments, start: 0, end: 1.5,
            policy: .init(operatingPoint: Self.open), point: Self.open, speech: speech)
    }

    @Test func talkBeforeAndAfterTheSpeechIsNotCounted() throws {
        // Over the whole utterance: two fillers, one more than a confirmation may carry.
        #expect(heard(confirmationInTalk, speech: nil)?.candidate == nil)
        #expect(heard(confirmationInTalk, speech: 0...149)?.candidate == nil)
        // Within the walker's speech (frames 35…125): neither filler's middle lies there.
        let within = try #require(heard(confirmationInTalk, speech: 35...125))
        #expect(within.candidate == .thisIsIt && within.meaning == .thisIsIt)
        #expect(within.heard == "… 여기가 입구야 …")
    }

    /// A filler inside the walker's speech still counts: "여기가 음 입구야 음" is not a confirmation.
    @Test func fillersWithinTheSpeechCount() {
        let segments = [
            segment("f_a", 0, 29), segment("여기가_입구야", 30, 99), segment("d_거기", 100, 129),
            segment("f_o", 130, 149),
        ]
        #expect(heard(segments, speech: 25...150)?.candidate == nil)
        #expect(heard(segments, speech: 25...110)?.candidate == .thisIsIt)
    }

    /// Within the speech the phrase must start there too: a "여기가 입구야" whose first word
    /// began in the talk before the walker's words (frame 30, the speech from 60) is not the
    /// walker's answer, however few fillers the speech holds.
    @Test func aPhraseThatStartsBeforeTheSpeechIsNotTheWalkers() {
        let segments = [segment("f_a", 0, 29), segment("여기가_입구야", 30, 109), segment("f_o", 110, 139)]
        #expect(heard(segments, speech: 60...120)?.candidate == nil)
        #expect(heard(segments, speech: 25...120)?.candidate == .thisIsIt)
        // Over the whole utterance, as before, only the fillers count (two: too many).
        #expect(heard(segments, speech: nil)?.candidate == nil)
        #expect(heard(Array(segments.dropFirst()), speech: nil)?.candidate == .thisIsIt)
    }
}
