import Foundation
import TestSupport
import Testing

/// `VoiceEval --session-per-channel`: a walker keeps one microphone for a session, so the
/// benchmark can hear each channel's items as a recording of their own. Real recordings
/// (`--real DIR`) are one session per speaker and device.
@Suite("voice-eval sessions")
struct VoiceEvalSessionTests {
    /// Two answers said by one speaker into two devices, the second a phone's 300–3400 Hz band
    /// (espeak-ng and sox, as `pathfinder record` would leave them: WAVs and a manifest).
    func recordings() throws -> String {
        let directory = try temporaryDirectory()
        var manifest = ""
        for device in ["usb", "phone"] {
            for (k, text) in ["여기 아니야", "여기가 입구야"].enumerated() {
                let file = "\(device)-\(k).wav"
                let spoken = directory + "/spoken.wav"
                try #require(
                    try run("espeak-ng", ["-v", "ko", "-w", spoken, text], install: "espeak-ng") == 0)
                let effects = device == "phone" ? ["sinc", "300-3400"] : []
                try #require(
                    try run(
                        "sox", ["-R", spoken, "-r", "16000", directory + "/" + file] + effects, install: "sox"
                    )
                        == 0)
                manifest +=
                    #"{"file": "\#(file)", "text": "\#(text)", "speaker": "walker", "device": "\#(device)", "time": "2026-12-03T12:00:00Z"}"#
                    + "\n"
            }
        }
        try manifest.write(toFile: directory + "/manifest.jsonl", atomically: true, encoding: .utf8)
        return directory
    }

    /// VoiceEval's standard output scoring the recordings in `directory` with `flags`.
    func score(_ directory: String, _ flags: [String]) throws -> String {
        let result = try runCapturing(
            try BuiltExecutable.named("VoiceEval").path,
            ["--real", directory, "--conditions", "clean", "--hours", "0"] + flags, standardOutput: true)
        try #require(result.status == 0, "\(result.text)")
        return result.text
    }

    /// Answers acted on within two turns, of all answers, from the report's row.
    func actedOn(_ report: String) throws -> (acted: Int, of: Int) {
        let row = try #require(
            report.split(separator: "\n").first { $0.contains("answers acted on within two turns**") })
        let match = try #require(row.firstMatch(of: /\((\d+)\/(\d+)\)/))
        return (Int(match.1) ?? -1, Int(match.2) ?? -1)
    }

    @Test func eachSpeakerOnEachDeviceIsASessionOfItsOwn() throws {
        let directory = try recordings()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let perChannel = try score(directory, ["--session-per-channel"])
        #expect(
            perChannel.contains(
                "Sessions: one per channel, each a recording and a Listener of its own: walker on usb, walker on phone"
            ), "\(perChannel)")
        let one = try score(directory, [])
        #expect(!one.contains("Sessions:"), "\(one)")
        // Every answer is scored either way, and the plain device's are heard.
        for report in [perChannel, one] {
            let scored = try actedOn(report)
            #expect(scored.of == 4 && scored.acted >= 2, "\(report)")
        }
    }

    /// The recordings in `directory` in clean sessions of two, with `flags`: the first turn's
    /// lines of `--cepstral-mean`, each session's mean at its end.
    func sessionMeans(_ directory: String, _ flags: [String]) throws -> [Substring] {
        let run = try runCapturing(
            try BuiltExecutable.named("VoiceEval").path,
            [
                "--real", directory, "--conditions", "clean", "--hours", "0", "--sessions-of", "2",
                "--cepstral-mean",
            ]
                + flags)
        try #require(run.status == 0, "\(run.text)")
        return run.text.split(separator: "\n").filter { $0.hasPrefix("cepstral mean after clean (2 items") }
    }

    /// `--sessions-of N`: a fresh Listener every N items, as the daemon opens one each last
    /// stretch; `--cepstral-mean` prints each session's mean at its end (13 cepstra).
    @Test func everyFewItemsASessionOfItsOwn() throws {
        let directory = try recordings()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let report = try score(directory, ["--sessions-of", "2"])
        #expect(report.contains("Sessions: a fresh Listener every 2 items, each after 5.0 s"), "\(report)")
        #expect(try actedOn(report).of == 4, "\(report)")
        let firstTurn = try sessionMeans(directory, [])
        #expect(firstTurn.count >= 2, "\(firstTurn)")
        for line in firstTurn {
            #expect(line.split(separator: ":").last?.split(separator: ",").count == 13, "\(line)")
        }
    }

    /// `--session-lead S`: each short session begins after S seconds of the noise alone (a walker
    /// who has been in it since the last stretch began), and every item is still scored.
    @Test func aLongerLeadBeforeEachSession() throws {
        let directory = try recordings()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let report = try score(directory, ["--sessions-of", "2", "--session-lead", "20"])
        #expect(report.contains("Sessions: a fresh Listener every 2 items, each after 20.0 s"), "\(report)")
        #expect(try actedOn(report).of == 4, "\(report)")
    }

    /// `--carry-mean`: each session starts from the mean the one before it ended at, not from the
    /// models directory's `-cmninit`. The first session ends where it does without it; the
    /// second, started elsewhere, ends elsewhere.
    @Test func aCarriedMeanStartsTheNextSession() throws {
        let directory = try recordings()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fresh = try sessionMeans(directory, []), carried = try sessionMeans(directory, ["--carry-mean"])
        try #require(fresh.count >= 2 && carried.count == fresh.count, "\(fresh) \(carried)")
        #expect(carried[0] == fresh[0])
        #expect(carried[1] != fresh[1], "\(carried[1])")
    }
}
