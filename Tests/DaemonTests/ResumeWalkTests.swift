import Arrival
import Daemon
import Foundation
import Glibc
import Storage
import TestSupport
import Testing

/// A daemon restarted mid-walk (SIGKILL, SIGTERM, a crash and systemd's `Restart=`) resumes the
/// walk from the walk file beside the memory (`memory.json.walk`), and says so.
@Suite(.serialized) struct ResumeWalkTests {
    static let go =
        #"{"cmd": "go", "destination": {"name": "Rautatieasema", "center": {"lat": 60.1711, "lon": 24.9414}}}"#

    static func status(_ daemon: DaemonProcess) throws -> [String: JSONValue] {
        fields(try daemon.client().request(#"{"cmd": "status"}"#))
    }

    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : nil
    }

    /// Before: after the restart `status` said idle and nothing was said. Now the walk goes on to
    /// the same destination and the walker hears "안내를 다시 시작할게. 목적지는 Rautatieasema.";
    /// `stop` removes the file, so the next start is idle and silent.
    @Test(arguments: [SIGKILL, SIGTERM])
    func aWalkCutByARestartIsResumedAndSaidSo(signal: Int32) throws {
        let dir = TempDir()
        defer { dir.remove() }
        let walkFile = dir.path + "/memory.json.walk"
        let first = try DaemonProcess.listening(in: dir)
        #expect(fields(try first.client().request(Self.go))["ok"] == .bool(true))
        #expect(Self.mode(walkFile) == 0o600, "the walk file, mode 0600: \(first.stderr)")
        first.signal(signal)
        _ = first.waitForExit()

        let second = try DaemonProcess.listening(in: dir)
        let status = try Self.status(second)
        #expect(status["state"] == "walking", "\(status)\n\(second.stderr)")
        #expect(status["destination"]?.objectValue?["name"] == "Rautatieasema", "\(status)")
        #expect(second.logs("resuming the walk to Rautatieasema begun at "), "\(second.stderr)")
        #expect(second.logs("say: 안내를 다시 시작할게. 목적지는 Rautatieasema."), "\(second.stderr)")

        #expect(fields(try second.client().request(#"{"cmd": "stop"}"#))["state"] == "idle")
        #expect(Self.mode(walkFile) == nil, "stop removes the walk file")
        second.signal(SIGKILL)
        _ = second.waitForExit()
        let third = try DaemonProcess.listening(in: dir)
        #expect(try Self.status(third)["state"] == "idle")
        #expect(!third.stderr.contains("resuming"), "\(third.stderr)")
        third.signal(SIGTERM)
        #expect(third.waitForExit() == 0)
    }

    /// The memory file turned into a link to another folder while the daemon runs (a family's
    /// synced folder): the next walk's file is written beside the file the link leads to, where
    /// the next start looks, and the one beside the link is removed. Before (audit 11 A11-3),
    /// it stayed beside the link: a restart mid-walk resumed nothing (idle, nothing said), and
    /// the stale file was left for a later start to resume.
    @Test func theWalkFileFollowsTheMemoryFileIntoTheFolderItNowLeadsTo() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let first = try DaemonProcess.listening(in: dir)
        #expect(fields(try first.client().request(Self.go))["ok"] == .bool(true))
        let beside = dir.path + "/memory.json.walk"
        #expect(Self.mode(beside) != nil, "\(first.stderr)")
        let family = dir.path + "/family"
        try FileManager.default.createDirectory(atPath: family, withIntermediateDirectories: true)
        try MemoryFile.encode(EntranceMemory()).write(to: URL(fileURLWithPath: family + "/linked.json"))
        try FileManager.default.createSymbolicLink(
            atPath: dir.path + "/memory.lnk", withDestinationPath: family + "/linked.json")
        #expect(rename(dir.path + "/memory.lnk", dir.path + "/memory.json") == 0)
        let kamppi =
            #"{"cmd": "go", "destination": {"name": "Kamppi", "center": {"lat": 60.1690, "lon": 24.9320}}}"#
        #expect(fields(try first.client().request(kamppi))["ok"] == .bool(true))
        let moved = family + "/linked.json.walk"
        for _ in 0..<250 where Self.mode(moved) == nil { usleep(20_000) }
        #expect(Self.mode(moved) == 0o600, "\(first.stderr)")
        #expect(Self.mode(beside) == nil, "the walk file beside the link is left: \(first.stderr)")
        // The log says what happened (before: "memory folder … was replaced"), and the lock
        // file left beside the link is gone (the lock is in the family folder now).
        let said = "memory file \(dir.path)/memory.json now leads to another folder, \(family)"
        for _ in 0..<250 where !first.stderr.contains(said) { usleep(20_000) }
        #expect(first.stderr.contains(said), "\(first.stderr)")
        #expect(!first.stderr.contains("was replaced while the daemon ran"), "\(first.stderr)")
        #expect(Self.mode(dir.path + "/.memory.json.daemon") == nil, "\(first.stderr)")
        #expect(Self.mode(family + "/.linked.json.daemon") != nil, "\(first.stderr)")
        first.signal(SIGKILL)
        _ = first.waitForExit()

        let second = try DaemonProcess.listening(in: dir)
        let status = try Self.status(second)
        #expect(status["state"] == "walking", "\(status)\n\(second.stderr)")
        #expect(status["destination"]?.objectValue?["name"] == "Kamppi", "\(status)")
        #expect(second.logs("say: 안내를 다시 시작할게. 목적지는 Kamppi."), "\(second.stderr)")
        second.signal(SIGTERM)
        #expect(second.waitForExit() == 0)
    }

    /// A walk begun more than 2 h before the start is not resumed (logged, its file removed); a
    /// walk file that is no walk is set aside with a warning worded as every JSON file's (the
    /// line and field: before, "is not a walk (…)" in words of its own, and a version no line),
    /// and the daemon runs idle.
    @Test(arguments: [
        (
            #"{"version": 1, "since": "2020-01-01T08:00:00Z", "destination": {"name": "Rautatieasema", "center": {"lat": 60.1711, "lon": 24.9414}}}"#,
            "not resuming the walk to Rautatieasema begun at 2020-01-01T08:00:00Z: more than 2 h ago", false
        ),
        (#"{"version": 1, "since": "#, "memory.json.walk: line 1: not valid JSON: ", true),
        (
            #"{"version": 1, "since": "2020-01-01T08:00:00Z", "destination": {"name": " ", "center": {"lat": 60.1711, "lon": 24.9414}}}"#,
            "memory.json.walk: line 1: field destination.name: the name is empty", true
        ),
        (
            "{\n  \"version\": 2,\n  \"walk\": {}\n}\n",
            "memory.json.walk: line 2: field version: version 2 is not one this Pathfinder reads (1);", true
        ),
    ])
    func anOldOrDamagedWalkFileIsNotResumed(content: String, logged: String, setAside: Bool) throws {
        let dir = TempDir()
        defer { dir.remove() }
        let walkFile = dir.path + "/memory.json.walk"
        try content.write(toFile: walkFile, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess.listening(in: dir)
        #expect(daemon.logs(logged), "\(daemon.stderr)")
        #expect(try Self.status(daemon)["state"] == "idle")
        #expect(!daemon.stderr.contains("다시 시작"), "\(daemon.stderr)")
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        #expect(!entries.contains("memory.json.walk"), "\(entries)")
        if setAside {
            #expect(daemon.stderr.contains("<4>warning: walk file \(walkFile): "), "\(daemon.stderr)")
            #expect(daemon.stderr.contains("; set aside as \(walkFile).corrupt-"), "\(daemon.stderr)")
            #expect(entries.contains { $0.hasPrefix("memory.json.walk.corrupt-") }, "set aside: \(entries)")
        }
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }
}

/// The walk file outlives the walk until what the walk taught is in the memory: a daemon killed
/// during the save, or a save that failed, leaves the walk for the next start to resume and ask
/// again (before, "여기가 입구야" over the socket removed the file before the save).
@Suite(.serialized) struct ResumeWalkMemoryTests {
    static func chattr(_ flag: String, _ path: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
        process.arguments = [flag, path]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "chattr \(flag) \(path) failed (needs root and ext4)")
    }

    /// The memory file made immutable (`chattr +i`: the rename over it fails) during the walk:
    /// the confirmation's save fails, and the walk file stays, so a restart resumes the walk.
    @Test func aWalkWhoseAnswerWasNotSavedIsLeftToResume() throws {
        try #require(getuid() == 0, "needs root for chattr +i")
        let dir = TempDir()
        defer { dir.remove() }
        let memoryPath = dir.path + "/memory.json"
        let walkFile = memoryPath + ".walk"
        try MemoryFile.save(EntranceMemory(), path: memoryPath)
        let walk = try MemoryDaemonTests.Walk(dir: dir, arguments: ["--memory", memoryPath])
        try Self.chattr("+i", memoryPath)
        defer { try? Self.chattr("-i", memoryPath) }
        _ = try walk.confirmAtTheFirstDoor()
        let failed = try #require(
            walk.events.next {
                $0["event"] == "memoryFailed" && $0["reason"]?.stringValue?.contains("rename") == true
            },
            "\(walk.daemon.stderr)")
        _ = failed
        _ = walk.events.next(EndToEndTests.event("walkEnded"))
        let status = fields(try walk.requests.request(#"{"cmd": "status"}"#))
        #expect(status["state"] == "idle", "\(status)")
        guard case .walk(let kept) = WalkFile.load(path: walkFile) else {
            Issue.record("no walk file after a failed save:\n\(walk.daemon.stderr)")
            walk.stop()
            return
        }
        #expect(kept.destination.name == "Siltavuorenpenger 10")
        #expect(
            walk.daemon.stderr.contains("walk file \(walkFile) kept: the memory was not saved"),
            "\(walk.daemon.stderr)")
        walk.daemon.signal(SIGKILL)
        _ = walk.daemon.waitForExit()
        walk.events.drain()
        walk.gpsd.stop()
        walk.feeder.shutdown()

        try Self.chattr("-i", memoryPath)
        let again = try DaemonProcess(
            arguments: [
                "--memory", memoryPath, "--socket", dir.path + "/pf.sock", "--no-mic", "--baro", "none",
                "--gpsd", "127.0.0.1:9", "--speak-wav", dir.path + "/wav",
            ],
            socket: dir.path + "/pf.sock", dir: dir)
        try #require(again.waitUntilListening(), "\(again.stderr)")
        #expect(again.logs("resuming the walk to Siltavuorenpenger 10"), "\(again.stderr)")
        // The reason says the answer too (audit 8, A8-8: before, only "the daemon stopped during
        // it", which it had not: the walk had ended, its answer unsaved).
        let resuming = again.stderr.split(separator: "\n").first { $0.contains("resuming the walk to") }
        #expect(
            resuming?.hasSuffix(
                ": the daemon stopped during it or before the answer given at its door was saved")
                == true, "\(again.stderr)")
        again.signal(SIGTERM)
        #expect(again.waitForExit() == 0)
    }
}

/// Within one boot a walk's age is judged by CLOCK_BOOTTIME, which the wall clock's steps do
/// not move (a Pi without a real-time clock set by NTP during the walk): before, a walk begun
/// seconds ago whose wall `since` was a day off was dropped as "more than 2 h ago".
@Suite(.serialized) struct ResumeWalkBootClockTests {
    @Test(arguments: [(10.0, true), (3 * 3600.0, false)])
    func aWalkOfThisBootIsJudgedByTheBootClock(secondsAgo: Double, resumed: Bool) throws {
        let bootID = try String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        var now = timespec()
        clock_gettime(CLOCK_BOOTTIME, &now)
        let bootSeconds = Double(now.tv_sec) - secondsAgo
        let since = Date.ISO8601FormatStyle().format(Date().addingTimeInterval(-86_400))
        let dir = TempDir()
        defer { dir.remove() }
        let walkFile = dir.path + "/memory.json.walk"
        try """
        {"version": 1, "since": "\(since)", "bootID": "\(bootID)", "bootSeconds": \(bootSeconds), \
        "destination": {"name": "Rautatieasema", "center": {"lat": 60.1711, "lon": 24.9414}}}
        """.write(toFile: walkFile, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess.listening(in: dir)
        let status = try ResumeWalkTests.status(daemon)
        #expect(status["state"] == (resumed ? "walking" : "idle"), "\(status)\n\(daemon.stderr)")
        if resumed {
            #expect(daemon.logs("resuming the walk to Rautatieasema"), "\(daemon.stderr)")
        } else {
            #expect(
                daemon.logs("not resuming the walk to Rautatieasema begun at \(since): more than 2 h ago"))
            #expect(ResumeWalkTests.mode(walkFile) == nil, "removed")
        }
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }
}

/// A walk file in a folder that cannot be changed (`chattr +i`: unlink and rename fail) is
/// emptied in place when the walk stops, so a restart does not resume the stopped walk
/// (before, it did, and the warning said otherwise).
@Suite(.serialized) struct ResumeWalkReadOnlyTests {
    @Test func aStoppedWalksFileThatCannotBeRemovedIsEmptied() throws {
        try #require(getuid() == 0, "needs root for chattr +i")
        let dir = TempDir()
        defer { dir.remove() }
        let folder = try ResumeWalkUnwritableFolderTests.folder(in: dir)
        let walkFile = folder + "/memory.json.walk"
        func daemon() throws -> DaemonProcess {
            let started = try DaemonProcess(
                arguments: [
                    "--memory", folder + "/memory.json", "--socket", dir.path + "/pf.sock", "--no-mic",
                    "--baro",
                    "none", "--gpsd", "127.0.0.1:9", "--speak-wav", dir.path + "/wav",
                ], socket: dir.path + "/pf.sock", dir: dir)
            try #require(started.waitUntilListening(), "\(started.stderr)")
            return started
        }
        let first = try daemon()
        #expect(fields(try first.client().request(ResumeWalkTests.go))["ok"] == .bool(true))
        first.signal(SIGKILL)
        _ = first.waitForExit()
        try ResumeWalkMemoryTests.chattr("+i", folder)
        defer { try? ResumeWalkMemoryTests.chattr("-i", folder) }
        let second = try daemon()
        #expect(second.logs("resuming the walk to Rautatieasema"), "\(second.stderr)")
        #expect(fields(try second.client().request(#"{"cmd": "stop"}"#))["state"] == "idle")
        #expect(second.logs("emptied it in place: a restart will not resume the walk"), "\(second.stderr)")
        second.signal(SIGKILL)
        _ = second.waitForExit()
        let third = try daemon()
        #expect(try ResumeWalkTests.status(third)["state"] == "idle", "\(third.stderr)")
        #expect(!third.stderr.contains("resuming"), "\(third.stderr)")
        #expect(!third.stderr.contains("not a walk"), "an empty file is no walk, silently: \(third.stderr)")
        third.signal(SIGTERM)
        #expect(third.waitForExit() == 0)
        try ResumeWalkMemoryTests.chattr("-i", folder)
        #expect(ResumeWalkTests.mode(walkFile) != nil)
    }
}

/// Audit 1 F2: the walk file's warnings in a folder the daemon cannot write (mode 0500, the
/// daemon run without root's power to write anywhere) say what the file on disk holds, not what
/// the daemon last tried to write: a restart "would resume" only a walk a file holds, and a file
/// that is not there (truncate's ENOENT) is no walk to resume, not a failure.
@Suite(.serialized) struct ResumeWalkUnwritableFolderTests {
    static let goSiltavuorenpenger =
        #"{"cmd": "go", "destination": {"name": "Siltavuorenpenger 10", "center": {"lat": 60.1753029, "lon": 24.9516901}}}"#

    static func daemon(_ dir: TempDir, folder: String) throws -> DaemonProcess {
        let started = try DaemonProcess(
            arguments: [
                "--memory", folder + "/memory.json", "--socket", dir.path + "/pf.sock", "--no-mic", "--baro",
                "none", "--gpsd", "127.0.0.1:9", "--speak-wav", dir.path + "/wav",
            ], socket: dir.path + "/pf.sock", dir: dir, asUnprivileged: true)
        try #require(started.waitUntilListening(), "\(started.stderr)")
        return started
    }

    /// The memory's folder, made in `dir` (writable until a test says otherwise).
    static func folder(in dir: TempDir) throws -> String {
        let folder = dir.path + "/ro"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        return folder
    }

    /// No walk file can be written: before, "could not empty it either (truncate …: No such
    /// file or directory): a restart would resume no walk, not this one". Audit 9 A9-5: the
    /// `stop` has no walk file to remove; before, it logged "walk file … removed after all", as if
    /// a stale walk file had been lying there.
    @Test func aWalkFileThatCouldNotBeWrittenIsNoWalkToResume() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let folder = try Self.folder(in: dir)
        #expect(chmod(folder, 0o500) == 0)
        defer { chmod(folder, 0o700) }
        let daemon = try Self.daemon(dir, folder: folder)
        #expect(fields(try daemon.client().request(ResumeWalkTests.go))["ok"] == .bool(true))
        #expect(daemon.logs("<4>warning: walk file: "), "\(daemon.stderr)")
        #expect(fields(try daemon.client().request(#"{"cmd": "stop"}"#))["state"] == "idle")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        let log = daemon.stderr
        #expect(
            log.contains("; there is no walk file: a restart will not resume this walk"), "\(log)")
        #expect(!log.contains("could not empty it either"), "\(log)")
        #expect(!log.contains("would resume the walk to"), "\(log)")
        #expect(!log.contains("removed after all"), "\(log)")
        #expect(ResumeWalkTests.mode(folder + "/memory.json.walk") == nil)
    }

    /// Audit 8 A8-2: the walk file cannot be written at `go` (a full disk; here its folder
    /// read-only); once it can be (space again), it is written by itself on the memory's retry
    /// schedule, and a daemon killed later in the walk resumes it. Before, it was never tried
    /// again (the walk counted as asked for): the restart was idle and the walker left in silence.
    @Test func aWalkFileThatCouldNotBeWrittenIsWrittenOnceItCanBe() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let folder = try Self.folder(in: dir)
        let walkFile = folder + "/memory.json.walk"
        #expect(chmod(folder, 0o500) == 0)
        defer { chmod(folder, 0o700) }
        let first = try Self.daemon(dir, folder: folder)
        #expect(fields(try first.client().request(Self.goSiltavuorenpenger))["ok"] == .bool(true))
        #expect(first.logs("there is no walk file: a restart will not resume this walk"), "\(first.stderr)")
        #expect(chmod(folder, 0o700) == 0)
        #expect(
            first.logs(
                "<6>info: walk file \(walkFile) written after all: a restart resumes the walk to Siltavuorenpenger 10"
            ), "\(first.stderr)")
        #expect(ResumeWalkTests.mode(walkFile) == 0o600, "\(first.stderr)")
        first.signal(SIGKILL)
        _ = first.waitForExit()

        let second = try Self.daemon(dir, folder: folder)
        #expect(second.logs("resuming the walk to Siltavuorenpenger 10 begun at "), "\(second.stderr)")
        #expect(try ResumeWalkTests.status(second)["state"] == "walking")
        second.signal(SIGKILL)
        _ = second.waitForExit()
    }

    /// The file holds the walk to Siltavuorenpenger 10 when the folder and the file become
    /// read-only; a `go` to Rautatieasema cannot replace it, nor a `stop` remove it. Before, the
    /// stop's warning said a restart would resume the walk to Rautatieasema, which no file held.
    @Test func theWarningNamesTheWalkTheFileHolds() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let folder = try Self.folder(in: dir)
        let walkFile = folder + "/memory.json.walk"
        defer { chmod(folder, 0o700) }
        let first = try Self.daemon(dir, folder: folder)
        #expect(fields(try first.client().request(Self.goSiltavuorenpenger))["ok"] == .bool(true))
        #expect(ResumeWalkTests.mode(walkFile) == 0o600, "\(first.stderr)")
        #expect(chmod(walkFile, 0o400) == 0 && chmod(folder, 0o500) == 0)
        #expect(fields(try first.client().request(ResumeWalkTests.go))["ok"] == .bool(true))
        #expect(
            first.logs("a restart within 2 h would resume the walk to Siltavuorenpenger 10, not this one"),
            "\(first.stderr)")
        #expect(fields(try first.client().request(#"{"cmd": "stop"}"#))["state"] == "idle")
        #expect(first.logs("could not empty it either"), "\(first.stderr)")
        first.signal(SIGKILL)
        _ = first.waitForExit()
        let log = first.stderr
        #expect(!log.contains("would resume the walk to Rautatieasema"), "\(log)")
        let stopLine = log.split(separator: "\n").last { $0.contains("could not empty it either") } ?? ""
        #expect(
            stopLine.hasSuffix("a restart within 2 h would resume the walk to Siltavuorenpenger 10"), "\(log)"
        )

        // And so it does.
        let second = try Self.daemon(dir, folder: folder)
        #expect(second.logs("resuming the walk to Siltavuorenpenger 10"), "\(second.stderr)")
        second.signal(SIGKILL)
        _ = second.waitForExit()
    }
}
