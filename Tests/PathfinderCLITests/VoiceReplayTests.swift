import Arrival
import Foundation
import Geo
import Speech
import Storage
import TestSupport
import Testing

/// `replay --audio`: the Listener's decision is what the last stretch acts on (issue #13 item 1).
@Suite struct VoiceReplayTests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// The repository's models with `operating-point.json` replaced (thresholds 0.001/0.999: the
    /// loader takes a JSON 0 or 1 for a Bool on Linux).
    func models(_ point: String, in scratch: Scratch) throws -> String {
        let directory = scratch.file("models")
        try FileManager.default.copyItem(atPath: Self.repo + "/models", toPath: directory)
        try? FileManager.default.removeItem(atPath: directory + "/operating-point.json")
        try Data(point.utf8).write(to: URL(fileURLWithPath: directory + "/operating-point.json"))
        return directory
    }

    /// `directory`'s `pathfinder.args` without its `-cmninit` line: every session starts from the
    /// acoustic model's own mean (Debian's 41.00,…), as before stop 33.
    func removeSessionsMean(in directory: String) throws {
        let args = try String(contentsOfFile: directory + "/pathfinder.args", encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false)
        try #require(args.contains { $0.hasPrefix("-cmninit ") }, "models/pathfinder.args has no -cmninit")
        try args.filter { !$0.hasPrefix("-cmninit ") }.joined(separator: "\n")
            .write(toFile: directory + "/pathfinder.args", atomically: true, encoding: .utf8)
    }

    func replay(
        models: String, audio: String = Self.repo + "/artifacts/demo/answers.wav", memory: String? = nil
    ) async -> (code: Int32, out: String, err: String) {
        await runPathfinder(
            [
                "replay", "--nmea", Self.repo + "/artifacts/demo/walk.nmea", "--destination",
                Self.repo + "/artifacts/demo/destination.json", "--osm",
                Self.repo + "/artifacts/demo/doors.osm",
                "--audio", audio, "--audio-start", "394", "--models", models,
            ] + (memory.map { ["--memory", $0] } ?? []))
    }

    func lines(_ out: String, event: String) -> [[String: Any]] {
        out.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.filter { $0["event"] as? String == event }
    }

    /// An utterance the policy rejects (its confidence below the "여기가 입구야" threshold)
    /// moves no door, though its text reads "여기가 입구야"; the refusal, accepted, still does.
    @Test func aRejectedUtterance_movesNoDoor() async throws {
        let scratch = try Scratch()
        let strict = try models(
            #"{"notHere": {"act": 0.001, "ask": 0.001}, "thisIsIt": {"act": 0.999, "ask": 0.999}}"#,
            in: scratch)
        let run = await replay(models: strict)
        try #require(run.code == 0, "\(run.err)")
        let heard = lines(run.out, event: "heard")
        try #require(heard.count == 2, "\(run.out)")
        #expect(heard[1]["text"] as? String == "여기가 입구야")
        #expect(heard[1]["meaning"] is NSNull)
        #expect(heard[1]["source"] as? String == "voice")
        #expect((heard[1]["confidence"] as? Double).map { (0..<1).contains($0) } == true)
        #expect(lines(run.out, event: "rejected").count == 1)
        #expect(lines(run.out, event: "confirmed").isEmpty)
    }

    /// The answer window runs from when the question has been said: at a `go` 5 m from the
    /// door, the start, the last stretch and the arrival question take about 22 s to say, and a
    /// middling "여기 아니야" at 25.7 s is asked about, and its repeat rejects the door (before:
    /// the window ran 20 s from the question's queueing at 0 s, and both answers were logged and
    /// ignored, the walker left in silence).
    @Test func theAnswerWindow_runsFromTheEndOfTheQuestion() async throws {
        let scratch = try Scratch()
        let middling = try models(
            #"{"notHere": {"act": 0.999, "ask": 0.001}, "thisIsIt": {"act": 0.999, "ask": 0.001}}"#,
            in: scratch)
        // espeak-ng's "여기 아니야" twice, 5.6 s apart, from 24 s into the walk.
        let spoken = scratch.file("spoken.wav"), once = scratch.file("once.wav"),
            twice = scratch.file("twice.wav")
        try #require(try run("espeak-ng", ["-v", "ko", "-w", spoken, "여기 아니야"], install: "espeak-ng") == 0)
        try #require(
            try run(
                "sox",
                [
                    "-R", spoken, "-r", "16000", "-c", "1", "-b", "16", once, "silence", "1", "0.01", "0.5%",
                    "pad", "0.5", "4",
                ],
                install: "sox") == 0)
        try #require(try run("sox", [once, once, twice], install: "sox") == 0)
        let fixtures = Self.repo + "/Tests/PathfinderCLITests/Fixtures/at-the-door/"
        let run = await runPathfinder([
            "replay", "--nmea", fixtures + "walk.nmea", "--destination", fixtures + "destination.json",
            "--audio", twice, "--audio-start", "24", "--models", middling,
        ])
        try #require(run.code == 0, "\(run.err)")
        let said = lines(run.out, event: "say").compactMap { $0["text"] as? String }
        let heard = lines(run.out, event: "heard")
        try #require(heard.count == 2, "\(run.out)")
        #expect(heard.allSatisfy { $0["sure"] as? Bool == false && $0["meaning"] as? String == "notHere" })
        #expect((heard[0]["t"] as? Double).map { $0 > 23 } == true, "\(heard)")
        #expect(said.filter { $0 == Prompts.sayAgain }.count == 1, "\(said)")
        #expect(lines(run.out, event: "rejected").count == 1, "\(run.out)")
    }

    /// A middling answer in the answer window is asked about, and acts on nothing by itself.
    @Test func aMiddlingAnswer_isAskedAbout() async throws {
        let scratch = try Scratch()
        let middling = try models(
            #"{"notHere": {"act": 0.999, "ask": 0.001}, "thisIsIt": {"act": 0.999, "ask": 0.001}}"#,
            in: scratch)
        let run = await replay(models: middling)
        try #require(run.code == 0, "\(run.err)")
        let heard = lines(run.out, event: "heard")
        #expect(heard.allSatisfy { $0["sure"] as? Bool == false }, "\(heard)")
        #expect(lines(run.out, event: "say").contains { $0["text"] as? String == "다시 한 번 말해줘." })
        #expect(lines(run.out, event: "rejected").isEmpty)
        #expect(lines(run.out, event: "confirmed").isEmpty)
    }

    /// The demo's recorded answers through sox `pitch CENTS` (a vocal tract of another length),
    /// in `scratch`.
    func demoAnswers(pitch cents: String, in scratch: Scratch) throws -> String {
        let path = scratch.file("answers\(cents).wav")
        try #require(
            try run(
                "sox", ["-R", Self.repo + "/artifacts/demo/answers.wav", path, "pitch", cents], install: "sox"
            )
                == 0)
        return path
    }

    /// The committed operating-point.json, as a JSON object to change.
    func committedPoint() throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.repo + "/models/operating-point.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// `walk` heard both answers, and the refusal and the confirmation acted.
    func expectBothAct(_ walk: (code: Int32, out: String, err: String)) throws {
        try #require(walk.code == 0, "\(walk.err)")
        #expect(lines(walk.out, event: "rejected").count == 1, "\(walk.out)")
        #expect(lines(walk.out, event: "confirmed").count == 1, "\(walk.out)")
    }

    /// `walk` heard no answer, and no door moved.
    func expectNothingHeard(_ walk: (code: Int32, out: String, err: String)) throws {
        try #require(walk.code == 0, "\(walk.err)")
        #expect(lines(walk.out, event: "heard").allSatisfy { $0["meaning"] is NSNull }, "\(walk.out)")
        #expect(lines(walk.out, event: "rejected").isEmpty && lines(walk.out, event: "confirmed").isEmpty)
    }

    /// A lower voice than any the model learnt (the demo's answers through sox `pitch -500`,
    /// every frequency × 0.75) on the demo walk: with the shipped model's sped-up decoder
    /// (`speeds` in its operating-point.json) the refusal and the confirmation both act; with
    /// the same thresholds and no `speeds`, nothing is heard as an answer.
    @Test func aLowerVoiceIsHeardOnTheWalk() async throws {
        let scratch = try Scratch()
        let lowered = try demoAnswers(pitch: "-500", in: scratch)
        var point = try committedPoint()
        try #require(
            (point["speeds"] as? [Any])?.isEmpty == false, "the shipped model has no sped-up decoder")
        try expectBothAct(await replay(models: Self.repo + "/models", audio: lowered))

        point["speeds"] = nil
        let plain = try models(
            String(decoding: try JSONSerialization.data(withJSONObject: point), as: UTF8.self), in: scratch)
        try expectNothingHeard(await replay(models: plain, audio: lowered))
    }

    /// A higher voice than any the model learnt (the demo's answers through sox `pitch +800`,
    /// every frequency × 1.59) on the demo walk, the walker saying the confirmation again 1.5 s
    /// after it: the plain and the sped-up decoders hear only decoys and fillers, so with the
    /// same thresholds and no re-hearing nothing is heard. The shipped model hears such a short
    /// utterance again, slowed to 0.82× (`rehear` in its operating-point.json): both answers are
    /// heard, the refusal acts and the first confirmation confirms door D at once.
    /// (Until stop 33 this was `pitch +700`, until stop 35 `+750`, where the first confirmation
    /// was heard below `act` and asked again. Since each session starts from the mean our front
    /// end settles at, +700 acts at once; since the noise suppression and its point, +750 and
    /// +800 do. A middling answer's ask is `aMiddlingAnswer_isAskedAbout`'s, above.)
    @Test func aHigherVoiceIsHeardAgainOnTheWalk() async throws {
        let scratch = try Scratch()
        let seven = try confirmedTwice(try demoAnswers(pitch: "750", in: scratch), in: scratch)
        let atOnce = await replay(models: Self.repo + "/models", audio: seven)
        try expectBothAct(atOnce)
        let heardAtOnce = lines(atOnce.out, event: "heard").filter { $0["meaning"] as? String == "thisIsIt" }
        // A "heard" event marks a middling answer "sure": false; one that acts at once has no "sure".
        #expect(heardAtOnce.count == 2 && heardAtOnce.allSatisfy { $0["sure"] == nil }, "\(atOnce.out)")
        #expect(!lines(atOnce.out, event: "say").contains { $0["text"] as? String == "다시 한 번 말해줘." })

        let raised = try confirmedTwice(try demoAnswers(pitch: "800", in: scratch), in: scratch)
        var point = try committedPoint()
        try #require((point["rehear"] as? [Any])?.isEmpty == false, "the shipped model hears nothing again")
        let walk = await replay(models: Self.repo + "/models", audio: raised)
        try expectBothAct(walk)
        let confirmations = lines(walk.out, event: "heard").filter { $0["meaning"] as? String == "thisIsIt" }
        #expect(confirmations.count == 2, "\(walk.out)")
        #expect(confirmations.first?["sure"] == nil, "\(walk.out)")

        point["rehear"] = nil
        let plain = try models(
            String(decoding: try JSONSerialization.data(withJSONObject: point), as: UTF8.self), in: scratch)
        try expectNothingHeard(await replay(models: plain, audio: raised))
    }

    /// The demo's two answers in `path` (its two stretches of sound, a second or more of silence
    /// apart), the second said again 1.5 s after it ends, then 3 s of silence; in `scratch`.
    func confirmedTwice(_ path: String, in scratch: Scratch) throws -> String {
        let samples = try WAV.read16kMono(path: path).samples
        let loud = samples.indices.filter { abs(Int(samples[$0])) > 100 }
        let breaks = loud.indices.dropFirst().filter { loud[$0] - loud[$0 - 1] > 16_000 }
        try #require(breaks.count == 1, "\(path) should hold two answers")
        let end = try #require(loud.last)
        let confirmation = samples[loud[breaks[0]]...end]
        let pause = [Int16](repeating: 0, count: 24_000)
        let twice = Array(samples[...end]) + pause + confirmation + pause + pause
        let out = scratch.file("confirmed-twice.wav")
        try WAV.write(Audio(samples: twice, sampleRate: 16_000), to: out)
        return out
    }

    /// ㅊ is held shut before its burst; in white noise the closure reads as a pause
    /// (docs/speech.md, "A pause for ㅊ"). The demo walk with its confirmation spoken as
    /// "입구 찾았어" at 130 words a minute, both answers at the voice benchmark's speech level
    /// (3 277 RMS) and Gaussian white noise 10 dB below from 2 s before the confirmation on:
    /// the shipped grammar lets the phrase pause at its ㅊ, so the walker's door D is confirmed
    /// and remembered. (With the grammar before, 66e05c8, these three walks confirmed nothing:
    /// it heard `… [찾았어]` or `[입구] [찾았어]`.)
    @Test(arguments: ["ko", "ko+f2", "ko+m3"])
    func aHeldChConfirmsTheDoorOnTheWalk(voice: String) async throws {
        let scratch = try Scratch()
        let demo = try WAV.read16kMono(path: Self.repo + "/artifacts/demo/answers.wav").samples
        // The demo's two answers are its two stretches of sound (a second or more of silence apart).
        let loud = demo.indices.filter { abs(Int(demo[$0])) > 100 }
        let breaks = loud.indices.dropFirst().filter { loud[$0] - loud[$0 - 1] > 16_000 }
        try #require(breaks.count == 1, "the demo's answers.wav should hold two answers")
        let refusal = Array(demo[loud[0]...loud[breaks[0] - 1]])
        let confirmationStart = loud[breaks[0]]

        let raw = scratch.file("found-raw.wav")
        try #require(
            try run("espeak-ng", ["-v", voice, "-s", "130", "-w", raw, "입구 찾았어"], install: "espeak-ng") == 0)
        let found = try WAV.read16kMono(path: raw).samples
        var recording = [Double](repeating: 0, count: demo.count)
        recording.replaceSubrange(loud[0]..<loud[0] + refusal.count, with: atBenchmarkLevel(refusal))
        recording.replaceSubrange(
            confirmationStart..<confirmationStart + found.count, with: atBenchmarkLevel(found))
        var random = SeededRandom(seed: 1)
        for i in (confirmationStart - 32_000)..<recording.count {
            recording[i] += random.gaussian() * benchmarkSpeechLevel / pow(10, 10.0 / 20)
        }
        let audio = scratch.file("answers.wav")
        try WAV.write(
            Audio(samples: recording.map { Int16(clamping: Int($0.rounded())) }, sampleRate: 16_000),
            to: audio)

        let walk = await replay(
            models: Self.repo + "/models", audio: audio, memory: scratch.file("memory.json"))
        try #require(walk.code == 0, "\(walk.err)")
        let heard = lines(walk.out, event: "heard").compactMap { $0["text"] as? String }
        #expect(lines(walk.out, event: "rejected").count == 1, "heard \(heard)")
        #expect(lines(walk.out, event: "confirmed").count == 1, "heard \(heard)")
        #expect(heard.contains { $0.hasPrefix("입구 찾았어") }, "heard \(heard)")
        let confirmed = try MemoryFile.read(path: scratch.file("memory.json")).buildings.first?.confirmed
        #expect(confirmed?.label == "D" && confirmed?.source == .walker, "\(String(describing: confirmed))")
    }

    /// Six real talkers (the development split's, Benchmarks/voice-data) talk 15 dB below the
    /// walker from the first second of the demo walk to the last, the demo's two answers at the
    /// voice benchmark's speech level: the decoders hear the talk just before and after each
    /// answer as filler syllables. With the filler rule counting only those within the walker's
    /// speech, as the committed model does (`"fillers": "speech"` in operating-point.json since
    /// stop 29) the refusal acts and door D is confirmed and remembered; counted over the
    /// decoder's whole utterance (`"fillers": "utterance"`, the product before, thresholds
    /// unchanged), the confirmation carries two and confirms no door. (The talkers from 7 s into
    /// their mix: a walk the rule decides; on others both confirm, or neither —
    /// `Scripts/bench-talker-walks` counts such walks.)
    @Test func talkBehindTheWalkerIsNotHeldAgainstTheAnswers() async throws {
        let offset = 7.0
        let scratch = try Scratch()
        let demo = try WAV.read16kMono(path: Self.repo + "/artifacts/demo/answers.wav").samples
        let loud = demo.indices.filter { abs(Int(demo[$0])) > 100 }
        let breaks = loud.indices.dropFirst().filter { loud[$0] - loud[$0 - 1] > 16_000 }
        try #require(breaks.count == 1, "the demo's answers.wav should hold two answers")
        var recording = [Double](repeating: 0, count: demo.count)
        for range in [loud[0]...loud[breaks[0] - 1], loud[breaks[0]]...loud[loud.count - 1]] {
            recording.replaceSubrange(range, with: atBenchmarkLevel(Array(demo[range])))
        }
        let talkers = try talkerBabble(
            directory: babbleDirectory(repository: Self.repo, split: "dev"),
            seconds: Double(demo.count) / 16_000 + offset)
        let skip = Int(offset * 16_000)
        // talkerBabble's RMS is 1 000.
        let gain = benchmarkSpeechLevel / pow(10, 15.0 / 20) / 1_000
        let audio = scratch.file("answers.wav")
        try WAV.write(
            Audio(
                samples: recording.indices.map {
                    Int16(clamping: Int((recording[$0] + gain * Double(talkers[skip + $0])).rounded()))
                }, sampleRate: 16_000),
            to: audio)

        var point = try committedPoint()
        try #require(point["fillers"] as? String == "speech", "the committed rule counts within the speech")
        let walk = await replay(
            models: Self.repo + "/models", audio: audio, memory: scratch.file("memory.json"))
        try #require(walk.code == 0, "\(walk.err)")
        let heard = lines(walk.out, event: "heard").compactMap { $0["text"] as? String }
        #expect(lines(walk.out, event: "rejected").count == 1, "heard \(heard)")
        #expect(lines(walk.out, event: "confirmed").count == 1, "heard \(heard)")
        let confirmed = try MemoryFile.read(path: scratch.file("memory.json")).buildings.first?.confirmed
        #expect(confirmed?.label == "D" && confirmed?.source == .walker, "\(String(describing: confirmed))")

        point["fillers"] = "utterance"
        let overTheUtterance = try models(
            String(decoding: try JSONSerialization.data(withJSONObject: point), as: UTF8.self), in: scratch)
        let everywhere = await replay(models: overTheUtterance, audio: audio)
        try #require(everywhere.code == 0, "\(everywhere.err)")
        #expect(lines(everywhere.out, event: "confirmed").isEmpty, "\(everywhere.out)")
    }

    /// The built binary, a process of its own: in this one, the decoders and the synthesiser of
    /// tests running beside it share espeak-ng's and sphinxbase's process-wide state, and a
    /// margin of a few answers is not theirs to move.
    func pathfinder(_ argv: [String]) throws -> (code: Int32, out: String, err: String) {
        try BinaryTests.run(executable: try BinaryTests.binary(), argv)
    }

    /// `phrases` said by `pathfinder say`, each through sox with `effects` at 16 kHz mono, and
    /// `name`, one recording of them one after another: the parts and the recording. sox runs with
    /// `-R` (its dither from a fixed seed), so the recording is the same every run.
    func saidInOneRecording(
        _ phrases: [String], effects: [String], named name: String, in scratch: Scratch
    ) throws -> (parts: [String], recording: String) {
        var parts: [String] = []
        for (index, phrase) in phrases.enumerated() {
            let said = try pathfinder(["say", phrase, "--wav", scratch.file("\(index).wav")])
            try #require(said.code == 0, "\(said.err)")
            parts.append(scratch.file("\(index)-\(name)"))
            let converted = try run(
                "sox",
                ["-R", scratch.file("\(index).wav"), "-r", "16000", "-c", "1", parts[index]] + effects,
                install: "sox")
            try #require(converted == 0)
        }
        let recording = scratch.file(name)
        try #require(try run("sox", ["-R"] + parts + [recording], install: "sox") == 0)
        return (parts, recording)
    }

    /// `"rehearOwnMean"` in a models directory reaches `pathfinder listen`: five answers through
    /// a 450–4000 Hz band (sox `sinc`), one recording, heard again at 0.82× and 1.0× — by each
    /// utterance's own cepstral mean more of them are heard than by the running mean (4 and 2
    /// when measured), none as another answer. sox runs with `-R`: its dither from a fixed
    /// seed, so the recording is the same every run (without it, 4 and 3 or 4 and 4 by the draw).
    /// The session starts from the acoustic model's own mean, as when it was measured (stop 31):
    /// the running mean is then far from this channel. From the product's mean (stop 33) both
    /// hear 4 — the own mean's gain here was the session's start.
    @Test func rehearingByItsOwnMeanReachesListen() throws {
        let scratch = try Scratch()
        let answers: [(String, String)] = [
            ("여기 아니야", "notHere"), ("여기가 입구야", "thisIsIt"), ("여기 아니에요", "notHere"),
            ("여기가 입구예요", "thisIsIt"), ("입구 아니야", "notHere"),
        ]
        let (banded, recording) = try saidInOneRecording(
            answers.map(\.0), effects: ["sinc", "450-4000", "pad", "0.3", "1"], named: "band.wav", in: scratch
        )
        // Where each answer ends in the recording (seconds), to tell which one an utterance is.
        var ends: [Double] = []
        for file in banded {
            let audio = try WAV.read16kMono(path: file)
            ends.append((ends.last ?? 0) + Double(audio.samples.count) / 16_000)
        }
        let committed = try committedPoint()
        var heard: [Bool: [String]] = [:]
        for own in [false, true] {
            var point = committed
            point["rehear"] = [0.82, 1.0]
            if own { point["rehearOwnMean"] = true }
            let folder = try Scratch()
            let text = String(decoding: try JSONSerialization.data(withJSONObject: point), as: UTF8.self)
            let directory = try models(text, in: folder)
            try removeSessionsMean(in: directory)
            let listened = try pathfinder(["listen", "--wav", recording, "--models", directory])
            try #require(listened.code == 0, "\(listened.err)")
            var meanings: [String] = []
            for line in listened.out.split(separator: "\n") {
                let object = try #require(
                    try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                guard let meaning = object["meaning"] as? String else { continue }
                let start = try #require(object["start"] as? Double)
                let answer = try #require(ends.firstIndex { start < $0 }, "\(line)")
                #expect(meaning == answers[answer].1, "\(answers[answer].0) heard as \(line)")
                meanings.append(meaning)
            }
            heard[own] = meanings
        }
        let (running, byOwn) = (heard[false] ?? [], heard[true] ?? [])
        #expect(byOwn.count > running.count, "by the running mean \(running), by their own \(byOwn)")
    }

    /// The product's `-cmninit` (in `models/pathfinder.args`) reaches `pathfinder listen`, where a
    /// walker's session starts: eight answers, each in a recording of its own (one listening
    /// session each, as the daemon opens one each last stretch) after 5 s of white noise 10 dB
    /// below the speech. Started from the mean the dev split settles at (docs/speech.md, "A
    /// session's first mean, shipped"), more of them are heard than without that line — from the
    /// acoustic model's own `-cmninit`, Debian's 41.00,… — none as another answer.
    @Test func aSessionsInitialMeanReachesListen() throws {
        let scratch = try Scratch()
        let answers: [(String, String)] = [
            ("여기 아니야", "notHere"), ("여기가 입구야", "thisIsIt"), ("여기가 아니야", "notHere"),
            ("여기 맞아", "thisIsIt"), ("입구 아니야", "notHere"), ("입구 찾았어", "thisIsIt"),
            ("여기 아닌데", "notHere"), ("여기가 맞아", "thisIsIt"),
        ]
        var random = SeededRandom(seed: 7)
        // Uniform noise of RMS 3 277 / √10 (10 dB below the speech): a half-width of √3 × that.
        let width = 3_277.0 / 10.0.squareRoot() * 3.0.squareRoot()
        var recordings: [String] = []
        for (index, (phrase, _)) in answers.enumerated() {
            let said = try pathfinder(["say", phrase, "--wav", scratch.file("\(index).wav")])
            try #require(said.code == 0, "\(said.err)")
            let speech = atBenchmarkLevel(try WAV.read16kMono(path: scratch.file("\(index).wav")).samples)
            let clip = [Double](repeating: 0, count: 80_000) + speech + [Double](repeating: 0, count: 24_000)
            let noisy = clip.map { sample -> Int16 in
                Int16(
                    max(
                        -32_768,
                        min(32_767, (sample + Double.random(in: -width...width, using: &random)).rounded())))
            }
            recordings.append(scratch.file("\(index)-noisy.wav"))
            try WAV.write(Audio(samples: noisy, sampleRate: 16_000), to: recordings[index])
        }
        let committed = String(
            decoding: try Data(contentsOf: URL(fileURLWithPath: Self.repo + "/models/operating-point.json")),
            as: UTF8.self)
        var heard: [Bool: Int] = [:]
        for initial in [false, true] {
            let folder = try Scratch()
            let directory = try models(committed, in: folder)
            if !initial { try removeSessionsMean(in: directory) }
            var count = 0
            for (index, recording) in recordings.enumerated() {
                let listened = try pathfinder(["listen", "--wav", recording, "--models", directory])
                try #require(listened.code == 0, "\(listened.err)")
                let meanings = try listened.out.split(separator: "\n").compactMap { line in
                    try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])[
                        "meaning"]
                        as? String
                }
                #expect(
                    meanings.allSatisfy { $0 == answers[index].1 },
                    "\(answers[index].0) heard as \(listened.out)")
                if meanings.contains(answers[index].1) { count += 1 }
            }
            heard[initial] = count
        }
        let (own, settled) = (heard[false] ?? 0, heard[true] ?? 0)
        #expect(settled > own, "from the model's -cmninit \(own) of 8, from the product's \(settled)")
    }

    /// Answers placed after the walk are a mistake in the input, said as such (exit 2): before,
    /// `--audio-start inf` crashed on a conversion, and `--audio-start 100000000` or a `--heard`
    /// line at 1e8 s tried to allocate a tick for every second up to it (2 GB, then a crash).
    @Test(arguments: [
        (["--audio", "ANSWERS", "--audio-start", "inf"], #"--audio-start "inf" is not seconds ≥ 0"#),
        (
            ["--audio", "ANSWERS", "--audio-start", "100000000"],
            "from --audio-start 100000000.0: an answer at 100000006"
        ),
        (["--heard", "HUGE"], "an answer at 100000000.0 s is after the walk: the NMEA trace spans 513 s"),
    ])
    func answersAfterTheWalkExitTwo(_ flags: [String], _ named: String) throws {
        let scratch = try Scratch()
        let huge = try scratch.write("huge.tsv", "1e8\t여기 아니야\n")
        let demo = Self.repo + "/artifacts/demo/"
        let run = try pathfinder(
            ["replay", "--nmea", demo + "walk.nmea", "--destination", demo + "destination.json"]
                + flags.map { $0 == "HUGE" ? huge : $0 == "ANSWERS" ? demo + "answers.wav" : $0 })
        #expect(run.code == 2)
        #expect(run.err.contains(named), "\(run.err)")
    }

    @Test func modelsNeedsAudio() async {
        let run = await runPathfinder([
            "replay", "--nmea", Self.repo + "/artifacts/demo/walk.nmea", "--destination",
            Self.repo + "/artifacts/demo/destination.json", "--models", "/nowhere",
        ])
        #expect(run.code == 2)
        #expect(run.err.contains("--models needs --audio"), "\(run.err)")
    }
}
