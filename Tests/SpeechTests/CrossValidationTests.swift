import Foundation
import Testing

extension VoiceEvalFlagTests {
    /// One saved first-turn observation of `voice` saying `text`, heard as `meaning` at
    /// `confidence` or as nothing.
    func said(
        _ kind: String, _ text: String, by voice: String, expected: String? = nil, heardAs meaning: String?,
        _ confidence: Double = 0
    ) -> String {
        observation(kind, expected, meaning, confidence)
            .replacingOccurrences(of: #""text": "t""#, with: #""text": "\#(text)""#)
            .replacingOccurrences(of: #""voice": "v""#, with: #""voice": "\#(voice)""#)
    }

    /// Four voices each say "여기 아니야" twice at 0.9 and twice at 0.8, "여기가 입구야" twice at
    /// 0.9, and four near-misses, of which "a" is heard as "여기 아니야" at 0.85.
    func unheardNearMissRun() -> [String] {
        var observations: [String] = []
        for voice in ["v1", "v2", "v3", "v4"] {
            for confidence in [0.9, 0.9, 0.8, 0.8] {
                observations.append(
                    said("phrase", "여기 아니야", by: voice, expected: "notHere", heardAs: "notHere", confidence))
            }
            for _ in 0..<2 {
                observations.append(
                    said("phrase", "여기가 입구야", by: voice, expected: "thisIsIt", heardAs: "thisIsIt", 0.9))
            }
            observations.append(said("near-miss", "a", by: voice, heardAs: "notHere", 0.85))
            for text in ["b", "c", "d"] {
                observations.append(said("near-miss", text, by: voice, heardAs: nil))
            }
        }
        return observations
    }

    /// `unheardNearMissRun` saved as a run labelled `label`, cross-validated in `mode` with no
    /// near-miss budget: VoiceEval's exit status and its standard output (or error).
    func crossValidated(
        _ mode: String, label: String = "dev synthetic", standardOutput: Bool = true
    ) throws -> (code: Int32, err: String, out: String) {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let saved = directory + "/run.json"
        try savedRun(unheardNearMissRun(), label: label).write(
            toFile: saved, atomically: true, encoding: .utf8)
        return try run(
            ["--rescore", saved, "--cross-validate", mode, "--near-miss-budget", "0"],
            standardOutput: standardOutput)
    }

    /// `--cross-validate halves`: a point tuned without a near-miss sentence acts on it when a
    /// voice it was not tuned on says it, and the held-out figures show it though the tuning
    /// halves show none (`unheardNearMissRun`). The halves: voices v1, v3 | v2, v4; sentences a, c | b, d. Fold 1 tunes with "a" (act above
    /// 0.85) and hears no near-miss of b, d; fold 2 tunes without it (act 0.8) and acts on "a" of
    /// v1 and v3: 2 of the 8 held-out near-misses, 0 of the 8 tuned on.
    @Test func crossValidationShowsTheUnheardNearMiss() throws {
        let result = try crossValidated("halves")
        #expect(result.code == 0)
        #expect(result.out.contains("### fold 1: tuned on 2 voices and near-misses a, c"), "\(result.out)")
        #expect(result.out.contains("notHere: act 0.900000"), "\(result.out)")
        #expect(result.out.contains("notHere: act 0.800000"), "\(result.out)")
        // Fold 2's held-out line names the sentence it did not learn, fold 1 has none.
        #expect(
            result.out.components(separatedBy: "held-out near-misses acted on:").count == 2, "\(result.out)")
        #expect(result.out.contains("held-out near-misses acted on: a ×2\n"), "\(result.out)")
        #expect(
            result.out.contains("near-misses acted on: 0.0 % where tuned (0/8), 25.0 % held out (2/8)"),
            "\(result.out)")
        // Fold 1's held-out answers: v2 and v4 at act 0.9, 2 of 4 refusals and both confirmations
        // each; fold 2's: v1 and v3 at act 0.8, all 6 each. 8 + 12 of 24.
        #expect(result.out.contains("held out, all folds: two-turn recall 83.3 % (20/24"), "\(result.out)")

        // A test split's run is refused: its near-misses are never tuned on, not even in folds.
        let refused = try crossValidated("halves", label: "test synthetic", standardOutput: false)
        #expect(refused.code == 2)
        #expect(
            refused.err.contains("--cross-validate chooses on the development split only"), "\(refused.err)")
    }

    /// `--cross-validate sentences`: one fold per near-miss sentence. The same run: the fold
    /// that holds "a" out tunes `act` down to 0.8 and acts on "a" for all four voices; every other
    /// fold tunes with "a" (act 0.9) and acts on none of its held-out sentence. 4 of the 16
    /// near-misses held out, 0 where tuned.
    @Test func leavingOneSentenceOutShowsItToo() throws {
        let result = try crossValidated("sentences")
        #expect(result.code == 0)
        #expect(result.out.contains("### fold 1: tuned on everything but \"a\""), "\(result.out)")
        #expect(result.out.contains("### fold 4: tuned on everything but \"d\""), "\(result.out)")
        #expect(!result.out.contains("### fold 5"), "\(result.out)")
        #expect(result.out.contains("held-out near-misses acted on: a ×4\n"), "\(result.out)")
        #expect(
            result.out.contains(
                "held out (\"a\", every voice): near-miss acted 100.0 % (4/4; at the first turn 4)\n"),
            "\(result.out)")
        #expect(
            result.out.components(separatedBy: "held-out near-misses acted on:").count == 2, "\(result.out)")
        #expect(
            result.out.contains("near-misses acted on: 0.0 % where tuned (0/48), 25.0 % held out (4/16)"),
            "\(result.out)")
    }

    @Test(arguments: [
        (["--cross-validate", "sentences"], "--cross-validate belongs to --rescore"),
        (
            ["--rescore", "run.json", "--cross-validate", "thirds"],
            "--cross-validate: \"thirds\" is not halves or sentences"
        ),
        (["--rescore", "run.json", "--cross-validate"], "--cross-validate needs a value"),
        (
            ["--rescore", "run.json", "--cross-validate", "halves", "--tune", "op.json"],
            "--cross-validate chooses no point"
        ),
    ])
    func aMisplacedCrossValidateExitsTwo(_ argv: [String], _ named: String) throws {
        let result = try run(argv)
        #expect(result.code == 2)
        #expect(result.err.contains(named), "\(result.err)")
    }
}
