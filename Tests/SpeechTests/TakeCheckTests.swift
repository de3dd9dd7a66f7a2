import Foundation
import Speech
import TestSupport
import Testing

/// `TakeCheck`, what `pathfinder record` checks in a take, on espeak-ng's "여기 아니야" placed
/// in a three-second window as a microphone would hear it.
@Suite("take check")
struct TakeCheckTests {
    /// "여기 아니야" with `before` and `after` seconds of silence around it, 16 kHz.
    func take(before: Double, after: Double, effects: [String] = []) throws -> [Int16] {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let spoken = directory + "/spoken.wav", placed = directory + "/take.wav"
        try #require(try run("espeak-ng", ["-v", "ko", "-w", spoken, "여기 아니야"], install: "espeak-ng") == 0)
        try #require(
            try run(
                "sox",
                [
                    "-R", spoken, "-r", "16000", "-c", "1", "-b", "16", placed,
                    "silence", "1", "0.01", "0.5%", "reverse", "silence", "1", "0.01", "0.5%", "reverse",
                ]
                    + effects + ["pad", "\(before)", "\(after)"], install: "sox") == 0)
        return try WAV.read16kMono(path: placed).samples
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
}
