import Foundation
import TestSupport
import Testing

/// `Scripts/adapt-model`'s arguments: a mistake is a usage error (exit 2) named before the
/// minutes of adaptation start, never found out at the end.
@Suite struct AdaptModelScriptTests {
    /// Runs the script with `argv`: its exit status and standard error.
    func adaptModel(_ argv: [String]) throws -> (code: Int32, err: String) {
        let script =
            URL(fileURLWithPath: modelsDirectory).deletingLastPathComponent().path + "/Scripts/adapt-model"
        // Should a check ever go missing, the script would start adapting: never into the
        // repository's model (a scratch --out first; the script takes the last), and killed
        // after 30 s.
        let scratch = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let result = try runCapturing(
            "/usr/bin/timeout", ["-s", "KILL", "30", "/bin/bash", script, "--out", scratch + "/model"] + argv)
        return (result.status, result.text)
    }

    @Test func mistakesExitTwoBeforeAnyWork() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "{}\n".write(toFile: directory + "/manifest.jsonl", atomically: true, encoding: .utf8)
        let cases: [([String], String)] = [
            (["--bogus"], "unknown option --bogus"),
            (["--seed", "x"], "--seed needs a number"),
            (["--channel-copies", "-1"], "--channel-copies needs a number"),
            (["--channel-copies"], "--channel-copies needs a number"),
            (["--babble-recordings", directory + "/none"], "--babble-recordings needs a folder"),
            (["--preprocess"], "--preprocess needs a command"),
            (["--noises", "babble,"], "--noises needs a list like babble,white, got 'babble,'"),
            (["--noises"], "--noises needs a list"),
            (["--voices", "m2"], "--voices needs a list like ko+m2,ko+klatt, got 'm2'"),
            (["--voices"], "--voices needs a list"),
            (["--preprocess", ""], "--preprocess needs a command"),
            (["--held-out", directory + "/none"], "--held-out \(directory)/none: no manifest.jsonl"),
            (
                ["--real", directory, "--held-out", directory + "/"],
                "--real and --held-out are the same folder"
            ),
        ]
        for (argv, message) in cases {
            let result = try adaptModel(argv)
            #expect(result.code == 2, "\(argv): \(result.err)")
            #expect(result.err.contains(message), "\(argv): \(result.err)")
            // Named before any work: no build, no export.
            #expect(!result.err.contains("building VoiceEval"), "\(argv): \(result.err)")
        }
    }

    /// Runs the script with `argv` alone (no scratch `--out` of its own): status and standard error.
    func script(_ argv: [String], environment: [String: String] = [:]) throws -> (code: Int32, err: String) {
        let script =
            URL(fileURLWithPath: modelsDirectory).deletingLastPathComponent().path + "/Scripts/adapt-model"
        let result = try runCapturing(
            "/usr/bin/timeout", ["-s", "KILL", "30", "/bin/bash", script] + argv, environment: environment)
        return (result.status, result.text)
    }

    /// A folder of `pathfinder record`'s manifest naming `speakers` (the script reads no audio
    /// before it adapts).
    func manifest(_ speakers: [String], in directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try speakers.enumerated().map {
            #"{"file": "\#($0.element)-\#($0.offset).wav", "text": "여기 아니야", "speaker": "\#($0.element)"}"#
                + "\n"
        }.joined().write(toFile: directory + "/manifest.jsonl", atomically: true, encoding: .utf8)
    }

    /// A person kept out who would be adapted on too — the kept-out folder through a link, a copy
    /// of it, or the same name in a second `--real` folder — or whom the installed model was
    /// adapted on, is refused at once naming them, before VoiceEval is built (before: a link or
    /// copy got through, and 212 s later the check failed suggesting --force; a second `--real`
    /// replaced the first).
    @Test func aKeptOutPersonWhoIsAdaptedOnIsRefusedAtOnce() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try manifest(["grandma", "uncle"], in: directory + "/voices")
        try manifest(["dad"], in: directory + "/dad")
        try manifest(["uncle"], in: directory + "/copy")
        try FileManager.default.createSymbolicLink(
            atPath: directory + "/link", withDestinationPath: directory + "/voices")
        let model = directory + "/model"
        let cases: [([String], String)] = [
            (["--real", directory + "/voices", "--held-out", directory + "/link"], "are the same folder"),
            (
                [
                    "--real", directory + "/voices", "--real", directory + "/dad", "--held-out",
                    directory + "/copy",
                ],
                "--held-out \(directory)/copy: uncle also in a --real folder"
            ),
        ]
        for (argv, message) in cases {
            let result = try script(["--out", model] + argv)
            #expect(result.code == 2, "\(argv): \(result.err)")
            #expect(result.err.contains(message), "\(argv): \(result.err)")
            #expect(!result.err.contains("building VoiceEval"), "\(argv): \(result.err)")
        }
        try FileManager.default.createDirectory(atPath: model, withIntermediateDirectories: true)
        try "uncle\n".write(toFile: model + "/speakers.txt", atomically: true, encoding: .utf8)
        let earlier = try script([
            "--out", model, "--real", directory + "/dad", "--held-out", directory + "/copy",
        ])
        #expect(earlier.code == 2, "\(earlier.err)")
        #expect(
            earlier.err.contains(
                "the installed model was adapted on uncle (\(model)/speakers.txt), so it hears them better than a stranger"
            ),
            "\(earlier.err)")
        #expect(!earlier.err.contains("building VoiceEval"), "\(earlier.err)")
    }

    /// `--restore` puts the model it replaced back in one rename and keeps the one it leaves in
    /// DIR.rejected; run again, it refuses (no DIR.previous) and the model stays (before, the
    /// README's `rm -rf DIR && mv DIR.previous DIR` run twice deleted the only model).
    @Test func restorePutsThePreviousModelBackOnce() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let model = directory + "/en-us-adapted"
        for (folder, content) in [(model, "new"), (model + ".previous", "old")] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try content.write(toFile: folder + "/mdef", atomically: true, encoding: .utf8)
        }
        let back = try script(["--out", model, "--restore"])
        #expect(back.code == 0, "\(back.err)")
        #expect(try String(contentsOfFile: model + "/mdef", encoding: .utf8) == "old")
        #expect(try String(contentsOfFile: model + ".rejected/mdef", encoding: .utf8) == "new")
        #expect(!FileManager.default.fileExists(atPath: model + ".previous"))
        #expect(
            back.err.contains("Scripts/install") && back.err.contains("systemctl --user restart pathfinder"),
            "\(back.err)")

        let again = try script(["--out", model, "--restore"])
        #expect(again.code == 1, "\(again.err)")
        #expect(again.err.contains("no \(model).previous to go back to"), "\(again.err)")
        #expect(try String(contentsOfFile: model + "/mdef", encoding: .utf8) == "old")

        let mixed = try script(["--out", model, "--restore", "--force"])
        #expect(mixed.code == 2, "\(mixed.err)")
        #expect(mixed.err.contains("--restore takes only --out"), "\(mixed.err)")
    }

    /// Folders named in `models`, each with an `mdef` holding its name.
    func models(_ models: [(String, String)]) throws {
        for (folder, content) in models {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try content.write(toFile: folder + "/mdef", atomically: true, encoding: .utf8)
        }
    }

    func mdef(_ folder: String) -> String? {
        try? String(contentsOfFile: folder + "/mdef", encoding: .utf8)
    }

    /// A `--restore` stopped just before or just after its exchange, run again (or followed by an
    /// adaptation's run), ends as one run that was never stopped: the old model in DIR, the one it
    /// went back from in DIR.rejected (before: stopped after the exchange, the re-run swapped
    /// back, putting the rejected model in again while saying it had restored the old one).
    @Test(arguments: ["before", "after"])
    func aStoppedRestoreIsFinishedNeverUndone(stop: String) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let model = directory + "/en-us-adapted"
        for rerun in [["--restore"], ["--real", directory + "/voices", "--held-out", directory + "/voices"]] {
            try? FileManager.default.removeItem(atPath: model + ".rejected")
            try models([(model, "new"), (model + ".previous", "old")])
            try manifest(["grandma"], in: directory + "/voices")
            let stopped = try script(
                ["--out", model, "--restore"], environment: ["ADAPT_MODEL_TEST_STOP": stop])
            #expect(stopped.code == 9, "\(stopped.err)")
            let again = try script(["--out", model] + rerun)
            #expect(again.code == (rerun == ["--restore"] ? 0 : 2), "\(rerun): \(again.err)")
            #expect(!FileManager.default.fileExists(atPath: model + ".swap"), "\(rerun)")
            if rerun != ["--restore"] && stop == "before" {
                // Nothing had moved: nothing to finish, the next --restore goes back as ever.
                #expect(mdef(model) == "new", "\(again.err)")
                #expect(mdef(model + ".previous") == "old", "\(again.err)")
                continue
            }
            #expect(mdef(model) == "old", "\(rerun): \(again.err)")
            #expect(mdef(model + ".rejected") == "new", "\(rerun): \(again.err)")
            #expect(!FileManager.default.fileExists(atPath: model + ".previous"), "\(rerun)")
            let twice = try script(["--out", model, "--restore"])
            #expect(twice.code == 1, "\(twice.err)")
            #expect(mdef(model) == "old")
        }
    }

    /// A model that failed its check waits in DIR.rejected (for --force); `--restore` needs the
    /// name for the model it leaves, and says it discards the one there (before: it went unsaid).
    @Test func restoreSaysItDiscardsTheRejectedModel() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let model = directory + "/en-us-adapted"
        try models([(model, "new"), (model + ".previous", "old"), (model + ".rejected", "failed")])
        let back = try script(["--out", model, "--restore"])
        #expect(back.code == 0, "\(back.err)")
        #expect(back.err.contains("discarded the model that was in \(model).rejected"), "\(back.err)")
        #expect(mdef(model) == "old" && mdef(model + ".rejected") == "new", "\(back.err)")
    }

    /// `--out DIR/` is DIR: its DIR.previous, DIR.rejected (before: `--restore --out DIR/` looked
    /// for DIR/.previous, and an install exchanged DIR/.tmp, inside the old model, with DIR).
    @Test func aTrailingSlashOnOutIsTheSameFolder() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let model = directory + "/en-us-adapted"
        try models([(model, "new"), (model + ".previous", "old")])
        let back = try script(["--out", model + "//", "--restore"])
        #expect(back.code == 0, "\(back.err)")
        #expect(mdef(model) == "old" && mdef(model + ".rejected") == "new", "\(back.err)")
    }

    /// The same person in two `--real` folders — one folder twice (through a link) or a copy of
    /// it — is refused at once, naming both folders as given (before: the same folder was refused
    /// only after about a minute of building and exporting, by VoiceEval, with the link's name
    /// lost; a copy was adapted on twice).
    /// `--real` without `--held-out` warns at the start, before any work, that everyone in it
    /// is adapted on and no one is left to measure the gain on, and how to keep one out
    /// (before, it installed the model without a word, and `voice-eval --real` of the folder
    /// then exited 1, "every speaker … was used for adaptation"); with `--held-out`, no warning.
    /// What it does is unchanged: here the run goes on to refuse a person in two folders.
    @Test func realWithoutHeldOutWarnsThatNoOneIsKeptOut() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try manifest(["mom"], in: directory + "/voices")
        try manifest(["mom"], in: directory + "/copy")
        try manifest(["uncle"], in: directory + "/kept-out")
        let warning =
            "adapt-model: warning: no --held-out: everyone in --real is adapted on, so no one is left to measure the gain on"
        let unkept = try adaptModel(["--real", directory + "/voices", "--real", directory + "/copy"])
        #expect(unkept.code == 2, "\(unkept.err)")
        #expect(unkept.err.hasPrefix(warning), "\(unkept.err)")
        #expect(
            unkept.err.contains("--held-out DIR") && unkept.err.contains("Teaching it your family's voices"),
            "\(unkept.err)")
        #expect(unkept.err.contains("both hold mom"), "\(unkept.err)")
        let kept = try adaptModel([
            "--real", directory + "/voices", "--real", directory + "/copy", "--held-out",
            directory + "/kept-out",
        ])
        #expect(kept.code == 2 && kept.err.contains("both hold mom"), "\(kept.err)")
        #expect(!kept.err.contains("warning"), "\(kept.err)")
    }

    @Test func aPersonInTwoRealFoldersIsRefusedAtOnce() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try manifest(["grandma", "uncle"], in: directory + "/voices")
        try manifest(["uncle", "aunt"], in: directory + "/copy")
        try manifest(["dad"], in: directory + "/dad")
        try FileManager.default.createSymbolicLink(
            atPath: directory + "/link", withDestinationPath: directory + "/voices")
        let cases: [([String], String)] = [
            (
                [
                    "--real", directory + "/voices", "--real", directory + "/dad", "--real",
                    directory + "/link",
                ],
                "--real \(directory)/voices and --real \(directory)/link are the same folder"
            ),
            (
                ["--real", directory + "/voices", "--real", directory + "/copy"],
                "--real \(directory)/voices and --real \(directory)/copy both hold uncle"
            ),
        ]
        for (argv, message) in cases {
            let result = try adaptModel(argv)
            #expect(result.code == 2, "\(argv): \(result.err)")
            #expect(result.err.contains(message), "\(argv): \(result.err)")
            #expect(!result.err.contains("building VoiceEval"), "\(argv): \(result.err)")
        }
    }
}
