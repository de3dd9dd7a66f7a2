import Foundation
import TestSupport
import Testing

/// The real `pathfinder` executable as a subprocess: real exit codes, real stdout/stderr.
@Suite("The pathfinder binary")
struct BinaryTests {
    /// The built `pathfinder`, as every test that runs the binary finds it.
    static func binary() throws -> String { try BuiltExecutable.pathfinder().path }

    func run(_ argv: [String]) throws -> (code: Int32, out: String, err: String) {
        try Self.run(executable: try Self.binary(), argv)
    }

    /// Runs `executable` with `argv` (in `directory` and with `environment` when given) and
    /// waits for it.
    static func run(
        executable: String, _ argv: [String], directory: String? = nil, environment: [String: String]? = nil
    ) throws -> (code: Int32, out: String, err: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = argv
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        if let environment { process.environment = environment }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: outData, as: UTF8.self),
            String(decoding: errData, as: UTF8.self)
        )
    }

    /// An installed binary whose $PATHFINDER_DATA names no data: `demo` says where it looked,
    /// that place first (before, only the binary's own folder, which no one had set).
    @Test func demoWithoutDataNamesWhereItLooked() throws {
        let dir = try Scratch()
        try FileManager.default.createDirectory(atPath: dir.file("bin"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: try Self.binary(), toPath: dir.file("bin/pathfinder"))
        let r = try Self.run(
            executable: dir.file("bin/pathfinder"), ["demo", "--speak-wav", dir.file("wav")],
            environment: ["PATHFINDER_DATA": dir.file("data"), "PATH": "/usr/bin:/bin"])
        #expect(r.code == 1)
        #expect(
            r.err.contains(
                "no demo.json (looked in \(dir.file("data"))/artifacts/demo, \(dir.file("bin"))/artifacts/demo and its parents)"
            ), "\(r.err)")
        // The door index and the gazetteer are missing the same way: a run-time failure naming
        // the place (before, `doors near` said exit 2, bad input, though no input was given).
        for argv in [["doors", "near", "60.17", "24.94"], ["where", "60.17", "24.94"]] {
            let missing = try Self.run(
                executable: dir.file("bin/pathfinder"), argv,
                environment: ["PATHFINDER_DATA": dir.file("data"), "PATH": "/usr/bin:/bin"])
            #expect(
                missing.code == 1 && missing.err.contains(dir.file("data") + "/artifacts/"), "\(missing.err)")
        }
    }

    @Test func exampleExitsZeroWithTheGoldenPlan() throws {
        let r = try run([
            "plan", "--destination", try fixture("example/destination.json"), "--osm",
            try fixture("example/rautatieasema.osm"),
        ])
        #expect(r.code == 0)
        #expect(
            r.out
                == (try String(
                    contentsOfFile: try fixture("Snapshots/plan-rautatieasema.json"), encoding: .utf8)))
        #expect(r.err.isEmpty)
    }

    @Test func usageAndBadInputExit2() throws {
        let missing = try run(["plan"])
        #expect(missing.code == 2)
        #expect(missing.err == "pathfinder plan: --destination is required\n")
        let dir = try Scratch()
        let bad = try dir.write("d.json", "{\"name\": \"R\",\n\"center\": {\"lat\": 60}}")
        let malformed = try run(["plan", "--destination", bad])
        #expect(malformed.code == 2)
        #expect(
            malformed.err.contains("\(bad): not a valid destination: line 2: field center.lon is missing"))
        #expect(try run(["memory", "forget"]).code == 2)
        #expect(try run(["fly"]).code == 2)
    }

    /// Numbers on the command line are plain decimals (a sign, digits, a point): Swift's
    /// `Double` also reads "0x10" as 16, "1e2" as 100 and "inf"/"nan", none of which anyone
    /// means as seconds, metres or degrees (before, `replay --doors-after 0x10` waited 16 s,
    /// `memory confirm --center 0x3C,0x18` wrote a building at 60, 24).
    @Test(arguments: [
        (
            ["replay", "--doors-after", "0x10", "--osm", repositoryRoot + "/artifacts/demo/doors.osm"],
            "--doors-after \"0x10\""
        ),
        (["replay", "--last-stretch-metres", "1e2"], "--last-stretch-metres \"1e2\""),
        (["replay", "--audio-start", "0x8", "--audio", "none.wav"], "--audio-start \"0x8\""),
        (
            [
                "record", "--out", "/nonexistent/v", "--speaker", "a", "--seconds", "0x2", "--device",
                "hw:97,0",
            ], "--seconds \"0x2\""
        ),
        (
            [
                "record", "--out", "/nonexistent/v", "--speaker", "a", "--seconds", "2e0", "--device",
                "hw:97,0",
            ], "--seconds \"2e0\""
        ),
        (
            ["doors", "near", "60.17", "24.94", "--radius", "0x10", "--db", "/nonexistent.db"],
            "--radius \"0x10\""
        ),
        (["doors", "near", "0x3C", "24.94", "--db", "/nonexistent.db"], "\"0x3C 24.94\""),
        (
            ["doors", "search", "a", "--near", "0x3C", "24.94", "--db", "/nonexistent.db"],
            "\"0x3C\" is not a latitude"
        ),
        (["listen", "--mic", "--seconds", "0x1", "--device", "hw:97,0"], "--seconds \"0x1\""),
        (
            [
                "memory", "confirm", "--file", "MEMORY", "--name", "R", "--center", "0x3C,0x18",
                "--door", "60,24",
            ], "--center \"0x3C,0x18\""
        ),
        (
            [
                "memory", "confirm", "--file", "MEMORY", "--name", "R", "--center", "60,24",
                "--door", "60,24", "--altitude", "1e1,3",
            ], "--altitude \"1e1,3\""
        ),
    ])
    func numbersAreDecimal(argv: [String], named: String) throws {
        let walk = [
            "--nmea", repositoryRoot + "/artifacts/demo/walk.nmea", "--destination",
            repositoryRoot + "/artifacts/demo/destination.json",
        ]
        // A memory the command would write, were the number taken.
        let scratch = try Scratch()
        defer { withExtendedLifetime(scratch) {} }
        let memory = scratch.file("memory.json")
        let r = try run((argv.first == "replay" ? argv + walk : argv).map { $0 == "MEMORY" ? memory : $0 })
        #expect(r.code == 2, "\(r.err)")
        #expect(r.err.contains(named), "\(r.err)")
        #expect(r.out.isEmpty, "\(r.out)")
        #expect(!FileManager.default.fileExists(atPath: memory))
    }

    /// Output that cannot be written — a full disk, or a reader gone while SIGPIPE is ignored
    /// (as systemd runs services) — exits 1 with one line saying why (before: `FileHandle.write`
    /// trapped: a crash report, exit 132).
    @Test(arguments: [
        ("exec \"$0\" --help >/dev/full", "No space left on device"),
        (
            "trap '' PIPE; \"$0\" search a --limit 1000 | head -c 1 >/dev/null; exit ${PIPESTATUS[0]}",
            "Broken pipe"
        ),
    ])
    func outputThatCannotBeWrittenExits1(script: String, reason: String) throws {
        let r = try Self.run(executable: "/bin/bash", ["-c", script, try Self.binary()])
        #expect(r.code == 1, "\(r.err)")
        #expect(r.err == "pathfinder: cannot write to standard output: \(reason)\n")
    }

    /// A FIFO given as a database is refused at once, naming what it is (before: SQLite's open
    /// waited for a writer for ever; in the daemon's start, where no signal could stop it).
    @Test(arguments: [["doors", "near", "60", "24", "--db"], ["where", "60", "24", "--db"]])
    func aFIFOAsADatabaseIsRefused(argv: [String]) throws {
        let dir = try Scratch()
        let fifo = dir.file("x.db")
        #expect(mkfifo(fifo, 0o600) == 0)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Self.binary())
        process.arguments = argv + [fifo]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        var waited = 0
        while process.isRunning, waited < 1000 {
            usleep(10_000)
            waited += 1
        }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(waited < 1000, "still waiting on the FIFO after 10 s")
        #expect(process.terminationStatus == 2, "\(text)")
        #expect(text.contains("is a FIFO (named pipe), not a file"), "\(text)")
    }

    @Test func aWriteThatFailsExits1() throws {
        let dir = try Scratch()
        // A plain file where a directory should be: missing directories are made, this is not.
        let blocker = try dir.write("plain", "")
        let r = try run([
            "memory", "reject", "--file", blocker + "/m.json", "--name", "R", "--center", "60,24",
            "--door", "60,24",
        ])
        #expect(r.code == 1)
        #expect(
            // (the lock on the memory's folder is the first to open it)
            r.err.contains("pathfinder memory reject: \(blocker)/m.json: cannot write: open \(blocker)"),
            "\(r.err)")
        #expect(r.err.contains("Not a directory"), "\(r.err)")
    }

    @Test func aWriteIntoMissingDirectoriesMakesThemPrivate() throws {
        let dir = try Scratch()
        let path = dir.file("share/pathfinder/m.json")
        let r = try run([
            "memory", "reject", "--file", path, "--name", "R", "--center", "60,24", "--door", "60,24",
        ])
        #expect(r.code == 0, "\(r.err)")
        var info = stat()
        #expect(stat(dir.file("share/pathfinder"), &info) == 0 && info.st_mode & 0o777 == 0o700)
    }
}

@Suite("pathfinder fixes, interrupted")
struct FixesInterruptTests {
    /// `fixes --gpsd` runs until stopped; Ctrl-C (SIGINT) or SIGTERM must still end with the
    /// one-line summary on stderr, not die mid-line. Exit 1: no gpsd was ever reached (exit 0
    /// is for a stream that ran).
    @Test(arguments: [SIGINT, SIGTERM])
    func signalEndsTheStreamWithTheSummary(signal number: Int32) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try BinaryTests.binary())
        // Port 1 on loopback: nothing listens, so the client keeps reconnecting until stopped.
        process.arguments = ["fixes", "--gpsd", "127.0.0.1:1"]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Give the command a second to start and install its handlers (it prints nothing
        // before its first fix, so there is nothing to wait for instead).
        usleep(1_000_000)
        kill(process.processIdentifier, number)
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: errData, as: UTF8.self)
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 1)
        #expect(text.contains("pathfinder fixes: 0 fixes, 0 no-fix epochs, 0 pressures"), "\(text)")
    }
}
