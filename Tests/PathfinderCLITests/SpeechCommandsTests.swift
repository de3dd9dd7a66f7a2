import Foundation
import Glibc
import Speech
import TestSupport
import Testing

@testable import PathfinderCLI

/// `pathfinder say` and `pathfinder listen` in-process, on real espeak-ng and PocketSphinx
/// (the model is found above the test executable, as `.build/release/pathfinder` finds it).
@Suite("say and listen", .serialized)
struct SpeechCommandsTests {

    func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "pathfinder-cli-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// The issue's "done when": a prompt round-trips and is *not* an answer; an answer is.
    @Test(arguments: [("다른 입구로 안내할게", nil), ("여기가 입구야", "thisIsIt"), ("여기 아니야", "notHere")])
    func sayThenListen(_ text: String, _ meaning: String?) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let wav = directory + "/x.wav"
        let said = await runPathfinder(["say", text, "--wav", wav])
        try #require(said.code == 0, "\(said.err)")
        let heard = await runPathfinder(["listen", "--wav", wav])
        try #require(heard.code == 0, "\(heard.err)")
        let lines = heard.out.split(separator: "\n")
        let meanings = try lines.map { line -> String? in
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["start"] is Double && object["end"] is Double && object["heard"] is String)
            return object["meaning"] as? String
        }
        if let meaning {
            #expect(meanings == [meaning], "\(heard.out)")
        } else {
            #expect(meanings.allSatisfy { $0 == nil }, "\(heard.out)")
            #expect(heard.out.contains("\"meaning\":null") || heard.out.isEmpty)
        }
    }

    /// `listen --mic` on a capture device that gives every sample 0 (ALSA's null, as a muted
    /// microphone does) says so on standard error once ten seconds of it have come, and hears
    /// nothing.
    @Test func aMicrophoneWithNoSoundIsNamed() async throws {
        let result = await runPathfinder(["listen", "--mic", "--device", "null", "--seconds", "12"])
        #expect(result.code == 0, "\(result.err)")
        #expect(result.out.isEmpty, "\(result.out)")
        let line =
            "pathfinder listen: microphone null: no sound at all for 10 s (every sample 0): muted, or the wrong capture device?\n"
        #expect(result.err.components(separatedBy: line).count == 2, "\(result.err)")
    }

    @Test func badInputExitsTwoNamingTheFile() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let empty = directory + "/empty.wav"
        _ = FileManager.default.createFile(atPath: empty, contents: Data())
        let listened = await runPathfinder(["listen", "--wav", empty])
        #expect(listened.code == 2)
        #expect(listened.err.contains(empty) && listened.err.contains("empty"))

        #expect(await runPathfinder(["listen"]).code == 2)
        #expect(await runPathfinder(["listen", "--wav", empty, "--mic"]).code == 2)
        #expect(await runPathfinder(["listen", "--wav", empty, "--seconds", "3"]).code == 2)
        #expect(await runPathfinder(["say"]).code == 2)
        #expect(await runPathfinder(["say", "안녕", "--rate", "fast"]).err.contains("\"fast\""))
        let missingModels = await runPathfinder([
            "listen", "--wav", empty, "--models", directory + "/nowhere",
        ])
        // A --models folder without a model is bad input (2), as a bad --wav is; no model
        // where it is installed stays a run-time failure (1).
        #expect(missingModels.code == 2 && missingModels.err.contains("--models \(directory)/nowhere"))
    }

    /// `say`'s bad input exits 2 in words; text that starts with a number is text (the help's
    /// own example "-1층" was an unknown option), and text with nothing to speak is not written
    /// as a silent file with exit 0.
    @Test func sayTakesItsOwnExampleAndRefusesWhatItCannotSpeak() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let basement = await runPathfinder(["say", "-1층", "--wav", directory + "/b.wav"])
        #expect(basement.code == 0, "\(basement.err)")
        #expect(try WAV.read(path: directory + "/b.wav").duration > 0.5)
        for text in ["😀🚪", "..."] {
            let nothing = await runPathfinder(["say", text, "--wav", directory + "/n.wav"])
            #expect(nothing.code == 2)
            #expect(nothing.err.contains("nothing in \"\(text)\" that espeak-ng can speak"), "\(nothing.err)")
            #expect(!FileManager.default.fileExists(atPath: directory + "/n.wav"))
        }
        let voice = await runPathfinder(["say", "여기", "--wav", directory + "/v.wav", "--voice", "nosuch"])
        #expect(voice.code == 2)
        #expect(voice.err.contains(#"no voice "nosuch""#), "\(voice.err)")
        let folder = await runPathfinder(["say", "여기", "--wav", directory])
        #expect(folder.code == 2)
        #expect(folder.err.contains("\(directory): cannot write: is a directory"), "\(folder.err)")
    }

    /// `say --device` on a loudspeaker that stalls without an error (ALSA's file plugin into a
    /// FIFO nobody reads): exit 1 within the open's 5 s deadline, naming the device and the
    /// stall. Before, `say` hung for good.
    @Test func sayOnAStalledDeviceExitsOneNamingIt() throws {
        let home = try Scratch()
        try #require(mkfifo(home.file("stuck.fifo"), 0o600) == 0)
        _ = try home.write(
            ".asoundrc",
            """
            pcm.stuck {
                type file
                slave.pcm "null"
                file "\(home.file("stuck.fifo"))"
                format "raw"
            }

            """)
        let exe = try BuiltExecutable.pathfinder().path
        let result = try home.sh("HOME='\(home.path)' timeout 30 '\(exe)' say 입구까지 삼십 미터 --device stuck")
        #expect(result.code == 1, "exit \(result.code): \(result.err)")
        #expect(
            result.err.hasPrefix("pathfinder say: sound device stuck: stalled: not open after 5 s"),
            "\(result.err)")
    }
}
