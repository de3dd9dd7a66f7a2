import Foundation
import Testing

@testable import PathfinderCLI

/// `pathfinder record` on a real ALSA device: the "null" capture device (silence), so the
/// test needs no microphone but runs the same capture, WAV and manifest code.
@Suite("record", .serialized)
struct RecordCommandTests {

    func manifestLines(_ directory: String) throws -> [[String: Any]] {
        let text = try String(contentsOfFile: directory + "/manifest.jsonl", encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    @Test func recordsEverySentenceWithAManifestAndAppends() async throws {
        let directory = NSTemporaryDirectory() + "pathfinder-record-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = await runPathfinder([
            "record", "--out", directory, "--speaker", "mom", "--device", "null", "--quiet", "--seconds", "1",
            "--rounds", "1",
        ])
        try #require(first.code == 0, "\(first.err)")
        var lines = try manifestLines(directory)
        #expect(lines.count == Commands.recordingScript.count)
        #expect(lines.compactMap { $0["text"] as? String } == Commands.recordingScript)
        for line in lines {
            #expect(line["speaker"] as? String == "mom")
            #expect(line["device"] as? String == "null")
            #expect((line["time"] as? String)?.hasPrefix("20") == true)
            let file = try #require(line["file"] as? String)
            // A PCM WAV: "RIFF", 16 kHz at byte 24, one second of 16-bit samples.
            let wav = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + file))
            #expect(wav.prefix(4) == Data("RIFF".utf8))
            #expect(wav.count >= 44 + 32_000)
            #expect(wav[24..<28].reversed().reduce(0) { $0 << 8 | Int($1) } == 16_000)
        }
        #expect(first.out.contains("say: 여기 아니야"))
        // A second person adds to the same manifest.
        let second = await runPathfinder([
            "record", "--out", directory, "--speaker", "dad", "--device", "null", "--quiet", "--seconds", "1",
            "--rounds", "1",
        ])
        try #require(second.code == 0, "\(second.err)")
        lines = try manifestLines(directory)
        #expect(lines.count == 2 * Commands.recordingScript.count)
        #expect(lines.filter { $0["speaker"] as? String == "dad" }.count == Commands.recordingScript.count)
    }

    @Test func badFlagsAreUsageErrors() async throws {
        let directory = NSTemporaryDirectory() + "pathfinder-record-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let noOut = await runPathfinder(["record", "--speaker", "a"])
        #expect(noOut.code == 2 && noOut.err.contains("--out"))
        let noSpeaker = await runPathfinder(["record", "--out", directory])
        #expect(noSpeaker.code == 2 && noSpeaker.err.contains("--speaker"))
        let badSpeaker = await runPathfinder(["record", "--out", directory, "--speaker", "a/b"])
        #expect(badSpeaker.code == 2 && badSpeaker.err.contains("a/b"))
        let badSeconds = await runPathfinder([
            "record", "--out", directory, "--speaker", "a", "--seconds", "0",
        ])
        #expect(badSeconds.code == 2 && badSeconds.err.contains("\"0\""))
        let unknown = await runPathfinder(["record", "--out", directory, "--speaker", "a", "--sekonds", "2"])
        #expect(unknown.code == 2)
        #expect(!FileManager.default.fileExists(atPath: directory + "/manifest.jsonl"))
    }

    @Test func aMissingDeviceIsARuntimeError() async throws {
        let directory = NSTemporaryDirectory() + "pathfinder-record-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = await runPathfinder([
            "record", "--out", directory, "--speaker", "a", "--device", "hw:97,0", "--quiet", "--rounds", "1",
        ])
        #expect(result.code == 1)
        #expect(result.err.contains("hw:97,0"))
    }
}
