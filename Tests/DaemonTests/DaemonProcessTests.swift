import Daemon
import Foundation
import Glibc
import TestSupport
import Testing

/// The real `pathfinder daemon` in a subprocess, talked to over its socket.
@Suite(.serialized) struct DaemonProcessTests {
    @Test func badRequestsGetErrorsWhileASecondClientKeepsWorking() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let daemon = try DaemonProcess.listening(in: dir)
        #expect(permissions(daemon.socket) == 0o600)

        let bad = try daemon.client()
        let good = try daemon.client()
        #expect(fields(try bad.request("{nope")).keys.sorted() == ["error", "ok"])
        #expect(fields(try bad.request("{nope"))["ok"] == .bool(false))
        #expect(fields(try good.request(#"{"cmd": "status"}"#))["state"] == .string("idle"))
        let unknown = fields(try bad.request(#"{"cmd": "fly"}"#))
        #expect(unknown["ok"] == .bool(false))
        #expect(unknown["error"]?.stringValue?.contains("unknown command \"fly\"") == true)

        // 70 KiB on one line: an error, then the same connection serves the next line.
        let huge = #"{"cmd": "heard", "text": ""# + String(repeating: "가", count: 24 * 1024) + #""}"#
        #expect(huge.utf8.count > 64 * 1024)
        let oversized = fields(try bad.request(huge))
        #expect(oversized["ok"] == .bool(false))
        #expect(oversized["error"]?.stringValue?.contains("longer than 65536 bytes") == true)
        #expect(fields(try bad.request(#"{"cmd": "status"}"#))["ok"] == .bool(true))

        // A client that vanishes mid-line disturbs nobody.
        do {
            let vanishing = try daemon.client()
            try vanishing.write(Array(#"{"cmd": "sta"#.utf8))
        }
        let subscriber = try daemon.client()
        #expect(fields(try subscriber.request(#"{"cmd": "subscribe"}"#))["subscribed"] == .bool(true))
        let go = fields(
            try good.request(
                #"{"cmd": "go", "destination": {"name": "Rautatieasema", "center": {"lat": 60.1711, "lon": 24.9414}}}"#
            ))
        #expect(go["ok"] == .bool(true))
        #expect(fields(try good.request(#"{"cmd": "status"}"#))["state"] == .string("walking"))
        let plan = fields(subscriber.readLine())
        #expect(plan["event"] == .string("plan"))
        #expect(plan["t"]?.stringValue?.contains("T") == true, "a wall-clock ISO 8601 t")
        // Not in the last stretch (no position yet): the answer is understood, not heeded.
        let heard = fields(try good.request(#"{"cmd": "heard", "text": "여기 아니야"}"#))
        #expect(heard["meaning"] == .string("notHere") && heard["heeded"] == .bool(false))
        #expect(fields(try good.request(#"{"cmd": "stop"}"#))["state"] == .string("idle"))
        var events: [String] = []
        while events.count < 10, let line = subscriber.readLine() {
            events.append(fields(line)["event"]?.stringValue ?? "?")
            if events.last == "walkEnded" { break }
        }
        #expect(events.last == "walkEnded", "events after go: \(events)")

        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        #expect(!FileManager.default.fileExists(atPath: daemon.socket), "the socket file is removed")
        #expect(daemon.stderr.contains("<6>info: listening on \(daemon.socket)"))
        #expect(
            daemon.stderr.contains("<6>info: client") && daemon.stderr.contains("refused: malformed JSON"))
    }

    /// A `go` naming two destinations is refused naming the fields, as `pathfinder go`
    /// refuses both (exit 2): before, `query` won and `destination` was dropped unsaid, and
    /// `far` beside a `destination` was accepted and meant nothing. No walk starts.
    @Test func aGoWithTwoDestinationsIsRefusedNamingTheFields() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let daemon = try DaemonProcess.listening(in: dir)
        let client = try daemon.client()
        let destination =
            #""destination": {"name": "Rautatieasema", "center": {"lat": 60.1711, "lon": 24.9414}}"#
        for (request, message) in [
            (
                #"{"cmd": "go", "query": "Ateneum", "# + destination + "}",
                #"go: expected "destination" or "query", not both"#
            ),
            (
                #"{"cmd": "go", "far": true, "# + destination + "}",
                #"go: "far" goes with "query", not with "destination""#
            ),
            (#"{"cmd": "go", "far": false, "# + destination + "}", #""far" goes with "query""#),
        ] {
            let reply = fields(try client.request(request))
            #expect(reply["ok"] == .bool(false), "\(request): \(reply)")
            #expect(reply["error"]?.stringValue?.contains(message) == true, "\(request): \(reply)")
        }
        #expect(fields(try client.request(#"{"cmd": "status"}"#))["state"] == .string("idle"))
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    @Test func theDaemonHoldsNoNetworkSocketButItsLoopbackGPSD() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let daemon = try DaemonProcess.listening(in: dir)
        let client = try daemon.client()
        _ = try client.request(#"{"cmd": "subscribe"}"#)
        let sockets = ProcessSockets(pid: daemon.pid)
        // The scan sees the daemon's own sockets (so an empty network list means something).
        #expect(sockets.unixPaths.contains(daemon.socket), "found \(sockets.unixPaths)")
        for socket in sockets.network {
            let remote = ProcessSockets.decodeIPv4(socket.remote)
            #expect(
                socket.proto == "tcp" && remote?.0 == "127.0.0.1" && remote?.1 == 29471,
                "unexpected \(socket.proto) socket \(socket.local) → \(socket.remote)")
        }
        daemon.signal(SIGINT)
        #expect(daemon.waitForExit() == 0)
    }

    @Test func aSecondDaemonOnTheSameSocketRefusesToStart() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let config = try DaemonProcess.writeConfig(dir)
        let first = try DaemonProcess(
            arguments: ["--config", config], socket: dir.path + "/pf.sock", dir: dir)
        try #require(first.waitUntilListening(), "daemon did not start: \(first.stderr)")
        let second = try DaemonProcess(
            arguments: ["--config", config], socket: dir.path + "/pf.sock", dir: dir)
        #expect(second.waitForExit() == 1)
        #expect(second.stderr.contains("another pathfinder daemon is running there"))
        #expect(fields(try first.client().request(#"{"cmd": "status"}"#))["ok"] == .bool(true))
        first.signal(SIGTERM)
        #expect(first.waitForExit() == 0)
    }

    /// The same with an abstract socket ("@name", no file): the second is told the socket is
    /// another daemon's, as for a socket file (before, in this stop: the socket's check let
    /// abstract names through, and the second was told only that the memory was in use).
    @Test func aSecondDaemonOnTheSameAbstractSocketRefusesToStart() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let config = try DaemonProcess.writeConfig(dir)
        let socket = "@pf-test-\(UUID().uuidString.prefix(8))"
        let first = try DaemonProcess(
            arguments: ["--config", config, "--socket", socket], socket: socket, dir: dir)
        try #require(first.waitUntilListening(), "daemon did not start: \(first.stderr)")
        let second = try DaemonProcess(
            arguments: ["--config", config, "--socket", socket], socket: socket, dir: dir)
        #expect(second.waitForExit() == 1)
        #expect(second.stderr.contains("another pathfinder daemon is running there"), "\(second.stderr)")
        #expect(fields(try first.client().request(#"{"cmd": "status"}"#))["ok"] == .bool(true))
        first.signal(SIGTERM)
        #expect(first.waitForExit() == 0)
    }

    /// Two daemons given one memory file on different sockets: each keeps the memory in RAM
    /// and saves what it holds, so each would write over the other's doors. The second is
    /// refused at its start, naming the first's pid, and leaves no socket behind; once the
    /// first has stopped, it starts. (Before: both ran, and the last to save won.)
    @Test func aSecondDaemonOnTheSameMemoryRefusesToStart() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let first = try DaemonProcess.listening(in: dir)
        let secondSocket = dir.path + "/second.sock"
        let secondArguments = ["--config", try DaemonProcess.writeConfig(dir), "--socket", secondSocket]
        let second = try DaemonProcess(arguments: secondArguments, socket: secondSocket, dir: dir)
        #expect(second.waitForExit() == 1)
        #expect(
            second.stderr.contains("in use by another running pathfinder daemon (pid \(first.pid))"),
            "\(second.stderr)")
        #expect(second.stderr.contains(dir.path + "/memory.json"), "the message names the memory")
        #expect(!FileManager.default.fileExists(atPath: secondSocket), "no socket left behind")
        #expect(fields(try first.client().request(#"{"cmd": "status"}"#))["ok"] == .bool(true))
        first.signal(SIGTERM)
        #expect(first.waitForExit() == 0)

        let again = try DaemonProcess(arguments: secondArguments, socket: secondSocket, dir: dir)
        try #require(again.waitUntilListening(), "daemon did not start: \(again.stderr)")
        again.signal(SIGTERM)
        #expect(again.waitForExit() == 0)
    }

    /// The same, watched from the second's start to its exit: its socket is never made, so no
    /// client (`pathfinder status`, systemd, a test waiting for the socket) can reach a daemon
    /// that does not hold its memory. Before: its socket was bound and listened before it tried
    /// the memory, and removed at its exit 1; a client that connected meanwhile had its
    /// connection closed unanswered.
    @Test func aSecondDaemonOnTheSameMemoryNeverMakesItsSocket() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let first = try DaemonProcess.listening(in: dir)
        // Answered: its loop runs, so its memory is held.
        #expect(fields(try first.client().request(#"{"cmd": "status"}"#))["ok"] == .bool(true))
        // A folder of its own: nothing but the second's socket would be made in it.
        let folder = dir.path + "/second"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let watch = try FolderWatch(folder)
        let secondSocket = folder + "/pf.sock"
        let second = try DaemonProcess(
            arguments: ["--config", try DaemonProcess.writeConfig(dir), "--socket", secondSocket],
            socket: secondSocket, dir: dir)
        #expect(second.waitForExit() == 1, "\(second.stderr)")
        #expect(
            second.stderr.contains("in use by another running pathfinder daemon (pid \(first.pid))"),
            "\(second.stderr)")
        let made = watch.created()
        #expect(made.isEmpty, "made in its socket's folder: \(made); \(second.stderr)")
        first.signal(SIGTERM)
        #expect(first.waitForExit() == 0)
    }

    /// A daemon on `dir/mem/memory.json` with the demo's door index, on `socket`.
    static func onMemoryFolder(_ dir: TempDir, socket: String) throws -> DaemonProcess {
        try DaemonProcess(
            arguments: [
                "--config", try DaemonProcess.writeConfig(dir), "--memory", dir.path + "/mem/memory.json",
                "--socket", socket, "--doors", MemoryDaemonTests.doors,
            ], socket: socket, dir: dir)
    }

    /// `go` to the demo's building (or `destination`): its OSM doors are saved in the memory
    /// (once a daemon's session: then they are fresh); `whileWalking` runs before the walk is
    /// stopped. Returns the event that says how the save went (`memorySaved` or `memoryFailed`).
    static func saveByGoing(
        _ daemon: DaemonProcess, to destination: String = MemoryDaemonTests.destination,
        whileWalking: () -> Void = {}
    ) throws -> [String: JSONValue]? {
        let events = EndToEndTests.EventStream(try daemon.client())
        #expect(fields(try events.client.request(#"{"cmd": "subscribe"}"#))["ok"] == .bool(true))
        let go = fields(
            try daemon.client().request(#"{"cmd": "go", "destination": \#(destination)}"#))
        #expect(go["ok"] == .bool(true), "\(go)")
        defer { _ = try? daemon.client().request(#"{"cmd": "stop"}"#) }
        let saved = events.next { ["memorySaved", "memoryFailed"].contains($0["event"]?.stringValue) }
        whileWalking()
        return saved
    }

    /// The memory's folder removed while the daemon runs (`rm -rf ~/.local/share/pathfinder`,
    /// a restore tool): its locks went with the folder, so a second daemon started on the same
    /// memory and the two wrote over each other; the first made the folder again at its next
    /// save without a word. Now the first sees within 2 s that the folder at the path is not the
    /// one it locked, makes it again, locks it again and says so; the second is refused at its
    /// start as on an untouched folder, naming the first's pid; the first saves on.
    @Test func aSecondDaemonIsRefusedAfterTheMemoryFolderWasRemoved() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let first = try Self.onMemoryFolder(dir, socket: dir.path + "/pf.sock")
        try #require(first.waitUntilListening(), "\(first.stderr)")
        try FileManager.default.removeItem(atPath: dir.path + "/mem")
        #expect(
            first.logs("<4>warning: memory folder \(dir.path)/mem was removed while the daemon ran"),
            "\(first.stderr)")
        let second = try Self.onMemoryFolder(dir, socket: dir.path + "/second.sock")
        #expect(second.waitForExit() == 1, "\(second.stderr)")
        #expect(
            second.stderr.contains("in use by another running pathfinder daemon (pid \(first.pid))"),
            "\(second.stderr)")
        #expect(try Self.saveByGoing(first)?["event"] == "memorySaved", "\(first.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.path + "/mem/memory.json"))
        first.signal(SIGTERM)
        #expect(first.waitForExit() == 0)
    }

    /// The memory reached through a symbolic link: its folder a link (`~/.local/share/pathfinder
    /// -> /mnt/usb/pathfinder`), or the file itself one. Before, with the folder a link, the
    /// daemon's 2-s check compared the folder it had opened with the link (not followed), took
    /// it for replaced, locked it again, collided with its own lock and took itself for
    /// "another running pathfinder daemon (pid <its own>)": every save after was refused.
    /// Now the checks pass (several, > 4 s), nothing is said, and the memory is saved there.
    @Test(arguments: ["folder", "file"]) func aMemoryReachedThroughALinkIsSaved(link: String) throws {
        let dir = TempDir()
        defer { dir.remove() }
        try FileManager.default.createDirectory(
            atPath: dir.path + "/real", withIntermediateDirectories: false)
        let memory: String
        if link == "folder" {
            try #require(symlink(dir.path + "/real", dir.path + "/ln") == 0)
            memory = dir.path + "/ln/memory.json"
        } else {
            try FileManager.default.createDirectory(
                atPath: dir.path + "/mem", withIntermediateDirectories: false)
            try #require(symlink(dir.path + "/real/memory.json", dir.path + "/mem/memory.json") == 0)
            memory = dir.path + "/mem/memory.json"
        }
        let socket = dir.path + "/pf.sock"
        let daemon = try DaemonProcess(
            arguments: [
                "--config", try DaemonProcess.writeConfig(dir), "--memory", memory, "--socket", socket,
                "--doors", MemoryDaemonTests.doors,
            ], socket: socket, dir: dir)
        try #require(daemon.waitUntilListening(), "\(daemon.stderr)")
        usleep(4_500_000)  // the hold is checked every 2 s
        #expect(try Self.saveByGoing(daemon)?["event"] == "memorySaved", "\(daemon.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.path + "/real/memory.json"))
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        #expect(!daemon.stderr.contains("in use by another"), "\(daemon.stderr)")
        #expect(!daemon.stderr.contains("while the daemon ran"), "\(daemon.stderr)")
    }

    /// The same, with the second daemon quicker than the first's check (held here by SIGSTOP):
    /// the second holds the new folder, so the first says it lost the memory, naming the
    /// second's pid, and saves nothing (`memoryFailed`, said; nor a walk file) while the second runs; once the
    /// second stops, the first locks the folder again and saves. Never two writers. Before:
    /// both saved, each over the other's.
    @Test func aDaemonWhoseMemoryFolderASecondTookSavesNothingAndSaysSo() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let first = try Self.onMemoryFolder(dir, socket: dir.path + "/pf.sock")
        try #require(first.waitUntilListening(), "\(first.stderr)")
        // Answered: its loop runs, so its memory is held. (Its socket is made only once the
        // memory is held now; before, the kernel took a connect as soon as the socket listened,
        // before the start-up took the memory: under CI's load the first was stopped before
        // that, and the second's folder refused it at its start.)
        #expect(fields(try first.client().request(#"{"cmd": "status"}"#))["ok"] == .bool(true))
        first.signal(SIGSTOP)
        try FileManager.default.removeItem(atPath: dir.path + "/mem")
        let second = try Self.onMemoryFolder(dir, socket: dir.path + "/second.sock")
        let started = second.waitUntilListening()
        first.signal(SIGCONT)
        try #require(started, "\(second.stderr)")
        #expect(
            first.logs(
                "<3>error: memory \(dir.path)/mem/memory.json: in use by another running pathfinder daemon (pid \(second.pid))"
            ), "\(first.stderr)")
        // Nor is the walk file beside it written: it is the second's.
        let failed = try Self.saveByGoing(first) {
            #expect(!FileManager.default.fileExists(atPath: dir.path + "/mem/memory.json.walk"))
        }
        #expect(failed?["event"] == "memoryFailed", "\(first.stderr)")
        #expect(
            failed?["reason"]?.stringValue?.contains(
                "in use by another running pathfinder daemon (pid \(second.pid))")
                == true, "\(String(describing: failed))")
        #expect(try Self.saveByGoing(second)?["event"] == "memorySaved", "\(second.stderr)")

        second.signal(SIGTERM)
        #expect(second.waitForExit() == 0)
        #expect(first.logs("<6>info: memory \(dir.path)/mem/memory.json: locked again"), "\(first.stderr)")
        let saved = try Self.saveByGoing(first, to: MemoryDaemonTests.station)
        #expect(saved?["event"] == "memorySaved", "\(first.stderr)")
        first.signal(SIGTERM)
        #expect(first.waitForExit() == 0)
    }

    /// The lock file beside the memory cannot be opened (here a folder stands at its name;
    /// another user's file does the same): the daemon says so and still holds the memory's
    /// folder, so a `memory confirm` beside it is refused, not written over at its next save
    /// (before, in this stop: it ran with no lock at all).
    @Test func aLockFileThatCannotBeOpenedStillRefusesAChangeBeside() throws {
        let dir = TempDir()
        defer { dir.remove() }
        try FileManager.default.createDirectory(
            atPath: dir.path + "/.memory.json.daemon", withIntermediateDirectories: false)
        let daemon = try DaemonProcess.listening(in: dir)
        #expect(daemon.logs("cannot lock against a second daemon"), "\(daemon.stderr)")
        let beside = try runCapturing(try BuiltExecutable.pathfinder().path, Self.confirm(in: dir))
        #expect(beside.status == 1)
        #expect(beside.text.contains("in use by a running pathfinder daemon"), "\(beside.text)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    /// One memory file with two names (a hard link) in two folders: each name is locked by its
    /// own folder, so a daemon on one and a change on the other both wrote, and the first
    /// save (a rename) parted the names without a word. Refused, naming the file and why:
    /// `memory confirm`, `replay --memory` and the daemon at its start (exit 1); nothing is
    /// written, and the names stay one file. Before: the confirm on the second name wrote,
    /// leaving the first name the old memory, and the daemon on the first name ran beside it.
    @Test func aMemoryFileWithTwoNamesIsRefused() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let pathfinder = try BuiltExecutable.pathfinder().path
        for folder in ["a", "b"] {
            try FileManager.default.createDirectory(
                atPath: dir.path + "/" + folder, withIntermediateDirectories: false)
        }
        let first = dir.path + "/a/memory.json"
        let second = dir.path + "/b/memory.json"
        var made = Self.confirm(in: dir)
        made[3] = first
        try #require(try runCapturing(pathfinder, made).status == 0)
        try #require(link(first, second) == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: first))
        func linkCount() -> Int {
            var info = stat()
            return stat(first, &info) == 0 ? Int(info.st_nlink) : 0
        }

        var change = Self.confirm(in: dir)
        change[3] = second
        change[7] = "61.5,23.7"
        change[9] = "61.5,23.7"
        let refused = try runCapturing(pathfinder, change)
        #expect(refused.status == 1, "\(refused.text)")
        #expect(refused.text.contains("\(second): it has 2 names (hard links)"), "\(refused.text)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: second)) == before)
        #expect(linkCount() == 2)

        let demo = try #require(Bundle.module.path(forResource: "Fixtures/demo", ofType: nil))
        let replay = try runCapturing(
            pathfinder,
            [
                "replay", "--nmea", demo + "/walk.nmea", "--destination", demo + "/destination.json",
                "--memory", second,
            ])
        #expect(replay.status == 1 && replay.text.contains("it has 2 names (hard links)"), "\(replay.text)")

        let socket = dir.path + "/pf.sock"
        let daemon = try DaemonProcess(
            arguments: ["--config", try DaemonProcess.writeConfig(dir), "--memory", first], socket: socket,
            dir: dir)
        #expect(daemon.waitForExit() == 1, "\(daemon.stderr)")
        #expect(daemon.stderr.contains("\(first): it has 2 names (hard links)"), "\(daemon.stderr)")
        #expect(!FileManager.default.fileExists(atPath: socket), "no socket left behind")
        #expect(try Data(contentsOf: URL(fileURLWithPath: first)) == before && linkCount() == 2)
    }

    /// `pathfinder memory confirm` of one door on the memory in `dir`.
    static func confirm(in dir: TempDir) -> [String] {
        [
            "memory", "confirm", "--file", dir.path + "/memory.json", "--name", "R", "--center",
            "60.17,24.94",
            "--door", "60.17,24.94",
        ]
    }

    /// `pathfinder memory confirm` on the memory a running daemon keeps is refused, saying
    /// why: the daemon saves what it holds, so the change would have been lost at its next
    /// save, silently. Once the daemon has stopped, the same change is made.
    @Test func aMemoryChangeBesideARunningDaemonIsRefused() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let daemon = try DaemonProcess.listening(in: dir)
        let change = Self.confirm(in: dir)
        let beside = try runCapturing(try BuiltExecutable.pathfinder().path, change)
        #expect(beside.status == 1)
        #expect(beside.text.contains("in use by a running pathfinder daemon"), "\(beside.text)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        let after = try runCapturing(try BuiltExecutable.pathfinder().path, change)
        #expect(after.status == 0, "\(after.text)")
    }

    @Test func aStaleSocketLeftByACrashIsReplaced() throws {
        let dir = TempDir()
        defer { dir.remove() }
        makeStaleSocket(at: dir.path + "/pf.sock")
        let daemon = try DaemonProcess.listening(in: dir)
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    @Test(arguments: [
        (#", "gpds": "x""#, [String](), "key \"gpds\": unknown key"),
        (#", "logLevel": "loud""#, [], "key \"logLevel\": \"loud\" is not error, warning, info or debug"),
        ("", ["--gpsd", "10.1.2.3:2947"], "key \"gpsd\": 10.1.2.3:2947 is not on this machine"),
        ("", ["--baro", "sonar"], "--baro: key \"baro\""),
        // The flag is named, not "config" (the file does not hold it).
        ("", ["--gpsd", "10.1.2.3:2947"], "--gpsd: key \"gpsd\": 10.1.2.3:2947"),
        // Two position sources in one place: before, "nmea" won and "gpsd" was ignored unsaid.
        (#", "nmea": "/dev/ttyACM0""#, [], #"config.json: "gpsd" and "nmea" both given"#),
        (
            "", ["--gpsd", "127.0.0.1:5", "--nmea", "/dev/null"],
            #"--gpsd and --nmea: "gpsd" and "nmea" both given"#
        ),
        // A key added at the end of a file that already has it: before, the first one was used
        // and the new line seemed to do nothing.
        (#", "mic": true"#, [], #"config.json: line 2: key "mic" is given twice (one would be ignored)"#),
        // Before, accepted: the buttons were off without a word.
        ("", ["--buttons", ","], #"--buttons: key "buttons": "," is not a device path"#),
        // Before, the daemon ran for ever, each save of the memory failing.
        (
            "", ["--memory", "/tmp"],
            #"--memory: key "memory": /tmp is a directory; expected the memory file's path"#
        ),
    ])
    func badConfigOrFlagsExitTwoNamingTheKey(extra: String, flags: [String], message: String) throws {
        let dir = TempDir()
        defer { dir.remove() }
        let daemon = try DaemonProcess(
            arguments: ["--config", try DaemonProcess.writeConfig(dir, extra)] + flags,
            socket: dir.path + "/pf.sock",
            dir: dir)
        #expect(daemon.waitForExit() == 2)
        #expect(daemon.stderr.contains(message), "stderr: \(daemon.stderr)")
        // At journald's error priority, as the daemon's other fatal errors (`journalctl -p err`).
        #expect(daemon.stderr.hasPrefix("<3>error: pathfinder daemon: "), "stderr: \(daemon.stderr)")
        #expect(!FileManager.default.fileExists(atPath: daemon.socket))
    }

    @Test func systemdIsToldReadyAndStoppingOverTheNotifySocket() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let notifyPath = dir.path + "/notify.sock"
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(notifyPath.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        try #require(bound == 0)
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        func receive() -> String {
            var buffer = [UInt8](repeating: 0, count: 512)
            let n = recv(fd, &buffer, buffer.count, 0)
            return n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : ""
        }
        let daemon = try DaemonProcess(
            arguments: ["--config", try DaemonProcess.writeConfig(dir)], socket: dir.path + "/pf.sock",
            dir: dir,
            environment: ["NOTIFY_SOCKET": notifyPath])
        #expect(receive() == "READY=1")
        #expect((try? ControlClient(path: daemon.socket)) != nil, "READY comes after the socket listens")
        daemon.signal(SIGTERM)
        #expect(receive() == "STOPPING=1")
        #expect(daemon.waitForExit() == 0)
    }

    /// The client commands, as a user or a script runs them: a refusal keeps its JSON on
    /// stdout and says why in one line on stderr, exit 1 (before, stderr was empty); bad
    /// usage is exit 2 before anything is sent — a blank query (before, the daemon's refusal,
    /// exit 1), no query at all (before, "… (not both)"), --far with a Destination file
    /// (before, ignored), a socket path too long for an address (before, exit 1 "connect:
    /// File name too long").
    @Test func clientCommandsSayWhyOnStderrAndRefuseBadUsage() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let daemon = try DaemonProcess.listening(in: dir)
        func run(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
            try DaemonProcess.runClient(arguments, home: dir.path)
        }
        let socket = ["--socket", daemon.socket]

        let refused = try run(["go", "qxzzyq", "nowhere"] + socket)
        #expect(refused.status == 1)
        #expect(fields(refused.out)["ok"] == .bool(false), "\(refused)")
        #expect(refused.err.hasPrefix("pathfinder go: no place called \"qxzzyq nowhere\""), "\(refused)")
        #expect(refused.err.filter { $0 == "\n" }.count == 1, "one line: \(refused.err)")
        // A query with a newline in it, quoted back, is still one line (a review found two).
        let split = try run(["go", "qxz\nzy"] + socket)
        #expect(split.status == 1)
        #expect(
            split.err == "pathfinder go: no place called \"qxz\\nzy\" in the gazetteer or the door index\n",
            "\(split)")
        let nowhere = try run(["where"] + socket)
        #expect(nowhere.status == 1 && fields(nowhere.out)["ok"] == .bool(false), "\(nowhere)")
        #expect(nowhere.err == "pathfinder where: no position yet\n", "\(nowhere)")

        let destination = dir.path + "/destination.json"
        try #"{"name": "Rautatieasema", "center": {"lat": 60.1711, "lon": 24.9414}}"#.write(
            toFile: destination, atomically: true, encoding: .utf8)
        let longPath = dir.path + "/" + String(repeating: "s", count: 120) + ".sock"
        for (arguments, message) in [
            (["go", "   "] + socket, "pathfinder go: the QUERY is blank"),
            (
                ["go"] + socket,
                "pathfinder go: expected --destination FILE or a QUERY (a place name or address)"
            ),
            (
                ["go", "--destination", destination, "--far"] + socket,
                "pathfinder go: --far goes with a QUERY"
            ),
            (
                ["status", "--socket", longPath],
                "pathfinder status: --socket \(longPath): is \(longPath.utf8.count) bytes; a socket path must be shorter than 108"
            ),
            (["go", "Kaivokatu", "--socket", longPath], "a socket path must be shorter than 108"),
        ] {
            let result = try run(arguments)
            #expect(result.status == 2, "\(arguments): \(result)")
            #expect(result.err.contains(message), "\(arguments): \(result)")
            #expect(result.out.isEmpty, "nothing was sent: \(result)")
        }
        // The daemon saw none of them: its walk never started.
        #expect(fields(try daemon.client().request(#"{"cmd": "status"}"#))["state"] == "idle")
        let walked = try run(["go", "--destination", destination] + socket)
        #expect(walked.status == 0 && walked.err.isEmpty, "\(walked)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }
}
