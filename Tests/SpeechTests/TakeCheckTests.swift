import Foundation
import Speech
import TestSupport
import Testing

/// `TakeCheck`, what `pathfinder record` checks in a take, on espeak-ng's "여기 아니야" placed
/// in a three-second window as a microphone would hear it.
@Suite("take check")
struct TakeCheckTests {
    /// "여기 아니야" with `before` and `after` seconds of silence around it, 16 kHz; `effects`
    /// applied at `rate` Hz, then brought to 16 kHz by sox's rate converter, as ALSA's plug
    /// device brings a USB microphone's 48 kHz.
    func take(before: Double, after: Double, effects: [String] = [], rate: Int = 16_000) throws -> [Int16] {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let spoken = directory + "/spoken.wav", placed = directory + "/take.wav"
        try #require(try run("espeak-ng", ["-v", "ko", "-w", spoken, "여기 아니야"], install: "espeak-ng") == 0)
        try #require(
            try run(
                "sox",
                [
                    "-R", spoken, "-r", "\(rate)", "-c", "1", "-b", "16", placed,
                    "silence", "1", "0.01", "0.5%", "reverse", "silence", "1", "0.01", "0.5%", "reverse",
                ]
                    + effects + ["pad", "\(before)", "\(after)"], install: "sox") == 0)
        guard rate != 16_000 else { return try WAV.read16kMono(path: placed).samples }
        let converted = directory + "/16k.wav"
        try #require(try run("sox", ["-R", placed, "-r", "16000", converted], install: "sox") == 0)
        return try WAV.read16kMono(path: converted).samples
    }

    @Test func aSentenceWithRoomAroundItIsKept() throws {
        let samples = try take(before: 0.5, after: 1.0)
        #expect(TakeCheck.problem(in: samples) == nil)
        // The same quietly (−30 dB, an RMS in the low hundreds) is still a sentence.
        #expect(
            TakeCheck.problem(in: try take(before: 0.5, after: 1.0, effects: ["vol", "-30", "dB"])) == nil)
    }

    @Test func nothingSaidIsSilent() throws {
        #expect(TakeCheck.problem(in: [Int16](repeating: 0, count: 48_000)) == .silent)
        #expect(TakeCheck.problem(in: []) == .silent)
        // A room's faint hiss with nothing said in it.
        var random = SystemRandomNumberGenerator()
        let hiss = (0..<48_000).map { _ in Int16.random(in: -40...40, using: &random) }
        #expect(TakeCheck.problem(in: hiss) == .silent)
        // A sentence 60 dB down is below any voice a microphone 30 cm away hears.
        #expect(
            TakeCheck.problem(in: try take(before: 0.5, after: 1.0, effects: ["vol", "-60", "dB"])) == .silent
        )
    }

    @Test func aSentenceAtTheWindowsEdgeIsCutOff() throws {
        let whole = try take(before: 0.5, after: 1.0)
        // The recording started late: the sentence's start is missing.
        #expect(TakeCheck.problem(in: try take(before: 0, after: 1.0)) == .cutOff)
        // It stopped early: the last 0.2 s of the sentence are missing.
        let end = whole.count - 16_000 - 3_200
        #expect(TakeCheck.problem(in: Array(whole[..<end])) == .cutOff)
    }

    @Test func samplesAtTheRailsAreClipped() throws {
        let loud = try take(before: 0.5, after: 1.0).map { Int16(clamping: Int($0) * 8) }
        #expect(TakeCheck.problem(in: loud) == .clipped)
        // One sample at full scale is a peak, not clipping.
        var peak = try take(before: 0.5, after: 1.0)
        peak[12_000] = .max
        #expect(TakeCheck.problem(in: peak) == nil)
    }

    /// Clipping that went through a rate converter: clipped at 48 kHz (a USB microphone's gain
    /// too high), then brought to 16 kHz (ALSA's plughw). The converter rounds the flat tops
    /// off: about a thousand samples at full scale, hardly two in a row (before, it needed
    /// three runs of three at full scale, and such a take was kept).
    @Test func clippedThenResampledIsClipped() throws {
        let take = try take(before: 0.5, after: 1.0, effects: ["vol", "8"], rate: 48_000)
        #expect(TakeCheck.problem(in: take) == .clipped)
    }

    /// Speech made louder than full scale at 16 kHz (sox clips it, after its converter from
    /// espeak-ng's 22 kHz): +6 dB leaves runs of one or two samples at full scale (before, kept).
    @Test(arguments: [6, 12, 18])
    func clippedAtSixteenKilohertzIsClipped(decibels: Int) throws {
        let take = try take(before: 0.5, after: 1.0, effects: ["vol", "\(decibels)", "dB"])
        #expect(TakeCheck.problem(in: take) == .clipped)
    }

    /// A loud take that never reaches full scale is kept: normalised to −0.1 and −1 dBFS, at 16
    /// kHz and through the converter from 48 kHz.
    @Test(arguments: [("-0.1", 16_000), ("-1", 16_000), ("-0.1", 48_000), ("-1", 48_000)])
    func loudButUnclippedIsKept(level: String, rate: Int) throws {
        let take = try take(before: 0.5, after: 1.0, effects: ["gain", "-n", level], rate: rate)
        #expect(TakeCheck.problem(in: take) == nil)
    }
}
