import Foundation
import TestSupport
import Testing

/// `VoiceEval --real` and `--check-model --held-out` on a family's folders (README, "Teaching
/// it your family's voices"): one folder per person, the person kept out scored before and
/// after adapting.
extension VoiceEvalFlagTests {
    /// A folder of `pathfinder record` holding `speaker` saying `sentences` (espeak-ng's
    /// `ko+m3` standing in for the person).
    func recordings(of speaker: String, _ sentences: [String], in directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var manifest = ""
        for (index, text) in sentences.enumerated() {
            let file = "\(speaker)-1-\(index).wav"
            try #require(
                try TestSupport.run(
                    "espeak-ng", ["-v", "ko+m3", "-s", "150", "-w", directory + "/" + file, text],
                    install: "espeak-ng") == 0)
            manifest +=
                #"{"file": "\#(file)", "text": "\#(text)", "speaker": "\#(speaker)", "device": "espeak-ng"}"#
                + "\n"
        }
        try manifest.write(toFile: directory + "/manifest.jsonl", atomically: true, encoding: .utf8)
    }

    /// A models directory like the repository's (every file linked), whose adapted model was
    /// adapted on `speakers` (its `speakers.txt`).
    func models(adaptedOn speakers: [String], in directory: String) throws -> String {
        let models = directory + "/models", adapted = models + "/en-us-adapted"
        try FileManager.default.createDirectory(atPath: adapted, withIntermediateDirectories: true)
        for file in try FileManager.default.contentsOfDirectory(atPath: modelsDirectory)
        where file != "en-us-adapted" {
            try FileManager.default.createSymbolicLink(
                atPath: models + "/" + file, withDestinationPath: modelsDirectory + "/" + file)
        }
        for file in try FileManager.default.contentsOfDirectory(atPath: modelsDirectory + "/en-us-adapted")
        where file != "speakers.txt" {
            try FileManager.default.createSymbolicLink(
                atPath: adapted + "/" + file, withDestinationPath: modelsDirectory + "/en-us-adapted/" + file)
        }
        try (speakers.map { $0 + "\n" }.joined()).write(
            toFile: adapted + "/speakers.txt", atomically: true, encoding: .utf8)
        return models
    }

    /// `--real A --real B` scores both folders (before: only the last, unsaid), with a line for
    /// each person; the same folder twice, through a link, is bad input naming both paths.
    @Test func severalRealFoldersAreAllScoredEachPersonOnALine() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try recordings(of: "mom", ["여기 아니야", "여기가 입구야", "거기 아니야"], in: directory + "/mom")
        try recordings(of: "dad", ["입구 찾았어", "여기 아냐"], in: directory + "/dad")
        let flags = ["--conditions", "clean", "--hours", "0"]
        let both = try run(
            ["--real", directory + "/mom", "--real", directory + "/dad"] + flags, standardOutput: true)
        try #require(both.code == 0, "\(both.out)")
        #expect(both.out.contains(": 2 speakers (0 items of adaptation speakers left out)"), "\(both.out)")
        #expect(both.out.contains("Items: 4 phrase, 1 near-miss"), "\(both.out)")
        #expect(both.out.contains("By speaker, over 1 condition:"), "\(both.out)")
        #expect(both.out.contains("- dad: answers acted on "), "\(both.out)")
        #expect(both.out.contains(" of 2 ("), "\(both.out)")
        #expect(both.out.contains("- mom: answers acted on "), "\(both.out)")
        #expect(both.out.contains("near-misses acted on 0 of 1 (0 %)"), "\(both.out)")

        try FileManager.default.createSymbolicLink(
            atPath: directory + "/mom-link", withDestinationPath: directory + "/mom")
        let twice = try run(["--real", directory + "/mom", "--real", directory + "/mom-link"] + flags)
        #expect(twice.code == 2)
        #expect(
            twice.err.contains("\(directory)/mom-link: the same folder as \(directory)/mom, given twice"),
            "\(twice.err)")
    }

    /// Each person's line says how many of their "여기 안이야" were acted on, as the totals
    /// do on a line of their own, the same count (before, the person's line left it out: a
    /// person whose "여기 안이야" was taken for "여기 아니야" looked no different).
    @Test func eachPersonsLineCountsTheirAnIya() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try recordings(of: "mom", ["여기 아니야", "여기 안이야", "거기 아니야"], in: directory + "/mom")
        let result = try run(
            ["--real", directory + "/mom", "--conditions", "clean", "--hours", "0"], standardOutput: true)
        try #require(result.code == 0, "\(result.out)")
        let row = try #require(
            result.out.split(separator: "\n").first { $0.hasPrefix("| acted on: 여기 안이야 |") }, "\(result.out)")
        // "| acted on: 여기 안이야 | 0 % (0/1) |": the totals' count of 1.
        let acted = try #require(row.split(separator: "(").last?.split(separator: "/").first, "\(row)")
        let person = try #require(
            result.out.split(separator: "\n").first { $0.hasPrefix("- mom: ") }, "\(result.out)")
        #expect(person.contains("near-misses acted on "), "\(person)")
        #expect(
            person.hasSuffix(", 여기 안이야 acted on \(acted) of 1 (\(acted == "0" ? "0" : "100") %)"), "\(person)"
        )
    }

    /// After adapting on mom, the README's step 3 again (`--real` of both folders) scores the
    /// person kept out and names who was left out and why; a folder of adapted people alone
    /// says what to score instead (before: "every speaker was used for adaptation; nothing to
    /// test", and no way to compare).
    @Test func realLeavesOutTheAdaptedAndScoresTheKeptOut() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try recordings(of: "mom", ["여기 아니야", "여기가 입구야"], in: directory + "/voices")
        try recordings(of: "uncle", ["입구 찾았어", "여기 아냐", "거기 아니야"], in: directory + "/kept-out")
        let models = try models(adaptedOn: ["mom"], in: directory)
        let flags = ["--models", models, "--conditions", "clean", "--hours", "0"]
        let after = try run(
            ["--real", directory + "/voices", "--real", directory + "/kept-out"] + flags, standardOutput: true
        )
        try #require(after.code == 0, "\(after.out)")
        #expect(
            after.out.contains(
                ": 1 speaker (2 items of adaptation speakers left out: mom, listed in \(models)/en-us-adapted/speakers.txt)"
            ), "\(after.out)")
        #expect(after.out.contains("- uncle: answers acted on "), "\(after.out)")
        #expect(!after.out.contains("- mom:"), "\(after.out)")

        let adaptedOnly = try run(["--real", directory + "/voices"] + flags)
        #expect(adaptedOnly.code == 1)
        #expect(
            adaptedOnly.err.contains("every speaker (mom) was used for adaptation")
                && adaptedOnly.err.contains("score the person you kept out"), "\(adaptedOnly.err)")
    }

    /// A manifest and a `speakers.txt` saved with Windows line endings ("\r\n"; the last
    /// line of the manifest ended by a lone "\r") are read line by line (before, "\r\n" was
    /// no line break to the readers: the manifest was refused, "line 1: not a JSON object",
    /// and a `speakers.txt` of "mom\r\n" named no one, so mom, adapted on, was scored).
    @Test func filesWithWindowsLineEndingsAreReadLineByLine() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for (speaker, sentences) in [("mom", ["여기 아니야", "여기가 입구야"]), ("uncle", ["입구 찾았어", "거기 아니야"])] {
            let folder = directory + "/" + speaker
            try recordings(of: speaker, sentences, in: folder)
            let lines = try String(contentsOfFile: folder + "/manifest.jsonl", encoding: .utf8)
                .split(separator: "\n")
            try Data((lines.joined(separator: "\r\n") + "\r").utf8).write(
                to: URL(fileURLWithPath: folder + "/manifest.jsonl"))
        }
        let described = try run(
            ["--describe", "--real", directory + "/mom", "--real", directory + "/uncle"], standardOutput: true
        )
        try #require(described.code == 0, "\(described.out)")
        for sentence in ["여기 아니야", "여기가 입구야", "입구 찾았어", "거기 아니야"] {
            #expect(described.out.contains("real adapted \(sentence): "), "\(sentence): \(described.out)")
        }
        let models = try models(adaptedOn: [], in: directory)
        try Data("mom\r\n".utf8).write(to: URL(fileURLWithPath: models + "/en-us-adapted/speakers.txt"))
        let scored = try run(
            [
                "--real", directory + "/mom", "--real", directory + "/uncle", "--models", models,
                "--conditions",
                "clean", "--hours", "0",
            ], standardOutput: true)
        try #require(scored.code == 0, "\(scored.out)")
        #expect(
            scored.out.contains("(2 items of adaptation speakers left out: mom, listed in "), "\(scored.out)")
        #expect(!scored.out.contains("- mom:") && scored.out.contains("- uncle:"), "\(scored.out)")
    }

    /// `--held-out` is read before a fixture is heard: a missing folder, or a person the
    /// installed model was adapted on (its figures on them would not be honest), is bad input
    /// at once, and nothing is decoded (before: after the 13 s of fixtures, their results
    /// unshown; the installed model's person was refused as "used for adaptation").
    @Test func heldOutFoldersAreReadBeforeTheFixtures() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let committed = modelsDirectory + "/en-us-adapted"
        let missing = try run(
            ["--check-model", committed, "--held-out", directory + "/none"], standardOutput: true)
        #expect(missing.code == 2)
        #expect(!missing.out.contains("## model check"), "\(missing.out)")
        let named = try run(["--check-model", committed, "--held-out", directory + "/none"])
        #expect(named.err.contains("\(directory)/none/manifest.jsonl: not found"), "\(named.err)")

        try recordings(of: "uncle", ["여기 아니야"], in: directory + "/kept-out")
        let models = try models(adaptedOn: ["uncle"], in: directory)
        let demo =
            URL(fileURLWithPath: modelsDirectory).deletingLastPathComponent().path
            + "/artifacts/demo/answers.wav"
        let argv = [
            "--models", models, "--check-model", committed, "--demo", demo, "--held-out",
            directory + "/kept-out",
        ]
        let earlier = try run(argv)
        #expect(earlier.code == 2)
        #expect(
            earlier.err.contains(
                "uncle adapted on by the installed model (\(models)/en-us-adapted/speakers.txt), which would hear them better than a stranger: no honest comparison"
            ), "\(earlier.err)")
        #expect(earlier.err.contains("git checkout models/"), "\(earlier.err)")
        #expect(!(try run(argv, standardOutput: true)).out.contains("## model check"))
    }

    /// Each recorded sentence is adapted on as words of the grammar: the three near-misses
    /// `pathfinder record` asks for that are no decoy (the test split's) are spelled in its
    /// syllable fillers (before: "no transcript for 여기 가자, 이 길 아니야, 입구 앞이야", on
    /// standard output, and never adapted on); "여기 안이야" is not adapted on.
    @Test func everyRecordedNearMissIsAdaptedOn() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try recordings(
            of: "mom", ["여기 아니야", "거기 아니야", "여기 가자", "이 길 아니야", "입구 앞이야", "여기 안이야"], in: directory)
        let result = try run(["--describe", "--real", directory], standardOutput: true)
        try #require(result.code == 0, "\(result.out)")
        for line in [
            "real adapted 여기 아니야: 여기_아니야", "real adapted 거기 아니야: d_거기_아니야",
            "real adapted 여기 가자: d_여기 f_ga f_ja", "real adapted 이 길 아니야: f_i f_gil d_아니야",
            "real adapted 입구 앞이야: d_입구 f_a f_pi f_ya", "real adapted 여기 안이야: no (여기 안이야)",
        ] {
            #expect(result.out.contains(line + "\n"), "\(line): \(result.out)")
        }
    }
}
