import Foundation
import Glibc
import Speech
import Storage
import TestSupport
import Testing

@testable import PathfinderCLI

/// `pathfinder record` on real ALSA devices, so the tests need no microphone but run the same
/// capture, check, WAV and manifest code: the "null" capture device (silence, every take
/// marked), and a capture device of ALSA's file plugin that hears espeak-ng's voice.
@Suite("record", .serialized)
struct RecordCommandTests {

    func manifestLines(_ directory: String) throws -> [[String: Any]] {
        let text = try String(contentsOfFile: directory + "/manifest.jsonl", encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    /// The `pathfinder` executable recording `rounds` as `speaker` into `directory` from
    /// `device`, with `home`'s ALSA configuration: its exit status and standard output (with
    /// `errors`, standard error).
    func record(
        _ directory: String, speaker: String, device: String, home: Scratch, rounds: Int = 1,
        seconds: Int = 3, errors: Bool = false
    ) throws -> (status: Int32, text: String) {
        try runCapturing(
            try BuiltExecutable.pathfinder().path,
            [
                "record", "--out", directory, "--speaker", speaker, "--device", device, "--quiet",
                "--seconds", "\(seconds)", "--rounds", "\(rounds)",
            ], standardOutput: !errors, environment: ["HOME": home.path])
    }

    /// A person who records again under the same ID adds rounds; nothing recorded before is
    /// replaced (before, the second session wrote mom-1-01.wav … again over the first).
    @Test func aSecondSessionAddsRoundsAndReplacesNothing() throws {
        let home = try speakingHome()
        let directory = home.file("voices")
        let first = try record(directory, speaker: "mom", device: "speech", home: home)
        try #require(first.status == 0, "\(first.text)")
        #expect(first.text.contains("(mom, round 1;"), "\(first.text)")
        let kept = try Data(contentsOf: URL(fileURLWithPath: directory + "/mom-1-01.wav"))
        let second = try record(directory, speaker: "mom", device: "speech", home: home, rounds: 2)
        try #require(second.status == 0, "\(second.text)")
        #expect(second.text.contains("(mom, rounds 2–3;"), "\(second.text)")
        let lines = try manifestLines(directory)
        let files = lines.compactMap { $0["file"] as? String }
        #expect(files.count == 3 * RecordingScript.sentences.count)
        #expect(Set(files).count == files.count, "a file listed twice")
        #expect(files.first == "mom-1-01.wav" && files.last == "mom-3-21.wav")
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory + "/mom-1-01.wav")) == kept)
        // Every take held the sentence: none was said again or marked.
        #expect(lines.allSatisfy { $0["problem"] == nil })
        #expect(!first.text.contains("again") && !second.text.contains("again"))
        // Another person's IDs are not this one's rounds ("mom-2" is not mom's round 2).
        let other = try record(directory, speaker: "mom-2", device: "speech", home: home)
        try #require(other.status == 0, "\(other.text)")
        #expect(other.text.contains("(mom-2, round 1;"), "\(other.text)")
        #expect(FileManager.default.fileExists(atPath: directory + "/mom-2-1-01.wav"))
        #expect(try nextRound("mom", directory) == 4)
        // A round whose files were deleted is still listed in the manifest: its names stay taken.
        for k in 1...RecordingScript.sentences.count {
            try FileManager.default.removeItem(atPath: directory + "/mom-3-\(String(format: "%02d", k)).wav")
        }
        #expect(try nextRound("mom", directory) == 4)
    }

    /// `pathfinder record --out directory --speaker speaker --device device --quiet`, then `more`,
    /// with `home` as HOME (its .asoundrc names the devices): made, not run.
    static func session(
        _ directory: String, speaker: String = "mom", device: String, home: Scratch, _ more: [String] = []
    ) throws -> Process {
        let session = Process()
        session.executableURL = URL(fileURLWithPath: try BuiltExecutable.pathfinder().path)
        session.arguments =
            ["record", "--out", directory, "--speaker", speaker, "--device", device, "--quiet"] + more
        session.environment = ProcessInfo.processInfo.environment.merging(["HOME": home.path]) { $1 }
        return session
    }

    /// A microphone that waits for the test: ALSA device `pcm` (in `home`'s `.asoundrc`) reads
    /// the FIFO `home/microphone` through the file plugin (ALSA's null device does not wait).
    /// Returns the FIFO opened for writing (and reading too, so neither end waits for the other
    /// to open), non-blocking; the caller closes it.
    static func fifoMicrophone(_ pcm: String, in home: Scratch) throws -> Int32 {
        let microphone = home.file("microphone")
        try #require(mkfifo(microphone, 0o600) == 0)
        _ = try home.write(
            ".asoundrc",
            """
            pcm.\(pcm) {
                type file
                slave.pcm "null"
                file "/dev/null"
                infile "\(microphone)"
                format "raw"
            }

            """)
        let feed = open(microphone, O_RDWR | O_NONBLOCK)
        try #require(feed >= 0)
        return feed
    }

    /// Two sessions into one folder at once: the second is refused before it asks anyone to
    /// speak, naming the folder and the first's pid, and the first's takes are each written and
    /// listed once (before, both started at round 1 of the same ID: one wrote over the other's
    /// takes and listed them twice, and with other IDs lines were lost or broken in the manifest).
    @Test func aSecondSessionIntoAFolderInUseIsRefused() throws {
        // The first session's microphone: a FIFO it reads through ALSA's file plugin, so its
        // takes wait for the test to give them sound (ALSA's null device does not wait).
        let home = try Scratch()
        let feed = try Self.fifoMicrophone("held", in: home)
        defer { close(feed) }
        let directory = home.file("voices")
        func arguments(_ device: String) -> [String] {
            [
                "record", "--out", directory, "--speaker", "mom", "--device", device, "--quiet", "--seconds",
                "1", "--rounds", "1",
            ]
        }
        let first = Process()
        first.executableURL = URL(fileURLWithPath: try BuiltExecutable.pathfinder().path)
        first.arguments = arguments("held")
        first.environment = ProcessInfo.processInfo.environment.merging(["HOME": home.path]) { $1 }
        let output = Pipe()
        first.standardOutput = output
        first.standardError = FileHandle.nullDevice
        try first.run()
        // From its first prompt on, the first session holds the folder; its take waits.
        var shown = ""
        while !shown.contains("say:") {
            let chunk = output.fileHandleForReading.availableData
            try #require(!chunk.isEmpty, "the first session ended before its first prompt: \(shown)")
            shown += String(decoding: chunk, as: UTF8.self)
        }
        let second = try runCapturing(try BuiltExecutable.pathfinder().path, arguments("null"))
        let asked = try runCapturing(
            try BuiltExecutable.pathfinder().path, arguments("null"), standardOutput: true)
        // Then the first hears silence to its end.
        let silence = [UInt8](repeating: 0, count: 3_200)
        while first.isRunning {
            if write(feed, silence, silence.count) < 0 { usleep(10_000) }
        }
        shown += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(second.status == 1, "\(second.text)")
        #expect(
            second.text.contains(
                "\(directory) is in use by another pathfinder record (pid \(first.processIdentifier))"),
            "\(second.text)")
        #expect(second.text.contains("nothing was recorded"), "\(second.text)")
        #expect(asked.status == 1 && !asked.text.contains("say:"), "\(asked.text)")
        // The first session's takes, each once, each there; nobody else's.
        let manifest = try RecordingManifest.read(directory: directory)
        let files = manifest.entries.map(\.file)
        #expect(files.first == "mom-1-01.wav", "\(files)")
        #expect(Set(files).count == files.count)
        #expect(Set(manifest.entries.compactMap(\.device)) == ["held"])
        let wavs = try FileManager.default.contentsOfDirectory(atPath: directory).filter {
            $0.hasSuffix(".wav")
        }
        #expect(Set(wavs) == Set(files))
        #expect(!shown.contains("exists"), "\(shown)")
    }

    /// A folder that also holds the memory records, with a daemon running on that memory (its
    /// shared lock on the folder, held here as the daemon holds it): the session is not told
    /// "in use by another pathfinder record" when no record runs (before, it was, and refused),
    /// and a memory command beside the session is not kept waiting by it.
    @Test func theMemorysFolderIsNotARecordingsLock() throws {
        let home = try Scratch()
        let directory = home.file("voices")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var daemon: MemoryFile.DaemonHold? = try MemoryFile.DaemonHold(path: directory + "/memory.json")
        let result = try runCapturing(
            try BuiltExecutable.pathfinder().path,
            [
                "record", "--out", directory, "--speaker", "mom", "--device", "null", "--quiet", "--seconds",
                "1",
            ])
        #expect(daemon != nil)
        daemon = nil
        #expect(!result.text.contains("in use"), "\(result.text)")
        // ALSA's null device hears nothing: the session records until it stops for that.
        #expect(result.status == 1 && result.text.contains("nothing heard in"), "\(result.text)")
        let manifest = try RecordingManifest.read(directory: directory)
        #expect(manifest.entries.count == Commands.silentSentencesToStop, "\(manifest.entries)")

        // The other way: record's lock (taken as a session takes it) keeps no memory change waiting.
        let session = try Commands.takeFolder(directory, speaker: "mom", given: "mom")
        let changed = try MemoryFile.locked(path: directory + "/memory.json", waitSeconds: 0) { true }
        withExtendedLifetime(session) {}
        #expect(changed)
    }

    /// `pathfinder record` under strace, which holds the first take's `link(2)` (its name made)
    /// for `seconds` before it returns: the moment between a take's file and its manifest line
    /// made long enough to be hit. Returns the strace process, running, and the recorder's pid.
    func recordHeldAtTheFirstTake(
        _ directory: String, home: Scratch, seconds: Int
    ) throws -> (strace: Process, recorder: pid_t) {
        let strace = "/usr/bin/strace"
        try #require(
            FileManager.default.isExecutableFile(atPath: strace), "strace not found: apt-get install strace")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: strace)
        process.arguments = [
            "-f", "-qq", "-o", "/dev/null", "-e", "trace=link",
            "-e", "inject=link:delay_exit=\(seconds * 1_000_000):when=1", "--",
            try BuiltExecutable.pathfinder().path, "record", "--out", directory, "--speaker", "mom",
            "--device", "speech", "--quiet", "--seconds", "1", "--rounds", "1",
        ]
        process.environment = ProcessInfo.processInfo.environment.merging(["HOME": home.path]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let wav = directory + "/mom-1-01.wav"
        for _ in 0..<6_000 where !FileManager.default.fileExists(atPath: wav) { usleep(10_000) }
        try #require(FileManager.default.fileExists(atPath: wav), "no first take")
        let children = try String(
            contentsOfFile: "/proc/\(process.processIdentifier)/task/\(process.processIdentifier)/children",
            encoding: .utf8)
        let recorder = try #require(children.split(separator: " ").first.flatMap { pid_t($0) })
        return (process, recorder)
    }

    /// SIGTERM (or Ctrl-C) after a take's file is made and before its manifest line is written
    /// is acted on once the line is written: the take is kept and listed (before, the process
    /// ended between the two and left the file unlisted, never scored nor adapted: 3 of 40
    /// random kills).
    /// (Where ptrace is not allowed — a container's seccomp, Yama's scope 3 — strace cannot
    /// hold the call, and the test does not run; a missing strace fails it, saying so.)
    @Test(.enabled(if: Self.mayTrace), arguments: [SIGTERM, SIGINT])
    func aSignalBetweenATakesFileAndItsLineKeepsBoth(signal: Int32) throws {
        let home = try speakingHome()
        let directory = home.file("voices")
        let (strace, recorder) = try recordHeldAtTheFirstTake(directory, home: home, seconds: 5)
        #expect(kill(recorder, signal) == 0)
        strace.waitUntilExit()
        #expect(strace.terminationReason == .uncaughtSignal && strace.terminationStatus == signal)
        let wavs = try FileManager.default.contentsOfDirectory(atPath: directory).filter {
            $0.hasSuffix(".wav")
        }
        let manifest = try RecordingManifest.read(directory: directory)
        // (A test thread starved past the hold may signal a take or two later: every take made
        // is listed all the same.)
        #expect(wavs.contains("mom-1-01.wav"), "\(wavs)")
        #expect(manifest.entries.map(\.file).sorted() == wavs.sorted(), "a take not listed")
    }

    /// strace can trace here, or is missing (then the test runs and fails saying how to install
    /// it): false only where tracing is refused.
    static let mayTrace: Bool = {
        let strace = "/usr/bin/strace"
        guard FileManager.default.isExecutableFile(atPath: strace) else { return true }
        return
            (try? runCapturing(strace, ["-qq", "-o", "/dev/null", "-e", "trace=none", "--", "/bin/true"])
            .status)
            == 0
    }()

    /// A read-only tmpfs can be mounted in a namespace of the test's own here, or unshare is
    /// missing (then the test runs and fails saying how to install it): false only where the
    /// system refuses user or mount namespaces (a container's seccomp, a sysctl).
    static let mayMountReadOnly: Bool = {
        let unshare = "/usr/bin/unshare"
        guard FileManager.default.isExecutableFile(atPath: unshare) else { return true }
        return (try? runCapturing(unshare, ["-rm", "sh", "-c", "mount -t tmpfs -o ro none /mnt"]).status) == 0
    }()

    /// Ctrl-C while the capture device's check is held (a busy sound card blocks its open; here
    /// a FIFO microphone no one writes to) in a folder there before: the folder is left as it
    /// was — the manifest the session's lock made is removed (before, in this stop: left empty,
    /// the stop's handler not yet set up; an empty manifest passes adapt-model's "manifest
    /// exists" check).
    @Test func ctrlCDuringTheDeviceCheckLeavesTheFolderAsItWas() throws {
        let home = try Scratch()
        let microphone = home.file("microphone")
        try #require(mkfifo(microphone, 0o600) == 0)
        _ = try home.write(
            ".asoundrc",
            """
            pcm.held {
                type file
                slave.pcm "null"
                file "/dev/null"
                infile "\(microphone)"
                format "raw"
            }

            """)
        let directory = home.file("voices")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let session = try Self.session(directory, device: "held", home: home)
        session.standardOutput = FileHandle.nullDevice
        session.standardError = FileHandle.nullDevice
        try session.run()
        // Its manifest made (the folder's lock), and some thread of it held in the FIFO's open.
        func held() -> Bool {
            let tasks = "/proc/\(session.processIdentifier)/task"
            return ((try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? []).contains {
                (try? String(contentsOfFile: "\(tasks)/\($0)/wchan", encoding: .utf8)) == "wait_for_partner"
            }
        }
        for _ in 0..<2_000 where session.isRunning && !held() { usleep(10_000) }
        try #require(held(), "not held in the device's open")
        #expect(FileManager.default.fileExists(atPath: directory + "/manifest.jsonl"))
        kill(session.processIdentifier, SIGINT)
        for _ in 0..<1_500 where session.isRunning { usleep(10_000) }
        if session.isRunning { kill(session.processIdentifier, SIGKILL) }
        session.waitUntilExit()
        #expect(session.terminationReason == .uncaughtSignal && session.terminationStatus == SIGINT)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
    }

    /// Ctrl-C while the session's output is stopped — a terminal's Ctrl-S, a pipe to a reader
    /// that stalls — ends it all the same, at once: the stop's message waits at most a second
    /// for the output to move (before, in this stop: the signal's handler waited for the
    /// console, held by the blocked write, and the session ran on until the output moved).
    @Test func ctrlCWhileTheOutputIsStoppedEndsTheSession() throws {
        let home = try speakingHome()
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]) }
        // The smallest pipe, filled: the session's first line blocks in write(2).
        _ = fcntl(ends[1], 1031 /* F_SETPIPE_SZ */, 4_096)
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        let filler = [UInt8](repeating: 0x2e, count: 1_024)
        while filler.withUnsafeBufferPointer({ write(ends[1], $0.baseAddress, $0.count) }) > 0 {}
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) & ~O_NONBLOCK)
        let session = try Self.session(
            home.file("voices"), device: "speech", home: home, ["--seconds", "1", "--rounds", "1"])
        session.standardOutput = FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
        session.standardError = FileHandle.nullDevice
        try session.run()
        // Some thread of it (the command runs on a task's, not the main one) waits in the write.
        func blocked() -> Bool {
            let tasks = "/proc/\(session.processIdentifier)/task"
            return ((try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? []).contains {
                (try? String(contentsOfFile: "\(tasks)/\($0)/wchan", encoding: .utf8))?.hasSuffix(
                    "pipe_write") == true
            }
        }
        for _ in 0..<2_000 where session.isRunning && !blocked() { usleep(10_000) }
        try #require(blocked(), "not blocked on its output")
        kill(session.processIdentifier, SIGINT)
        for _ in 0..<1_500 where session.isRunning { usleep(10_000) }
        #expect(!session.isRunning, "still running 15 s after Ctrl-C")
        if session.isRunning { kill(session.processIdentifier, SIGKILL) }
        session.waitUntilExit()
        #expect(session.terminationReason == .uncaughtSignal && session.terminationStatus == SIGINT)
    }

    /// Ctrl-C while a take is recorded: standard error says what was kept, and where (before, the
    /// process ended saying nothing).
    @Test func ctrlCSaysWhatWasKept() throws {
        let home = try speakingHome()
        let speech = try [UInt8](Data(contentsOf: URL(fileURLWithPath: home.file("take.raw"))))
        let take = speech + [UInt8](repeating: 0, count: 2 * 3 * 16_000 - speech.count)
        let feed = try Self.fifoMicrophone("person", in: home)
        defer { close(feed) }
        let directory = home.file("voices")
        let session = try Self.session(
            directory, device: "person", home: home, ["--seconds", "3", "--rounds", "1"])
        let errors = home.file("err.txt")
        try #require(FileManager.default.createFile(atPath: errors, contents: nil))
        session.standardOutput = FileHandle.nullDevice
        session.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
        try session.run()
        // Two sentences heard, then the third take waits for sound that never comes.
        var offset = 0
        func listed() -> Int {
            ((try? String(contentsOfFile: directory + "/manifest.jsonl", encoding: .utf8)) ?? "")
                .filter { $0 == "\n" }.count
        }
        while session.isRunning, listed() < 2 {
            let written = take.withUnsafeBufferPointer { buffer in
                write(feed, buffer.baseAddress! + offset, min(3_200, take.count - offset))
            }
            if written > 0 { offset = (offset + written) % take.count } else { usleep(10_000) }
        }
        usleep(500_000)
        try #require(session.isRunning)
        kill(session.processIdentifier, SIGINT)
        session.waitUntilExit()
        let text = try String(contentsOfFile: errors, encoding: .utf8)
        #expect(
            session.terminationReason == .uncaughtSignal && session.terminationStatus == SIGINT, "\(text)")
        #expect(
            text.contains(
                "2 takes of this session are kept in \(directory), listed in \(directory)/manifest.jsonl"),
            "\(text)")
        #expect(try RecordingManifest.read(directory: directory).entries.count == 2)
    }

    /// A session stopped mid-round (here by a microphone that heard nothing for three
    /// sentences): the next one of the same person first records the sentences of that round
    /// not yet taken, saying so, then new rounds; a name already in the folder is not used
    /// again (before, it began at sentence 1 of a new round, and the rest of the stopped round
    /// was never asked).
    @Test func aRoundLeftUnfinishedIsFinishedFirst() throws {
        let home = try speakingHome()
        let directory = home.file("voices")
        let stopped = try record(directory, speaker: "mom", device: "null", home: home, seconds: 1)
        try #require(stopped.status == 1, "\(stopped.text)")
        let before = Commands.silentSentencesToStop
        // A take an older version left unlisted: its name stays taken.
        _ = try home.write("voices/mom-1-05.wav", "not a take")
        let left = RecordingScript.sentences.count - before - 1
        let again = try record(directory, speaker: "mom", device: "speech", home: home)
        try #require(again.status == 0, "\(again.text)")
        #expect(again.text.contains("round 1: \(left) sentences left from last time"), "\(again.text)")
        #expect(again.text.contains("[1/\(left + RecordingScript.sentences.count)]"), "\(again.text)")
        #expect(again.text.contains("(mom, the rest of round 1 and round 2;"), "\(again.text)")
        let entries = try RecordingManifest.read(directory: directory).entries
        let names = entries.map(\.file)
        let round1 = (1...RecordingScript.sentences.count).filter { $0 != 5 }.map {
            "mom-1-\(String(format: "%02d", $0)).wav"
        }
        let round2 = (1...RecordingScript.sentences.count).map { "mom-2-\(String(format: "%02d", $0)).wav" }
        #expect(names.sorted() == (round1 + round2).sorted(), "\(names)")
        #expect(Set(names).count == names.count)
        // Each file's sentence is its number's.
        for entry in entries {
            let number = Int(entry.file.dropLast(4).suffix(2))!
            #expect(entry.text == RecordingScript.sentences[number - 1], "\(entry.file)")
        }
        #expect(try String(contentsOfFile: directory + "/mom-1-05.wav", encoding: .utf8) == "not a take")
        // A finished round leaves nothing to finish.
        let third = try record(directory, speaker: "mom", device: "speech", home: home)
        #expect(third.status == 0 && !third.text.contains("left from last time"), "\(third.text)")
        #expect(third.text.contains("(mom, round 3;"), "\(third.text)")
    }

    /// A speaker ID whose takes' names (with the temp file's prefix and suffix they are written
    /// through) would pass the file system's longest name is refused at the start, exit 2, naming
    /// the ID and how long it may be, the folder not made (before, after the first sentence was
    /// spoken: "File name too long … make room and record again"). The ID at that length records.
    @Test func aSpeakerIDTooLongForTheFileNamesIsRefusedAtTheStart() throws {
        let home = try speakingHome()
        let directory = home.file("voices")
        let long = String(repeating: "m", count: 240)
        let refused = try record(
            directory, speaker: long, device: "speech", home: home, seconds: 1, errors: true)
        #expect(refused.status == 2, "\(refused.text)")
        #expect(refused.text.contains("--speaker \"\(long)\""), "\(refused.text)")
        #expect(refused.text.contains("255"), "\(refused.text)")
        #expect(!FileManager.default.fileExists(atPath: directory), "the folder was made")
        let shown = try record(directory, speaker: long, device: "speech", home: home, seconds: 1)
        #expect(shown.status == 2 && !shown.text.contains("say:"), "\(shown.text)")
        let limit = try #require(
            refused.text.firstMatch(of: /at most (\d+) bytes/).flatMap { Int($0.1) }, "\(refused.text)")
        #expect(limit < 240)
        let fits = try record(
            directory, speaker: String(repeating: "m", count: limit), device: "speech", home: home, seconds: 1
        )
        #expect(fits.status == 0, "\(fits.text)")
        // Without --speaker the folder's name is the ID: a long one is named as the folder's.
        let folder = home.file(long)
        let unnamed = try runCapturing(
            try BuiltExecutable.pathfinder().path,
            ["record", "--out", folder, "--device", "speech", "--quiet", "--seconds", "1", "--rounds", "1"],
            environment: ["HOME": home.path])
        #expect(unnamed.status == 2, "\(unnamed.text)")
        #expect(unnamed.text.contains("the folder's name"), "\(unnamed.text)")
        #expect(unnamed.text.contains("--speaker ID"), "\(unnamed.text)")
        #expect(!FileManager.default.fileExists(atPath: folder), "the folder was made")
    }

    /// A take file the manifest does not list (what an older pathfinder stopped between the two
    /// left): the next session says so, naming it, and neither reuses its name nor lists it
    /// (before: nothing said, its sentence never asked again nor scored).
    @Test func aTakeFileNotListedIsNamed() throws {
        let home = try speakingHome()
        let directory = home.file("voices")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data("RIFF".utf8).write(to: URL(fileURLWithPath: directory + "/mom-1-02.wav"))
        let session = try record(
            directory, speaker: "mom", device: "speech", home: home, seconds: 1, errors: true)
        #expect(session.status == 0, "\(session.text)")
        #expect(
            session.text.contains(
                "1 take file of mom in \(directory) is not listed in \(directory)/manifest.jsonl (mom-1-02.wav)"
            ),
            "\(session.text)")
        let manifest = try RecordingManifest.read(directory: directory)
        #expect(!manifest.entries.map(\.file).contains("mom-1-02.wav"))
        #expect(
            manifest.entries.count == 2 * RecordingScript.sentences.count - 1,
            "round 1 but its second, then round 2")
    }

    /// A folder so deep that a take's path would pass PATH_MAX: refused at the start, exit 2,
    /// nothing made (before: the first sentence was asked three times, then exit 1, "File name
    /// too long … make room and record again").
    @Test func aFolderTooDeepIsRefusedAtTheStart() throws {
        let home = try speakingHome()
        let part = String(repeating: "d", count: 200)
        var directory = home.file("voices")
        while directory.utf8.count < 4_070 { directory += "/" + part }
        let refused = try record(
            directory, speaker: "mom", device: "speech", home: home, seconds: 1, errors: true)
        #expect(refused.status == 2, "\(refused.text)")
        #expect(refused.text.contains("is too deep"), "\(refused.text)")
        #expect(!refused.text.contains("say:"), "\(refused.text)")
        #expect(!FileManager.default.fileExists(atPath: home.file("voices")), "the folder was made")
    }

    /// A capture device that does not open, into a folder that is there: the folder is left as
    /// it was (before, an empty manifest.jsonl was left, made by the lock, which adapt-model
    /// took for recordings and voice-eval said listed none).
    @Test func aFailedStartLeavesAFolderThereAsItWas() async throws {
        let home = try Scratch()
        let directory = home.file("voices")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let capture = await runPathfinder([
            "record", "--out", directory, "--speaker", "a", "--device", "hw:97,0", "--quiet",
        ])
        #expect(capture.code == 1 && capture.err.contains("hw:97,0"), "\(capture.err)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == [])
        let playback = await runPathfinder([
            "record", "--out", directory, "--speaker", "a", "--device", "null", "--playback", "hw:97,0",
        ])
        #expect(playback.code == 1 && playback.err.contains("hw:97,0"), "\(playback.err)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == [])
        // Ctrl-C before the first take is kept: nothing of the session is left either.
        let feed = try Self.fifoMicrophone("held", in: home)
        defer { close(feed) }
        let session = try Self.session(directory, speaker: "a", device: "held", home: home)
        let output = Pipe()
        session.standardOutput = output
        session.standardError = FileHandle.nullDevice
        try session.run()
        var shown = ""
        while !shown.contains("say:") {
            let chunk = output.fileHandleForReading.availableData
            try #require(!chunk.isEmpty, "the session ended before its first prompt: \(shown)")
            shown += String(decoding: chunk, as: UTF8.self)
        }
        kill(session.processIdentifier, SIGINT)
        session.waitUntilExit()
        #expect(session.terminationReason == .uncaughtSignal)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == [])
    }

    /// A folder on a read-only file system (a tmpfs mounted read-only in a mount namespace of
    /// this test's own): the message is the system's reason, naming the folder, and says nothing
    /// was recorded (before: Foundation's "The operation could not be completed. The volume is
    /// read only.", without it).
    /// (Where the system refuses a mount namespace the test does not run: ``mayMountReadOnly``.)
    @Test(.enabled(if: Self.mayMountReadOnly)) func aReadOnlyFileSystemIsSaidPlainly() throws {
        let home = try Scratch()
        let mount = home.file("card")
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        let unshare = "/usr/bin/unshare"
        try #require(
            FileManager.default.isExecutableFile(atPath: unshare),
            "unshare not found: apt-get install util-linux")
        func record(_ directory: String) throws -> (status: Int32, text: String) {
            try runCapturing(
                unshare,
                [
                    "-rm", "sh", "-c", "mount -t tmpfs -o ro none \"$0\" && exec \"$@\"", mount,
                    try BuiltExecutable.pathfinder().path, "record", "--out", directory, "--speaker", "a",
                    "--device", "null", "--quiet",
                ])
        }
        let new = try record(mount + "/voices")
        #expect(new.status == 1, "\(new.text)")
        #expect(
            new.text.contains("cannot create \(mount)/voices: Read-only file system (nothing was recorded)"),
            "\(new.text)")
        let there = try record(mount)
        #expect(there.status == 1, "\(there.text)")
        #expect(
            there.text.contains("\(mount): not writable: Read-only file system (nothing was recorded)"),
            "\(there.text)")
    }

    /// `record` as ``record(_:speaker:device:home:rounds:seconds:errors:)`` runs it, allowed files of
    /// at most `kilobytes` (`ulimit -f`, in POSIX's 512-byte blocks, its signal ignored, so a write past it fails with EFBIG as
    /// one on a full disk fails with ENOSPC): its exit status and standard error.
    func recordIntoFullFolder(
        _ directory: String, kilobytes: Int, seconds: Int, home: Scratch
    ) throws -> (status: Int32, text: String) {
        try runCapturing(
            "/bin/sh",
            [
                "-c", "trap '' XFSZ; ulimit -f \(2 * kilobytes); exec \"$0\" \"$@\"",
                try BuiltExecutable.pathfinder().path, "record", "--out", directory, "--speaker", "mom",
                "--device", "speech", "--quiet", "--seconds", "\(seconds)", "--rounds", "1",
            ], environment: ["HOME": home.path])
    }

    /// A take that cannot be written (a full disk) is named, and said not to be kept: the folder
    /// holds the takes before it, each listed, and nothing of this one (before: "pathfinder
    /// record: write: No space left on device", naming no file and not saying what was lost).
    @Test func aTakeThatCannotBeWrittenIsNamedAndNotKept() throws {
        let home = try speakingHome()
        // The take's file: three seconds (96 044 bytes) where 40 KiB fit.
        let first = home.file("first")
        let wav = try recordIntoFullFolder(first, kilobytes: 40, seconds: 3, home: home)
        #expect(wav.status == 1, "\(wav.text)")
        #expect(wav.text.contains("cannot write \(first)/mom-1-01.wav: File too large"), "\(wav.text)")
        #expect(wav.text.contains("the take was not kept"), "\(wav.text)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: first).filter { $0 != "manifest.jsonl" } == []
        )
        #expect(try RecordingManifest.read(directory: first).entries.isEmpty)
        // The manifest's line: a second's take (32 044 bytes) fits, but the manifest is full
        // after the first line this session adds.
        let second = home.file("second")
        try FileManager.default.createDirectory(atPath: second, withIntermediateDirectories: true)
        let line = #"{"file": "dad-1-01.wav", "text": "여기 아니야", "speaker": "dad"}"# + "\n"
        var lines = ""
        var n = 0
        while (lines + line).utf8.count < 40 * 1024 - 250 {
            n += 1
            lines += line.replacingOccurrences(of: "dad-1-01", with: "dad-\(n)-01")
        }
        _ = try home.write("second/manifest.jsonl", lines)
        let full = try recordIntoFullFolder(second, kilobytes: 40, seconds: 1, home: home)
        #expect(full.status == 1, "\(full.text)")
        #expect(full.text.contains("cannot write \(second)/manifest.jsonl: File too large"), "\(full.text)")
        #expect(full.text.contains("the take mom-1-02.wav was not kept"), "\(full.text)")
        #expect(full.text.contains("1 sentence before it is kept"), "\(full.text)")
        let manifest = try RecordingManifest.read(directory: second)
        #expect(manifest.entries.count == n + 1)
        #expect(manifest.entries.last?.file == "mom-1-01.wav")
        #expect(!manifest.lacksFinalNewline)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: second).sorted() == [
                "manifest.jsonl", "mom-1-01.wav",
            ])
    }

    /// `Commands.nextRound` with the files `directory`'s manifest lists.
    func nextRound(_ speaker: String, _ directory: String) throws -> Int {
        try Commands.nextRound(
            of: speaker, in: directory,
            listed: try RecordingManifest.read(directory: directory).entries.map(\.file))
    }

    /// A manifest voice-eval would refuse is refused before anyone is asked to speak, and left
    /// as it was (before, the session appended to it and "succeeded", and the folder could not
    /// be scored: a damaged line even named the file the session then wrote again).
    @Test func aDamagedManifestIsRefusedBeforeAnyoneSpeaks() throws {
        let home = try speakingHome()
        let directory = home.file("voices")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let damaged = #"{"file": "mom-1-01.wav", "text": "여기 아니야", "speaker": "mom""# + "\nthis is not json\n"
        let manifest = try home.write("voices/manifest.jsonl", damaged)
        let result = try record(directory, speaker: "mom", device: "speech", home: home, errors: true)
        #expect(result.status == 2)
        #expect(result.text.contains("manifest.jsonl: line 1: not a JSON object"), "\(result.text)")
        #expect(result.text.contains("nothing was recorded"), "\(result.text)")
        let shown = try record(directory, speaker: "mom", device: "speech", home: home)
        #expect(
            shown.status == 2 && !shown.text.contains("say:"), "a prompt before the refusal: \(shown.text)")
        #expect(try String(contentsOfFile: manifest, encoding: .utf8) == damaged)
        #expect(!FileManager.default.fileExists(atPath: directory + "/mom-1-01.wav"))
    }

    /// A manifest whose last line has no newline (written by hand, or an append cut short):
    /// the session's first line starts on a line of its own (before, it was glued onto the last
    /// one and voice-eval refused the folder). A temp file an interrupted session left is gone.
    @Test func appendsAfterALastLineWithoutANewline() throws {
        let home = try speakingHome()
        let directory = home.file("voices")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        _ = try home.write(
            "voices/manifest.jsonl", #"{"file": "dad-1-01.wav", "text": "여기 아니야", "speaker": "dad"}"#)
        let stale = try home.write("voices/.mom-1-06.wav.tmp-2147483000-7", "half a take")
        let result = try record(directory, speaker: "mom", device: "speech", home: home)
        try #require(result.status == 0, "\(result.text)")
        let lines = try manifestLines(directory)
        #expect(lines.count == 1 + RecordingScript.sentences.count)
        #expect(
            lines.first?["speaker"] as? String == "dad" && lines.last?["file"] as? String == "mom-1-21.wav")
        #expect(try RecordingManifest.read(directory: directory).entries.count == lines.count)
        #expect(!FileManager.default.fileExists(atPath: stale))
        let hidden = try FileManager.default.contentsOfDirectory(atPath: directory).filter {
            $0.hasPrefix(".")
        }
        #expect(hidden.isEmpty, "\(hidden)")
    }

    /// A manifest saved with Windows line endings ("\r\n"), as an editor on another computer
    /// leaves it: the session appends one line a take after it, and the next session and
    /// voice-eval read every line (before, "\r\n" was not a line break to the reader: a
    /// manifest of one such line was taken, the session appended to it, and the next refused
    /// the folder, "line 1: not a JSON object").
    @Test func aManifestWithWindowsLineEndingsIsAppendedToAndReadAgain() throws {
        let directory = NSTemporaryDirectory() + "pathfinder-record-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let dad = #"{"file": "dad-1-01.wav", "text": "여기 아니야", "speaker": "dad"}"#
        try Data((dad + "\r\n").utf8).write(to: URL(fileURLWithPath: directory + "/manifest.jsonl"))
        // ALSA's null device hears nothing: the session stops after three sentences, each listed.
        func session() throws -> (status: Int32, text: String) {
            try runCapturing(
                try BuiltExecutable.pathfinder().path,
                [
                    "record", "--out", directory, "--speaker", "mom", "--device", "null", "--quiet",
                    "--seconds", "1",
                ], standardOutput: false)
        }
        let first = try session()
        #expect(first.status == 1 && first.text.contains("nothing heard in"), "\(first.text)")
        let stopped = Commands.silentSentencesToStop
        var manifest = try RecordingManifest.read(directory: directory)
        #expect(manifest.entries.map(\.speaker) == ["dad"] + Array(repeating: "mom", count: stopped))
        #expect(manifest.entries.map(\.line) == Array(1...(1 + stopped)))
        let second = try session()
        #expect(second.status == 1 && second.text.contains("nothing heard in"), "\(second.text)")
        #expect(!second.text.contains("not a JSON object"), "\(second.text)")
        manifest = try RecordingManifest.read(directory: directory)
        #expect(manifest.entries.count == 1 + 2 * stopped)
        // One line a take: the file is the CRLF line, then the sessions' lines, each ended.
        let text = try String(contentsOfFile: directory + "/manifest.jsonl", encoding: .utf8)
        #expect(text.hasPrefix(dad + "\r\n{") && text.hasSuffix("}\n"))
        #expect(text.utf8.count(where: { $0 == UInt8(ascii: "\n") }) == 1 + 2 * stopped)
    }

    /// A microphone that clips at 48 kHz, brought to 16 kHz as plughw brings it (sox's
    /// converter): every take is asked for again and kept marked "clipped" (before, all 21 were
    /// kept as good takes: the converter leaves samples at full scale, not runs of three). The
    /// same voice normalised to −0.1 dBFS through the converter is kept unmarked.
    @Test(arguments: [(["vol", "8"], true), (["gain", "-n", "-0.1"], false)])
    func aTakeClippedBeforeTheRateConverterIsMarked(effects: [String], clips: Bool) throws {
        let home = try speakingHome()
        let at48 = home.file("48k.wav")
        try #require(
            try run(
                "sox",
                ["-D", "-R", home.file("spoken.wav"), "-r", "48000", at48, "silence", "1", "0.01", "0.5%"]
                    + effects,
                install: "sox") == 0)
        try #require(
            try run(
                "sox",
                [
                    "-R", at48, "-r", "16000", "-e", "signed", "-t", "raw", home.file("take.raw"), "pad",
                    "0.5", "1",
                ],
                install: "sox") == 0)
        let directory = home.file("voices")
        let result = try record(directory, speaker: "mom", device: "speech", home: home)
        try #require(result.status == 0, "\(result.text)")
        let problems = try RecordingManifest.read(directory: directory).entries.map(\.problem)
        #expect(problems.count == RecordingScript.sentences.count)
        if clips {
            #expect(problems.allSatisfy { $0 == .clipped }, "\(problems)")
            #expect(result.text.contains("again: too loud, clipped"), "\(result.text)")
        } else {
            #expect(problems.allSatisfy { $0 == nil }, "\(problems)")
            #expect(!result.text.contains("again:"), "\(result.text)")
        }
    }

    @Test func recordsEverySentenceWithAManifestAndAppends() throws {
        let home = try speakingHome()
        let directory = home.file("voices")
        let first = try record(directory, speaker: "mom", device: "speech", home: home)
        try #require(first.status == 0, "\(first.text)")
        var lines = try manifestLines(directory)
        #expect(lines.count == RecordingScript.sentences.count)
        #expect(lines.compactMap { $0["text"] as? String } == RecordingScript.sentences)
        for line in lines {
            #expect(line["speaker"] as? String == "mom")
            #expect(line["device"] as? String == "speech")
            #expect((line["time"] as? String)?.hasPrefix("20") == true)
            let file = try #require(line["file"] as? String)
            // A PCM WAV: "RIFF", 16 kHz at byte 24, three seconds of 16-bit samples.
            let wav = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + file))
            #expect(wav.prefix(4) == Data("RIFF".utf8))
            #expect(wav.count >= 44 + 96_000)
            #expect(wav[24..<28].reversed().reduce(0) { $0 << 8 | Int($1) } == 16_000)
        }
        #expect(first.text.contains("say: 여기 아니야"))
        // A second person adds to the same manifest.
        let second = try record(directory, speaker: "dad", device: "speech", home: home)
        try #require(second.status == 0, "\(second.text)")
        lines = try manifestLines(directory)
        #expect(lines.count == 2 * RecordingScript.sentences.count)
        #expect(lines.filter { $0["speaker"] as? String == "dad" }.count == RecordingScript.sentences.count)
        #expect(lines.allSatisfy { $0["problem"] == nil })
        // A window too short for the sentence: each is asked for three times, then kept marked,
        // so scoring and adaptation leave it out.
        let short = try record(directory, speaker: "kid", device: "speech", home: home, seconds: 1)
        try #require(short.status == 0, "\(short.text)")
        let kid = try manifestLines(directory).filter { $0["speaker"] as? String == "kid" }
        #expect(kid.count == RecordingScript.sentences.count)
        #expect(kid.allSatisfy { $0["problem"] as? String == "cutOff" })
        #expect(short.text.components(separatedBy: "again: cut off").count - 1 == 2 * kid.count)
        #expect(short.text.contains("kept with a problem, left out of scoring and adaptation: 21 cutOff"))
    }

    /// A microphone that hears nothing (ALSA's null device: unplugged, muted, the wrong one):
    /// each sentence is asked for three times, then kept marked, and after three such sentences
    /// in a row the session stops, exit 1, saying what to check; what it recorded stays listed
    /// (before, it went through all 42 sentences, 126 takes of nothing, and said "recorded 42
    /// sentences", exit 0).
    @Test func aMicrophoneThatHearsNothingStopsTheSession() async throws {
        let directory = NSTemporaryDirectory() + "pathfinder-record-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = await runPathfinder([
            "record", "--out", directory, "--speaker", "mom", "--device", "null", "--quiet", "--seconds", "1",
        ])
        #expect(result.code == 1, "\(result.out)")
        let stopped = Commands.silentSentencesToStop
        #expect(
            result.out.contains("[\(stopped)/42]") && !result.out.contains("[\(stopped + 1)/42]"),
            "\(result.out)")
        #expect(result.out.components(separatedBy: "again: nothing heard").count - 1 == 2 * stopped)
        #expect(!result.out.contains("recorded 42 sentences"), "\(result.out)")
        for words in [
            "nothing heard in \(stopped) sentences in a row", "capture device \"null\"", "arecord -l",
            "capture switch",
            "kept in \(directory)",
        ] {
            #expect(result.err.contains(words), "\(words): \(result.err)")
        }
        let manifest = try RecordingManifest.read(directory: directory)
        #expect(manifest.entries.map(\.text) == Array(RecordingScript.sentences.prefix(stopped)))
        #expect(manifest.entries.allSatisfy { $0.problem == .silent })
        let wavs = try FileManager.default.contentsOfDirectory(atPath: directory).filter {
            $0.hasSuffix(".wav")
        }
        #expect(Set(wavs) == Set(manifest.entries.map(\.file)))
    }

    /// A microphone that heard the first take, then nothing (unplugged mid-session): three
    /// sentences in a row with every take silent stop the session there too, exit 1, saying the
    /// microphone stopped hearing and what is kept (before, it went on through every sentence,
    /// 39 of 42 silent, and exited 0).
    @Test func aMicrophoneThatStopsHearingStopsTheSession() throws {
        let home = try speakingHome()
        // The spoken sentence with its pauses, over and over: every 3-second window holds it.
        let speech = try [UInt8](Data(contentsOf: URL(fileURLWithPath: home.file("take.raw"))))
        try #require(speech.count <= 2 * 3 * 16_000)
        // The microphone: a FIFO read through ALSA's file plugin, fed speech until the first
        // sentence is listed in the manifest, then silence.
        let feed = try Self.fifoMicrophone("person", in: home)
        defer { close(feed) }
        let directory = home.file("voices")
        let session = try Self.session(
            directory, device: "person", home: home, ["--seconds", "3", "--rounds", "1"])
        let shown = home.file("out.txt")
        try #require(FileManager.default.createFile(atPath: shown, contents: nil))
        session.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: shown))
        session.standardError = session.standardOutput
        try session.run()
        let silence = [UInt8](repeating: 0, count: 3_200)
        var offset = 0
        while session.isRunning {
            let heardOne =
                ((try? String(contentsOfFile: directory + "/manifest.jsonl", encoding: .utf8)) ?? "")
                .contains("\n")
            let written: Int
            if heardOne {
                written = write(feed, silence, silence.count)
            } else {
                written = speech.withUnsafeBufferPointer { buffer in
                    write(feed, buffer.baseAddress! + offset, min(3_200, speech.count - offset))
                }
                if written > 0 { offset = (offset + written) % speech.count }
            }
            if written < 0 { usleep(10_000) }
        }
        let text = try String(contentsOfFile: shown, encoding: .utf8)
        let stopped = Commands.silentSentencesToStop
        #expect(session.terminationStatus == 1, "\(text)")
        // The speech already in the FIFO when the first line was listed may be heard next.
        let manifest = try RecordingManifest.read(directory: directory)
        let n = manifest.entries.count
        #expect(n > stopped && n <= stopped + 2, "\(manifest.entries.map(\.problem))")
        #expect(text.contains("[\(n)/21]") && !text.contains("[\(n + 1)/21]"), "\(text)")
        #expect(!text.contains("recorded 21 sentences"), "\(text)")
        for words in [
            "stopped hearing", "nothing heard in \(stopped) sentences in a row", "capture device \"person\"",
            "plugged in", "The \(n) sentences of this session are kept in \(directory)",
        ] {
            #expect(text.contains(words), "\(words): \(text)")
        }
        #expect(manifest.entries.map(\.text) == Array(RecordingScript.sentences.prefix(n)))
        #expect(manifest.entries.first?.problem != .silent)
        #expect(manifest.entries.suffix(stopped).allSatisfy { $0.problem == .silent })
        #expect(manifest.entries[n - stopped - 1].problem != .silent)
    }

    /// The contract's `pathfinder record --out DIR [--device D]` was refused, exit 2 "--speaker
    /// ID is required". Without `--speaker` the folder's name is the speaker: one folder per
    /// person keeps people apart, and a second session in the same folder is the same person.
    @Test func withoutSpeakerTheFolderNamesTheSpeaker() async throws {
        let home = try speakingHome()
        let directory = home.file("mina")
        let result = try runCapturing(
            try BuiltExecutable.pathfinder().path,
            [
                "record", "--out", directory, "--device", "speech", "--quiet", "--seconds", "3", "--rounds",
                "1",
            ],
            standardOutput: true, environment: ["HOME": home.path])
        try #require(result.status == 0, "\(result.text)")
        #expect(result.text.contains("(mina, round 1;"), "\(result.text)")
        let lines = try manifestLines(directory)
        #expect(lines.count == RecordingScript.sentences.count)
        #expect(lines.allSatisfy { $0["speaker"] as? String == "mina" })
        #expect(lines.first?["file"] as? String == "mina-1-01.wav")
        #expect(FileManager.default.fileExists(atPath: directory + "/mina-1-21.wav"))
        // The contract's line as written gets past its flags: here to the missing device (1),
        // not to a usage error (2).
        let bare = await runPathfinder(["record", "--out", home.file("dad"), "--device", "hw:97,0"])
        #expect(
            bare.code == 1 && bare.err.contains("hw:97,0") && !bare.err.contains("--speaker"), "\(bare.err)")
    }

    /// A folder that already holds another person's recordings is shared: without `--speaker`
    /// the folder's name would split one of them into two IDs (or join two people), so it is
    /// refused before anyone is asked to speak, naming who is there.
    @Test func aSharedFolderNeedsSpeaker() async throws {
        let home = try Scratch()
        try FileManager.default.createDirectory(
            atPath: home.file("voices"), withIntermediateDirectories: true)
        let manifest = try home.write(
            "voices/manifest.jsonl",
            #"{"file": "dad-1-01.wav", "text": "여기 아니야", "speaker": "dad"}"# + "\n"
                + #"{"file": "mom-1-01.wav", "text": "여기 아니야", "speaker": "mom"}"# + "\n")
        let before = try String(contentsOfFile: manifest, encoding: .utf8)
        let result = await runPathfinder([
            "record", "--out", home.file("voices"), "--device", "null", "--quiet", "--seconds", "1",
        ])
        #expect(result.code == 2)
        #expect(
            result.err.contains("holds recordings of dad, mom") && result.err.contains("--speaker ID"),
            "\(result.err)")
        #expect(!result.out.contains("say:"), "\(result.out)")
        #expect(try String(contentsOfFile: manifest, encoding: .utf8) == before)
        // The folder's own name among them is that person again: not refused (checked up to the
        // device, which does not open).
        _ = try home.write(
            "voices/manifest.jsonl",
            #"{"file": "voices-1-01.wav", "text": "여기 아니야", "speaker": "voices"}"# + "\n")
        let again = await runPathfinder(["record", "--out", home.file("voices"), "--device", "hw:97,0"])
        #expect(again.code == 1 && again.err.contains("hw:97,0"), "\(again.err)")
    }

    @Test(arguments: [
        ("/tmp/x/mina", "mina"), ("/tmp/x/mina/", "mina"), ("/tmp/x/mina/.", "mina"),
        ("/tmp/x/mina/../dad", "dad"), ("/tmp/x/voices of mina.2024", "voices-of-mina-2024"),
        ("/tmp/x/민아", "민아"), ("/tmp/x/mom_2", "mom_2"),
    ])
    func theDefaultSpeakerIsTheFoldersName(folder: String, speaker: String) {
        #expect(Commands.defaultSpeaker(forFolder: folder) == speaker)
    }

    @Test func theRootFolderNamesNoSpeaker() async {
        #expect(Commands.defaultSpeaker(forFolder: "/") == nil)
        let result = await runPathfinder(["record", "--out", "/", "--device", "null"])
        #expect(result.code == 2 && result.err.contains("--speaker ID"), "\(result.err)")
    }

    @Test func badFlagsAreUsageErrors() async throws {
        let directory = NSTemporaryDirectory() + "pathfinder-record-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let noOut = await runPathfinder(["record", "--speaker", "a"])
        #expect(noOut.code == 2 && noOut.err.contains("--out"))
        let badSpeaker = await runPathfinder(["record", "--out", directory, "--speaker", "a/b"])
        #expect(badSpeaker.code == 2 && badSpeaker.err.contains("a/b"))
        let badSeconds = await runPathfinder([
            "record", "--out", directory, "--speaker", "a", "--seconds", "0",
        ])
        #expect(badSeconds.code == 2 && badSeconds.err.contains("\"0\""))
        let unknown = await runPathfinder(["record", "--out", directory, "--speaker", "a", "--sekonds", "2"])
        #expect(unknown.code == 2)
        #expect(!FileManager.default.fileExists(atPath: directory + "/manifest.jsonl"))
    }

    /// No loudspeaker for the prompt: the error names it and says how to record without one,
    /// before anything is made or anyone asked to speak (before, the folder was made and the
    /// first prompt shown, then it failed).
    @Test func aMissingPlaybackDeviceSuggestsQuiet() async throws {
        let directory = NSTemporaryDirectory() + "pathfinder-record-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = await runPathfinder([
            "record", "--out", directory, "--speaker", "a", "--device", "null", "--playback", "hw:97,0",
            "--seconds", "1", "--rounds", "1",
        ])
        #expect(result.code == 1)
        #expect(result.err.contains("the prompt's sound device hw:97,0"), "\(result.err)")
        #expect(result.err.contains("--quiet shows the prompts without speaking them"), "\(result.err)")
        #expect(result.err.contains("nothing was recorded"), "\(result.err)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/a-1-01.wav"))
        #expect(!FileManager.default.fileExists(atPath: directory), "the folder was made")
        #expect(!result.out.contains("say:"), "\(result.out)")
    }

    @Test func aMissingDeviceIsARuntimeError() async throws {
        let directory = NSTemporaryDirectory() + "pathfinder-record-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = await runPathfinder([
            "record", "--out", directory, "--speaker", "a", "--device", "hw:97,0", "--quiet", "--rounds", "1",
        ])
        #expect(result.code == 1)
        #expect(
            result.err.contains("hw:97,0") && result.err.contains("nothing was recorded"), "\(result.err)")
        // How to list the devices is said once (before, "…list them with arecord -l / aplay -l)
        // (nothing was recorded; arecord -l lists the devices)").
        #expect(result.err.components(separatedBy: "arecord -l").count - 1 == 1, "\(result.err)")
        // A capture device, listed by arecord (before: "sound device hw:97,0 … arecord -l / aplay -l").
        #expect(result.err.contains("capture device hw:97,0"), "\(result.err)")
        #expect(!result.err.contains("aplay"), "\(result.err)")
        // Checked before anyone is asked to speak (before, after the first prompt), and before
        // the folder is made.
        #expect(!result.out.contains("say:"), "\(result.out)")
        #expect(!FileManager.default.fileExists(atPath: directory), "the folder was made")
    }
}
