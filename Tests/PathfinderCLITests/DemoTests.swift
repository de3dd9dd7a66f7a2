import Arrival
import Foundation
import Glibc
import PathfinderCLI
import Speech
import Storage
import Testing

@Suite("pathfinder demo and replay")
struct DemoTests {
    static func golden() throws -> String {
        let url = try #require(
            Bundle.module.url(forResource: "Fixtures/demo-events.jsonl", withExtension: nil))
        return try String(contentsOf: url, encoding: .utf8)
    }

    /// The memory file `pathfinder demo` names on its "memory: " line (in a fresh temporary
    /// directory, kept for the user to look at).
    static func demoMemory(_ text: String) -> String? {
        text.split(separator: "\n").first { $0.hasPrefix("memory: ") }.map {
            String($0.dropFirst("memory: ".count).prefix { $0 != " " })
        }
    }

    /// The demo keeps its memory for the user; a test removes the directory it made.
    static func removeDemoDirectory(of memory: String?) {
        guard let memory, memory.contains("/pathfinder-demo-") else { return }
        try? FileManager.default.removeItem(atPath: (memory as NSString).deletingLastPathComponent)
    }

    /// Real espeak-ng, real PocketSphinx on the bundled WAV, real memory file.
    @Test func demo_runsToTheEnd_matchesTheGoldenLog_andRemembersTheDoor() async throws {
        let scratch = try Scratch()
        let wavs = scratch.file("prompts")
        let captured = CapturedConsole()
        let code = await Pathfinder.main(["demo", "--json", "--speak-wav", wavs], console: captured.console)
        #expect(code == 0, "\(captured.err)")
        #expect(captured.out == (try Self.golden()))
        // The doors came from the bundled door index, the product's own path.
        #expect(captured.err.contains("doors from the door index "), "\(captured.err)")
        #expect(captured.err.contains("artifacts/doors/helsinki.db: building way 28903274, 3 doors"))
        // The memory file it names holds the confirmed door D, from the walker.
        let path = try #require(Self.demoMemory(captured.err))
        defer { Self.removeDemoDirectory(of: path) }
        let memory = try MemoryFile.read(path: path)
        let confirmed = try #require(memory.buildings.first?.confirmed)
        #expect(confirmed.label == "D")
        #expect(confirmed.source == .walker)
        // Every prompt spoken into a WAV.
        let says = captured.out.split(separator: "\n").filter { $0.contains("\"event\":\"say\"") }.count
        #expect(try FileManager.default.contentsOfDirectory(atPath: wavs).count == says)
        withExtendedLifetime(scratch) {}  // removed only now
    }

    @Test func transcript_tellsTheStory() async throws {
        let scratch = try Scratch()
        let captured = CapturedConsole()
        let code = await Pathfinder.main(["demo", "--speak-wav", scratch.path], console: captured.console)
        defer { Self.removeDemoDirectory(of: Self.demoMemory(captured.out)) }
        #expect(code == 0)
        for expected in [
            "hears    \"여기 아니야\" → notHere (confidence 1.00, sure)", "다른 입구로 안내할게",
            "hears    \"여기가 입구야\" → thisIsIt (confidence 1.00, sure)",
            "기억할게. 다음엔 여기로 안내할게.", "walk     ended (confirmed)", "memory: ",
        ] {
            #expect(captured.out.contains(expected), "\(expected)")
        }
    }

    @Test func replay_withHeardTSV_isDeterministic_andWritesTheMap() async throws {
        let scratch = try Scratch()
        let dir = scratch.path
        func run() async -> (Int32, String) {
            let captured = CapturedConsole()
            let code = await Pathfinder.main(
                [
                    "replay", "--nmea", "artifacts/demo/walk.nmea", "--destination",
                    "artifacts/demo/destination.json",
                    "--osm", "artifacts/demo/doors.osm", "--heard", "artifacts/demo/heard.tsv", "--map",
                    dir + "/walk.svg",
                    "--memory", dir + "/memory.json",
                ].map { $0.hasPrefix("artifacts/") ? Self.repo + "/" + $0 : $0 }, console: captured.console)
            return (code, captured.out)
        }
        let (a, outA) = await run()
        try FileManager.default.removeItem(atPath: dir + "/memory.json")
        let (b, outB) = await run()
        #expect(a == 0 && b == 0)
        #expect(outA == outB)
        #expect(outA.contains("\"event\":\"confirmed\""))
        let svg = try String(contentsOfFile: dir + "/walk.svg", encoding: .utf8)
        #expect(svg.contains("</svg>"))
        // The memory written; a second replay on it goes straight to the confirmed door.
        let captured = CapturedConsole()
        _ = await Pathfinder.main(
            [
                "replay", "--nmea", Self.repo + "/artifacts/demo/walk.nmea", "--destination",
                Self.repo + "/artifacts/demo/destination.json", "--memory", dir + "/memory.json",
            ], console: captured.console)
        let first = String(captured.out.prefix { $0 != "\n" })
        #expect(
            first.hasPrefix("{\"event\":\"plan\",\"plan\":{\"alternatives\":[],\"entrance\":{"), "\(first)")
        #expect(first.contains("\"label\":\"D\"") && first.contains("\"source\":\"walker\""), "\(first)")
        withExtendedLifetime(scratch) {}  // removed only now
    }

    @Test(arguments: [
        (["replay", "--destination", "x.json"], "--nmea is required"),
        (["replay", "--nmea", "/nonexistent.nmea", "--destination", "x.json"], "/nonexistent.nmea"),
        (["replay", "--nmea", "N", "--destination", "D", "--heard", "h", "--audio", "a"], "not both"),
        // A file where the prompts' folder should be: in words, exit 2 (before, Foundation's
        // NSError, "Code=516 …", exit 1).
        (["demo", "--speak-wav", "N"], "/artifacts/demo/walk.nmea: cannot make the folder: a file is there"),
        // Each message is led by its command, as every other one is (before, the shared JSON
        // reader's message stood alone).
        (
            ["demo", "--dir", "/nonexistent"],
            "pathfinder demo: /nonexistent/demo.json: cannot read demo manifest"
        ),
        (
            ["replay", "--nmea", "N", "--destination", "/nonexistent.json"],
            "pathfinder replay: /nonexistent.json: cannot read"
        ),
        (
            ["go", "--destination", "/nonexistent.json", "--socket", "/nonexistent.sock"],
            "pathfinder go: /nonexistent.json"
        ),
    ])
    func badInput_exits2(argv: [String], message: String) async {
        let captured = CapturedConsole()
        var argv = argv
        if let i = argv.firstIndex(of: "N") { argv[i] = Self.repo + "/artifacts/demo/walk.nmea" }
        if let i = argv.firstIndex(of: "D") { argv[i] = Self.repo + "/artifacts/demo/destination.json" }
        let code = await Pathfinder.main(argv, console: captured.console)
        #expect(code == 2)
        #expect(captured.err.contains(message), "\(captured.err)")
    }

    /// A demo that fails takes its temporary folder with it (before: each failed run left an
    /// empty `pathfinder-demo-XXXXXX` in TMPDIR, named nowhere): here its recording is missing,
    /// which the walk finds after the folder is made.
    @Test func aFailedDemoLeavesNoFolderBehind() throws {
        let scratch = try Scratch()
        let demo = scratch.file("demo"), tmp = scratch.file("tmp")
        for folder in [demo, tmp] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        for name in ["walk.nmea", "destination.json", "doors.osm"] {
            try FileManager.default.copyItem(
                atPath: Self.repo + "/artifacts/demo/" + name, toPath: demo + "/" + name)
        }
        _ = try scratch.write(
            "demo/demo.json",
            #"{"nmea": "walk.nmea", "destination": "destination.json", "osm": "doors.osm", "audio": "missing.wav", "audioStart": 394}"#
        )
        let r = try BinaryTests.run(
            executable: try BinaryTests.binary(), ["demo", "--json", "--dir", demo],
            environment: ["TMPDIR": tmp, "PATH": "/usr/bin:/bin"])
        #expect(r.code != 0)
        #expect(r.err.contains("missing.wav"), "\(r.err)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp) == [])
    }

    /// A home whose `.asoundrc` makes ALSA's `default` playback device the file plugin writing
    /// into `file` (a path, or "| command"): a sound device any machine has.
    static func soundHome(_ home: Scratch, writingTo file: String) throws {
        _ = try home.write(
            ".asoundrc",
            """
            pcm.!default {
                type file
                slave.pcm "null"
                file "\(file)"
                format "raw"
            }

            """)
    }

    /// The built binary's `demo` (with `arguments`) with `home` as HOME.
    static func demo(_ arguments: [String], home: Scratch) throws -> (code: Int32, out: String, err: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home.path
        return try BinaryTests.run(
            executable: try BinaryTests.binary(), ["demo"] + arguments, environment: environment)
    }

    /// `demo --json` on a working sound device speaks every prompt, as the transcript does, and
    /// nothing else: the device takes exactly the prompts' samples. Before, it played only a
    /// probe ("안내를 시작할게.") and none of the walk's prompts, and wrote no WAVs; without
    /// `--json` the listener heard "안내를 시작할게." twice (the probe, then the first prompt).
    @Test(arguments: [true, false])
    func demoSpeaksEveryPromptOnTheSoundDeviceOnce(json: Bool) throws {
        let home = try Scratch()
        let sink = home.file("played.raw")
        try Self.soundHome(home, writingTo: "| cat >> \(sink)")
        let r = try Self.demo(json ? ["--json"] : [], home: home)
        #expect(r.code == 0, "\(r.err)")
        defer { Self.removeDemoDirectory(of: Self.demoMemory(json ? r.err : r.out)) }
        #expect(!(r.out + r.err).contains("prompts: "), "\(r.out)\(r.err)")
        let says =
            json
            ? r.out.split(separator: "\n").filter { $0.contains("\"event\":\"say\"") }.count
            : r.out.split(separator: "\n").filter { $0.contains("  says     ") }.count
        #expect(says > 30, "\(r.out)")
        // The prompts' samples, as the same binary writes them into WAV files, one after another
        // as it plays them (espeak-ng's output drifts by a few samples with what it said before).
        let wavs = home.file("wav")
        let written = try Self.demo(["--json", "--speak-wav", wavs], home: home)
        #expect(written.code == 0, "\(written.err)")
        Self.removeDemoDirectory(of: Self.demoMemory(written.err))
        let files = try FileManager.default.contentsOfDirectory(atPath: wavs).sorted()
        #expect(files.count == says)
        let expected = try files.reduce(0) { $0 + (try WAV.read(path: wavs + "/" + $1).samples.count) * 2 }
        // The plugin's `cat`s may still be writing when the demo has ended.
        var bytes = 0
        for _ in 0..<100 {
            bytes = (try? FileManager.default.attributesOfItem(atPath: sink)[.size] as? Int) ?? 0
            if bytes >= expected { break }
            usleep(50_000)
        }
        usleep(100_000)
        bytes = (try? FileManager.default.attributesOfItem(atPath: sink)[.size] as? Int) ?? 0
        #expect(bytes == expected, "the device took \(bytes) bytes; the \(says) prompts are \(expected)")
    }

    /// A sound device that opens but fails when played to (the file plugin writing into
    /// /dev/full) is said, with the device's error, and the prompts go to WAV files, the folder
    /// named. Before, each failure was swallowed: the rest of the demo was silent, no word said.
    @Test func aSoundDeviceThatFailsDuringTheDemoIsSaidAndThePromptsGoToWAVs() throws {
        let home = try Scratch()
        try Self.soundHome(home, writingTo: "/dev/full")
        let r = try Self.demo(["--json"], home: home)
        #expect(r.code == 0, "\(r.err)")
        defer { Self.removeDemoDirectory(of: Self.demoMemory(r.err)) }
        let line = try #require(
            r.err.split(separator: "\n").first { $0.hasPrefix("prompts: ") }, "no prompts line: \(r.err)")
        #expect(
            line.hasPrefix("prompts: the sound device failed (sound device default: Input/output error); "),
            "\(line)")
        let folder = try #require(
            line.range(of: "written as WAV files to ").map { String(line[$0.upperBound...]) })
        let says = r.out.split(separator: "\n").filter { $0.contains("\"event\":\"say\"") }.count
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).count == says)
    }

    /// A sound device that is there but cannot be used at the start is said with its error:
    /// here `default` is the file plugin writing into a FIFO no one reads, so its open stalls
    /// (audit 6, R1-7). Before, the note said "no sound device" and the reason was dropped.
    @Test func aSoundDeviceThatStallsAtTheStartIsSaidWithItsError() throws {
        let home = try Scratch()
        let fifo = home.file("stuck.fifo")
        try #require(mkfifo(fifo, 0o600) == 0, "mkfifo: \(String(cString: strerror(errno)))")
        try Self.soundHome(home, writingTo: fifo)
        let r = try Self.demo([], home: home)
        #expect(r.code == 0, "\(r.err)")
        defer { Self.removeDemoDirectory(of: Self.demoMemory(r.out)) }
        let line = try #require(
            r.out.split(separator: "\n").first { $0.hasPrefix("prompts: ") }, "no prompts line: \(r.out)")
        #expect(
            line.hasPrefix("prompts: the sound device cannot be used (sound device default: stalled: "),
            "\(line)")
        #expect(!line.contains("no sound device"), "\(line)")
        let folder = try #require(
            line.range(of: "written as WAV files to ").map { String(line[$0.upperBound...]) })
        let says = r.out.split(separator: "\n").filter { $0.contains("  says     ") }.count
        #expect(says > 30, "\(r.out)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).count == says)
    }

    /// The repository root, from this file's place in it.
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
}
