import Arrival
import Foundation
import Geo
import Speech
import TestSupport
import Testing

/// ㅊ is held shut before its burst. In white noise the burst is masked and the closure reads
/// as a pause, which a one-token phrase had no room for: "입구 찾았어" was heard as
/// `[입구] [앉아] …` or `[입구] … [찾았어]`. The grammar lets the phrase, and the pair decoys
/// whose second word starts with ㅊ, pause there (`models/generate.py`, `closures`).
@Suite(.serialized) struct ClosureTests {
    /// `text` in the three voices at 130, 175 and 220 words a minute, as the benchmark's white
    /// 10 dB condition makes it: each clip at the benchmark's speech level (3 277 RMS over its
    /// louder half of 20 ms frames), 1 s apart after 1 s of noise alone, in Gaussian white noise
    /// (`SeededRandom`, the benchmark's generator, from a fixed seed) 10 dB below: the
    /// candidates (``candidates(in:)``).
    static func hearings(of text: String) throws -> [Utterance] {
        var speech = silence(1)
        for voice in BabbleTests.voices {
            for speed in [130, 175, 220] {
                let clip = atBenchmarkLevel(try spoken(text, voice: voice, speed: speed))
                speech += clip.map { Int16(clamping: Int($0.rounded())) } + silence(1)
            }
        }
        var random = SeededRandom(seed: 1)
        let noise = benchmarkSpeechLevel / pow(10, 10.0 / 20)
        return try candidates(
            in: speech.map { Int16(clamping: Int((Double($0) + random.gaussian() * noise).rounded())) })
    }

    @Test func aHeldChIsNoPauseToTheListener() throws {
        let heard = try Self.hearings(of: "입구 찾았어")
        let confirmations = heard.filter { $0.meaning == .thisIsIt }
        #expect(confirmations.count == 3 * BabbleTests.voices.count, "heard \(heard.map(\.heard))")
    }

    /// The pause is the pair decoys' too: "입구 찾아봐" (look for the entrance) is not taken for
    /// "입구 찾았어" (found it) through the phrase's pause.
    @Test func lookForItIsNotFoundIt() throws {
        let heard = try Self.hearings(of: "입구 찾아봐")
        let taken = heard.filter { $0.meaning == .thisIsIt }.map(\.heard)
        #expect(taken.isEmpty, "taken for 입구 찾았어: \(taken)")
    }
}
