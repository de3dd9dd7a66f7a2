import Foundation
import Speech
import TestSupport
import Testing

extension VoiceReplayTests {
    /// `"noiseSuppression"` in a models directory reaches `pathfinder listen`: four answers in
    /// one recording in white noise (sox, `-R`: the same every run) are heard each as itself with
    /// and without it, and with it their confidences are not those heard without — the decoders
    /// heard other audio. A gate at 0 dB is none: the same lines as without the key.
    @Test func noiseSuppressionReachesListen() throws {
        let scratch = try Scratch()
        let answers: [(String, String)] = [
            ("여기 아니야", "notHere"), ("여기가 입구야", "thisIsIt"), ("입구 아니야", "notHere"), ("여기 맞아", "thisIsIt"),
        ]
        let (_, speech) = try saidInOneRecording(
            answers.map(\.0), effects: ["pad", "3", "1"], named: "speech.wav", in: scratch)
        let seconds = Double(try WAV.read16kMono(path: speech).samples.count) / 16_000
        let noise = scratch.file("noise.wav")
        let synthesised = try run(
            "sox",
            [
                "-R", "-n", "-r", "16000", "-c", "1", "-b", "16", noise, "synth", "\(seconds)", "whitenoise",
                "vol", "0.02",
            ],
            install: "sox")
        try #require(synthesised == 0)
        let recording = scratch.file("noisy.wav")
        try #require(
            try run("sox", ["-R", "-m", "-v", "1", speech, "-v", "1", noise, recording], install: "sox") == 0)

        let committed = try committedPoint()
        func listened(_ suppression: [String: Any]?) throws -> [[String: Any]] {
            var point = committed
            point["noiseSuppression"] = suppression
            let folder = try Scratch()
            let text = String(decoding: try JSONSerialization.data(withJSONObject: point), as: UTF8.self)
            let result = try pathfinder([
                "listen", "--wav", recording, "--models", try models(text, in: folder),
            ])
            try #require(result.code == 0, "\(result.err)")
            return try result.out.split(separator: "\n").map {
                try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
            .filter { $0["meaning"] is String }
        }
        let plain = try listened(nil)
        let suppressed = try listened(["level": 1, "belowSpread": 3])
        let never = try listened(["level": 1, "belowSpread": 0])
        for heard in [plain, suppressed] {
            #expect(heard.map { $0["meaning"] as? String } == answers.map(\.1), "\(heard)")
        }
        let confidences = { (heard: [[String: Any]]) in heard.map { $0["confidence"] as? Double ?? -1 } }
        #expect(confidences(suppressed) != confidences(plain), "\(suppressed) against \(plain)")
        #expect(confidences(never) == confidences(plain))
    }

    /// A bad `"noiseSuppression"` stops `pathfinder listen` before any audio, naming the file and
    /// the field.
    @Test func aBadNoiseSuppressionStopsListen() throws {
        let scratch = try Scratch()
        let point =
            #"{"notHere": {"act": 0.9, "ask": 0.5}, "thisIsIt": {"act": 0.9, "ask": 0.5}, "noiseSuppression": {"level": 7, "belowSpread": 3}}"#
        let directory = try models(point, in: scratch)
        let said = try pathfinder(["say", "여기 아니야", "--wav", scratch.file("a.wav")])
        try #require(said.code == 0, "\(said.err)")
        let result = try pathfinder(["listen", "--wav", scratch.file("a.wav"), "--models", directory])
        #expect(result.code != 0)
        #expect(result.out.isEmpty)
        #expect(
            result.err.contains(directory + "/operating-point.json")
                && result.err.contains("noiseSuppression.level 7 is not a WebRTC level from 0 to 3"),
            "\(result.err)")
    }
}
