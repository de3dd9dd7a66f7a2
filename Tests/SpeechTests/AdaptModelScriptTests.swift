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
}
