import Arrival
import Foundation
import Speech
import TestSupport
import Testing

@Suite struct AudioFileTests {
    /// `Speaker.writeWAV` writes a mono PCM 16-bit file whose length fits the sentence.
    @Test func speakerWritesAValidWAV() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/say.wav"
        try Speaker().writeWAV("다른 입구로 안내할게", to: path)
        let audio = try WAV.read(path: path)
        #expect(audio.sampleRate == 22_050)
        // Eight syllables at 160 words a minute: a second or two, not silence, not a minute.
        #expect((0.8...4).contains(audio.duration), "\(audio.duration) s")
        #expect(audio.samples.contains { abs(Int($0)) > 3_000 })
        let header = try Data(contentsOf: URL(fileURLWithPath: path)).prefix(44)
        #expect(header.prefix(4) == Data("RIFF".utf8))
        #expect(header[20] == 1 && header[22] == 1 && header[34] == 16)  // PCM, mono, 16-bit
    }

    /// Digits reach espeak-ng as Hangul: "30 미터" sounds like "삼십 미터" (same length and
    /// loudness envelope; espeak-ng's voicing noise makes the samples differ run to run),
    /// where espeak-ng given the digits itself says something else.
    @Test func digitsAreSpokenAsKorean() throws {
        let speaker = try Speaker()
        for (digits, hangul) in [("입구까지 30 미터", "입구까지 삼십 미터"), ("2시 방향", "두 시 방향")] {
            let spoken = try speaker.synthesize(digits).samples
            let expected = try speaker.synthesize(hangul).samples
            #expect(abs(spoken.count - expected.count) < expected.count / 100, "\(digits)")
            #expect(envelopeDistance(spoken, expected) < 0.1, "\(digits)")
        }
        // espeak-ng on its own reads "2시" as Sino-Korean "이 시": a different sound.
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try #require(
            try run(
                "espeak-ng", ["-v", "ko", "-s", "160", "-w", directory + "/raw.wav", "2시 방향"],
                install: "espeak-ng") == 0)
        let raw = try WAV.read(path: directory + "/raw.wav").samples
        let ours = try speaker.synthesize("2시 방향").samples
        #expect(raw.count != ours.count || envelopeDistance(raw, ours) > 0.1)
    }

    /// Mean absolute difference of two 20 ms RMS envelopes, relative to the louder one's mean.
    func envelopeDistance(_ a: [Int16], _ b: [Int16]) -> Double {
        func envelope(_ s: [Int16]) -> [Double] {
            stride(from: 0, to: s.count, by: 441).map { start in
                let slice = s[start..<min(start + 441, s.count)]
                return (slice.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(slice.count)).squareRoot()
            }
        }
        let (x, y) = (envelope(a), envelope(b))
        guard x.count == y.count, !x.isEmpty else { return .infinity }
        let scale = max(x.reduce(0, +), y.reduce(0, +)) / Double(x.count)
        return zip(x, y).map { abs($0 - $1) }.reduce(0, +) / Double(x.count) / max(scale, 1)
    }

    /// Any rate and channel count comes in as 16 kHz mono (sox makes a 44.1 kHz stereo copy).
    @Test func stereo44kIsConverted() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let mono = directory + "/mono.wav"
        let stereo = directory + "/stereo.wav"
        try #require(
            try run("espeak-ng", ["-v", "ko", "-s", "160", "-w", mono, "여기가 입구야"], install: "espeak-ng") == 0)
        try #require(try run("sox", ["-R", mono, "-r", "44100", "-c", "2", stereo], install: "sox") == 0)
        let converted = try WAV.read16kMono(path: stereo)
        let original = try WAV.read(path: mono)
        #expect(converted.sampleRate == 16_000)
        #expect(abs(converted.duration - original.duration) < 0.01)
        let utterances = try Listener.decode(wav: stereo, model: try phraseModel())
        #expect(utterances.compactMap(\.meaning) == [.thisIsIt], "heard \(utterances)")
    }

    /// Float WAVs (sox writes format tag 3), empty files and non-WAVs fail naming the file.
    @Test func badFilesGiveClearErrors() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let mono = directory + "/mono.wav"
        try Speaker().writeWAV("여기 아니야", to: mono)
        let float = directory + "/float.wav"
        try #require(
            try run("sox", ["-R", mono, "-e", "floating-point", "-b", "32", float], install: "sox") == 0)
        let empty = directory + "/empty.wav"
        _ = FileManager.default.createFile(atPath: empty, contents: Data())
        let text = directory + "/notes.wav"
        _ = FileManager.default.createFile(atPath: text, contents: Data("여기 아니야\n".utf8))
        let noSamples = directory + "/nosamples.wav"
        try WAV.write(Audio(samples: [], sampleRate: 16_000), to: noSamples)
        // A header claiming 1 Hz (before: "resampled" to 16 kHz, minutes and gigabytes, exit 0).
        let slow = directory + "/slow.wav"
        try WAV.write(Audio(samples: [Int16](repeating: 4_096, count: 50_000), sampleRate: 1), to: slow)

        for (path, reason) in [
            (float, "not PCM"), (empty, "empty file"), (text, "not a RIFF/WAVE file"),
            (noSamples, "no samples"), (slow, "a sample rate of 1 Hz (expected 8000–192000 Hz)"),
            (directory, "cannot read: is a directory, not a file"),
        ] {
            #expect {
                _ = try Listener.decode(wav: path, model: try phraseModel())
            } throws: { error in
                let message = "\(error)"
                return message.contains(path) && message.contains(reason)
            }
        }
        #expect(throws: SpeechError.self) { _ = try WAV.read(path: directory + "/missing.wav") }
        // Writing says what is in the way, in words (before: Foundation's "The file doesn't exist").
        for (path, reason) in [
            (directory + "/no/such/x.wav", "cannot write: no folder \(directory)/no/such"),
            (directory, "cannot write: is a directory"),
            (mono + "/x.wav", "cannot write: \(mono) is not a folder"),
        ] {
            #expect {
                try WAV.write(Audio(samples: [0], sampleRate: 16_000), to: path)
            } throws: { error in
                "\(error)" == "\(path): \(reason)"
            }
        }
    }

    @Test func modelIsLocatedByEnvironmentOrExecutable() throws {
        let byEnvironment = try PhraseModel.locate(
            environment: ["PATHFINDER_MODELS": modelsDirectory], executable: "/nonexistent/bin/x")
        #expect(byEnvironment.grammar == modelsDirectory + "/pathfinder.fsg")
        // An executable inside the repository (as .build/release/pathfinder is) finds models/ above it.
        let repository = URL(fileURLWithPath: modelsDirectory).deletingLastPathComponent().path
        let byExecutable = try PhraseModel.locate(
            environment: [:], executable: repository + "/.build/release/pathfinder")
        #expect(byExecutable.dictionary.hasSuffix("/models/pathfinder.dict"))
        #expect { _ = try PhraseModel.locate(environment: [:], executable: "/nonexistent/bin/x") } throws: {
            error in
            "\(error)".contains("PATHFINDER_MODELS")
        }
        #expect { _ = try PhraseModel.locate(explicit: "/nonexistent/models") } throws: { error in
            "\(error)".contains("/nonexistent/models/pathfinder.dict")
        }
    }
}
