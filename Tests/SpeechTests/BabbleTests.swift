import Arrival
import Foundation
import Speech
import TestSupport
import Testing

/// Talkers behind the walker (``BabbleShift``): the answers spoken into real multi-talker
/// babble (the benchmark's test talkers, `Benchmarks/voice-data/babble/test`) and into steady
/// pink noise, each 10 dB below the answer, decoded by the product's listener.
@Suite(.serialized) struct BabbleTests {
    static let talkers = babbleDirectory(
        repository: URL(fileURLWithPath: modelsDirectory).deletingLastPathComponent().path)
    static let answers: [(String, ArrivalWords)] = [
        ("여기 아니야", .notHere), ("여기가 아니야", .notHere), ("입구 아니야", .notHere), ("여기가 입구야", .thisIsIt),
        ("여기 맞아", .thisIsIt), ("입구 찾았어", .thisIsIt),
    ]
    static let voices = ["ko", "ko+f2", "ko+m3"]

    /// Six talkers at once, `seconds` long, at an RMS of 1 000 (``talkerBabble(directory:seconds:)``).
    static func babble(seconds: Double) throws -> [Int16] {
        try talkerBabble(directory: talkers, seconds: seconds)
    }

    /// Each answer in each voice, 3 s apart, over `noise` running through the whole recording
    /// `snr` dB below the answers: the candidates (``candidates(in:)``).
    static func hearings(over noise: [Int16], snr: Double = 10) throws -> [Utterance] {
        let clips = try voices.flatMap { voice in try answers.map { try spoken($0.0, voice: voice) } }
        let speech = silence(3) + clips.flatMap { $0 + silence(3) }
        let loudness = clips.map(speechLevel).reduce(0, +) / Double(clips.count)
        let noiseRMS = (noise.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(noise.count)).squareRoot()
        let gain = loudness / pow(10, snr / 20) / noiseRMS
        let recording = speech.indices.map { i in
            Int16(clamping: Int(Double(speech[i]) + gain * Double(noise[i % noise.count])))
        }
        return try candidates(in: recording)
    }

    /// In babble the background fluctuates between the words, and the confidence gives back
    /// what the talkers cost the phrase's score: answers act that the phrase's score alone, at
    /// the same thresholds, would leave to a repeat or ignore.
    @Test func talkersBehindTheWalkerGetTheAllowance() throws {
        let heard = try Self.hearings(over: try Self.babble(seconds: 60))
        let point = try phraseModel().operatingPoint
        var acted = 0
        var actedOnScoreAlone = 0
        try #require(
            heard.count >= Self.answers.count * Self.voices.count / 2, "heard only \(heard.map(\.heard))")
        for u in heard {
            let evidence = try #require(u.evidence, "\(u.heard): no evidence")
            let background = try #require(evidence.background, "\(u.heard): no background levels")
            #expect(background.spread > BabbleShift.product.from, "\(u.heard): spread \(background.spread)")
            #expect(u.confidence == Listener.confidence(of: evidence, feature: .perFrameInBabble))
            let act = u.meaning == .notHere ? point.notHere.act : point.thisIsIt.act
            acted += (u.confidence ?? 0) >= act ? 1 : 0
            actedOnScoreAlone += Listener.confidence(of: evidence, feature: .perFrame) >= act ? 1 : 0
        }
        #expect(
            acted > actedOnScoreAlone,
            "acted on \(acted), on the score alone \(actedOnScoreAlone) of \(heard.count)")
    }

    /// Steady noise at the same level fluctuates less than the talkers do: most answers get no
    /// allowance at all, so the thresholds there are the phrase's score alone, as tuned.
    @Test func steadyNoiseGetsLittleOrNone() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let pink = directory + "/pink.wav"
        try #require(
            try run(
                "sox", ["-R", "-n", "-r", "16000", "-c", "1", "-b", "16", pink, "synth", "60", "pinknoise"],
                install: "sox") == 0)
        let heard = try Self.hearings(over: try WAV.read16kMono(path: pink).samples)
        try #require(
            heard.count >= Self.answers.count * Self.voices.count / 2, "heard only \(heard.map(\.heard))")
        let allowances = heard.map { BabbleShift.product.allowance($0.evidence?.background) }
        let none = allowances.filter { $0 == 0 }.count
        #expect(none * 4 >= heard.count * 3, "allowances in pink noise: \(allowances)")
    }

    @Test func theAllowanceIsClamped() {
        let shift = BabbleShift(from: 2.5, to: 4, perDecibel: 4)
        func levels(_ spread: Double) -> BackgroundLevels {
            BackgroundLevels(level: 60, spread: spread, aboveBackground: 10)
        }
        #expect(shift.allowance(nil) == 0)
        #expect(shift.allowance(levels(1)) == 0)
        #expect(shift.allowance(levels(3)) == 2)
        #expect(shift.allowance(levels(9)) == 6)
        #expect(BabbleShift(from: 3, to: 3, perDecibel: 4).allowance(levels(9)) == 0)
    }
}
