import Arrival
import Daemon
import Foundation
import Geo
import Glibc
import TestSupport
import Testing

/// The real `pathfinder daemon` under pressure at its edges: a flood of `repeat`s and a
/// `stop`, every client slot taken, answer buttons through a FIFO during a walk through a
/// real gpsd.
@Suite(.serialized) struct DaemonIOTests {
    /// `go` to Helsinki's railway station; the reply must be ok.
    private func goToTheStation(_ client: ControlClient) throws {
        let go = fields(
            try client.request(
                #"{"cmd": "go", "destination": {"name": "Rautatieasema", "center": {"lat": 60.1711, "lon": 24.9414}}}"#
            ))
        #expect(go["ok"] == .bool(true), "go: \(go)")
    }

    /// The texts written into WAVs, in order, from the daemon's debug log.
    private func said(_ log: String) -> [String] {
        log.split(separator: "\n").compactMap { line in
            guard line.contains("debug: said into "), let colon = line.range(of: ".wav: ") else { return nil }
            return String(line[colon.upperBound...])
        }
    }

    @Test func threeHundredRepeatsQueueOnceAndStopSpeaksNext() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let daemon = try DaemonProcess(
            arguments: ["--config", try DaemonProcess.writeConfig(dir), "--log-level", "debug"],
            socket: dir.path + "/pf.sock",
            dir: dir)
        try #require(daemon.waitUntilListening(), "daemon did not start: \(daemon.stderr)")
        let client = try daemon.client()
        try goToTheStation(client)
        // 300 repeats in one write, then stop: the replies come back in order.
        try client.write(Array(String(repeating: #"{"cmd": "repeat"}"# + "\n", count: 300).utf8))
        for _ in 0..<300 { #expect(fields(client.readLine())["ok"] == .bool(true)) }
        #expect(fields(try client.request(#"{"cmd": "stop"}"#))["state"] == .string("idle"))
        var spoken: [String] = []
        for _ in 0..<2000 {
            spoken = said(daemon.stderr)
            if spoken.last == Prompts.stopped { break }
            usleep(10_000)
        }
        usleep(500_000)  // anything still queued would be written by now
        let log = daemon.stderr
        spoken = said(log)
        #expect(spoken.last == Prompts.stopped, "the stop prompt comes last: \(spoken)")
        // After `stop` only the prompt being written when it came may precede its own.
        let afterStop = said(
            String(try #require(log.components(separatedBy: "info: say: \(Prompts.stopped)").last)))
        #expect(afterStop.count <= 2 && afterStop.last == Prompts.stopped, "\(afterStop)")
        // Repeats of a waiting prompt wait as one: far fewer files than requests.
        #expect(spoken.count < 50, "\(spoken.count) prompts written for 300 repeats")
        let wavs = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/wav")
        #expect(wavs.count == spoken.count)
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    @Test func aLoopOfRepeatsSpeaksNoFasterThanSpeech() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let daemon = try DaemonProcess.listening(in: dir)
        let client = try daemon.client()
        try goToTheStation(client)
        // A client repeating as fast as it can for two seconds (thousands of requests).
        let clock = ContinuousClock()
        let start = clock.now
        var requests = 0
        while clock.now - start < .seconds(2) {
            #expect(fields(try client.request(#"{"cmd": "repeat"}"#))["ok"] == .bool(true))
            requests += 1
        }
        let elapsed = clock.now - start
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        // The WAVs hold at most the loop's time of speech plus the prompt in progress (the
        // start prompt is under 10 s); espeak-ng alone writes minutes of audio in 2 s.
        let wavs = dir.path + "/wav"
        var audioSeconds = 0.0
        for name in try FileManager.default.contentsOfDirectory(atPath: wavs) {
            let bytes = try #require(
                try FileManager.default.attributesOfItem(atPath: wavs + "/" + name)[.size] as? Int)
            audioSeconds += Double(bytes - 44) / 2 / 22_050
        }
        let loopSeconds = elapsed.inSeconds
        #expect(requests > 100)
        #expect(
            audioSeconds < loopSeconds + 10,
            "\(audioSeconds) s of speech for \(requests) repeats in \(loopSeconds) s")
    }

    @Test func atTheClientLimitANewConnectionIsToldBusyAndIdleSlotsAreReclaimed() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let daemon = try DaemonProcess.listening(in: dir)
        let subscriber = try daemon.client()
        #expect(fields(try subscriber.request(#"{"cmd": "subscribe"}"#))["ok"] == .bool(true))
        // 31 connections that never send a request fill the 32 slots with the subscriber.
        var idle: [ControlClient] = []
        for _ in 0..<31 { idle.append(try daemon.client()) }
        let refused = try daemon.client()
        let busy = fields(refused.readLine())
        #expect(busy["ok"] == .bool(false))
        #expect(busy["error"]?.stringValue?.hasPrefix("busy: 32 clients are connected") == true, "\(busy)")
        #expect(refused.readLine() == nil)
        let limitLogged = "warning: control socket: 32 clients connected (the limit); refused 1 connection"
        #expect(daemon.logs(limitLogged), "\(daemon.stderr)")
        // After 30 s without a request the idle ones are closed, told why; the subscriber stays.
        idle[0].setReadTimeout(seconds: 60)
        let closing = fields(idle[0].readLine())
        #expect(closing["error"]?.stringValue == "idle: no request for 30 s; closing", "\(closing)")
        let fresh = try daemon.client()
        #expect(fields(try fresh.request(#"{"cmd": "status"}"#))["state"] == .string("idle"))
        #expect(daemon.logs("no request for 30 s; closed"))
        try goToTheStation(fresh)
        #expect(fields(subscriber.readLine())["event"] == .string("plan"), "the subscriber was not closed")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    /// A client that writes two thousand `go` queries at once and hangs up: at most the few
    /// handed to the loop are run, and another client's `status` is answered at once (before, after all of them,
    /// or as "idle" when that took over 30 s). A blank line gets an error reply, as every
    /// request line does, and the connection serves the next line (before, no reply at all).
    @Test func aClientThatHangsUpLeavesNothingToWaitForAndBlankLinesAreAnswered() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let doors = GazetteerDaemonTests.repo + "/artifacts/doors/helsinki.db"
        let gazetteer = GazetteerDaemonTests.repo + "/artifacts/gazetteer/gazetteer.sqlite"
        let daemon = try DaemonProcess(
            arguments: [
                "--config",
                try DaemonProcess.writeConfig(dir, #", "doors": "\#(doors)", "gazetteer": "\#(gazetteer)""#),
            ], socket: dir.path + "/pf.sock", dir: dir)
        try #require(daemon.waitUntilListening(), "daemon did not start: \(daemon.stderr)")

        let blank = try daemon.client()
        for line in ["", "   ", "\r", "\t"] {
            try blank.write(Array((line + "\n").utf8))
            let reply = fields(blank.readLine())
            #expect(reply["ok"] == .bool(false), "\(line.debugDescription): \(reply)")
            #expect(reply["error"]?.stringValue?.hasPrefix("empty request line") == true, "\(reply)")
        }
        #expect(fields(try blank.request(#"{"cmd": "status"}"#))["ok"] == .bool(true))

        let one = try daemon.client()
        #expect(fields(try one.request(#"{"cmd": "go", "query": "Kaivokatu"}"#))["ok"] == .bool(true))
        let queries = 2_000
        let ranSoFar = { daemon.stderr.components(separatedBy: #"info: go "Kaivokatu": "#).count - 1 }
        var flood: ControlClient? = try daemon.client()
        try flood?.write(
            Array(String(repeating: #"{"cmd":"go","query":"Kaivokatu"}"# + "\n", count: queries).utf8))
        // Its requests are being run; then it hangs up, and another client asks.
        var tries = 0
        while ranSoFar() < 2, tries < 2000 {
            usleep(10_000)
            tries += 1
        }
        flood = nil
        let status = fields(try daemon.client().request(#"{"cmd": "status"}"#))
        #expect(status["ok"] == .bool(true), "\(status)")
        // Counted when `status` is answered: the loop is serial, so whatever ran came before.
        let ran = ranSoFar()
        #expect(ran >= 2 && ran < 100, "\(ran) of \(queries + 1) queries were run")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    /// Writes `struct input_event` records into a FIFO, as the kernel would from a keypad.
    final class FIFOKeypad {
        let path: String
        private var fd: Int32 = -1

        init(path: String) throws {
            self.path = path
            try #require(mkfifo(path, 0o600) == 0, "mkfifo \(path)")
        }

        /// Opens the writing end once the daemon reads (bounded, 20 s).
        func connect() throws {
            for _ in 0..<2000 {
                fd = open(path, O_WRONLY | O_NONBLOCK)
                if fd >= 0 { return }
                usleep(10_000)
            }
            Issue.record("the daemon never opened \(path) for reading")
        }

        /// A press and a release of `code` (the daemon acts on the press only).
        func press(_ code: UInt16) {
            write(InputEvent.key(code, value: 1) + InputEvent.key(code, value: 0))
        }

        func write(_ bytes: [UInt8]) {
            _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        }

        /// The keypad unplugged: the FIFO is gone and its writer closes.
        func unplug() {
            unlink(path)
            close(fd)
            fd = -1
        }

        func plugIn() throws {
            try #require(mkfifo(path, 0o600) == 0)
            try connect()
        }

        deinit { if fd >= 0 { close(fd) } }
    }

    @Test func buttonsAnswerDuringTheLastStretchOnlyAndSurviveAnUnplug() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let fixtures = try #require(Bundle.module.path(forResource: "Fixtures/demo", ofType: nil))
        let nmea = try String(contentsOfFile: fixtures + "/walk.nmea", encoding: .utf8)
        let feeder = try NMEAFeeder(nmea: nmea, epochsPerSecond: 20)
        defer { feeder.shutdown() }
        let gpsdPort = try NMEAFeeder.freePort()
        let gpsd = try GPSDProcess(port: gpsdPort, feed: feeder.port)
        defer { gpsd.stop() }
        let doors = dir.path + "/doors.db"
        let importer = Process()
        importer.executableURL = try BuiltExecutable.pathfinder()
        importer.arguments = ["doors", "import", fixtures + "/doors.osm", "--out", doors]
        importer.standardError = FileHandle.nullDevice
        importer.standardOutput = FileHandle.nullDevice
        try importer.run()
        importer.waitUntilExit()
        let keypad = try FIFOKeypad(path: dir.path + "/keys")
        let config = dir.path + "/config.json"
        try """
        {"socket": "\(dir.path)/pf.sock", "memory": "\(dir.path)/memory.json", "gpsd": "127.0.0.1:\(gpsdPort)",
         "baro": "none", "doors": "\(doors)", "mic": false, "speakWav": "\(dir.path)/wav"}
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(
            arguments: ["--config", config, "--buttons", keypad.path], socket: dir.path + "/pf.sock", dir: dir
        )
        try #require(daemon.waitUntilListening(), "daemon did not start: \(daemon.stderr)")
        try keypad.connect()
        let events = EndToEndTests.EventStream(try daemon.client())
        #expect(fields(try events.client.request(#"{"cmd": "subscribe"}"#))["ok"] == .bool(true))
        let requests = try daemon.client()
        let destination = try String(contentsOfFile: fixtures + "/destination.json", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(
            fields(try requests.request(#"{"cmd": "go", "destination": \#(destination)}"#))["ok"]
                == .bool(true))
        let event = EndToEndTests.event
        _ = try #require(events.next { event("plan")($0) && $0["reason"] == "doorsArrived" })

        // Walking, not yet in the last stretch: the press is logged and heard, not heeded.
        keypad.press(49)  // KEY_N
        let early = try #require(events.next(event("button")), "no button event:\n\(daemon.stderr)")
        #expect(early["key"] == "KEY_N" && early["action"] == "notHere")
        let heard = try #require(events.next(event("heard")))
        #expect(
            heard["meaning"] == "notHere" && heard["source"] == "button" && heard["text"] == "KEY_N",
            "\(heard)")
        // An unmapped key, a release and an autorepeat are ignored; R repeats the last prompt.
        keypad.write(
            InputEvent.key(30, value: 1) + InputEvent.key(21, value: 0) + InputEvent.key(21, value: 2))
        keypad.press(19)  // KEY_R
        let repeatPress = try #require(events.next(event("button")))
        #expect(repeatPress["key"] == "KEY_R", "\(repeatPress)")
        #expect(events.next(event("say")) != nil, "repeat says the last prompt again")

        // The keypad is unplugged and plugged in again: the daemon waits for it and reads on.
        keypad.unplug()
        #expect(daemon.logs("warning: buttons \(keypad.path): No such file or directory"))
        try keypad.plugIn()

        // At A: N rejects it for D; at D: Y confirms it.
        let arrivedA = try #require(events.next(event("arrived")), "no arrival:\n\(daemon.stderr)")
        #expect(try EndToEndTests.door(arrivedA["door"]).label == "A")
        #expect(events.named("rejected").isEmpty, "the early press was not heeded")
        keypad.press(49)
        let rejected = try #require(events.next(event("rejected")), "\(daemon.stderr)")
        #expect(try EndToEndTests.door(rejected["door"]).label == "A")
        let arrivedD = try #require(events.next(event("arrived")), "no second arrival:\n\(daemon.stderr)")
        #expect(try EndToEndTests.door(arrivedD["door"]).label == "D")
        keypad.press(21)  // KEY_Y
        let confirmed = try #require(events.next(event("confirmed")))
        #expect(try EndToEndTests.door(confirmed["door"]).label == "D")
        let presses = events.named("button").compactMap { $0["key"]?.stringValue }
        #expect(presses == ["KEY_N", "KEY_R", "KEY_N", "KEY_Y"])
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0, "\(daemon.stderr)")
        #expect(daemon.stderr.contains("info: button KEY_Y: thisIsIt"))
    }
}

/// The daemon's own life at its edges, found by an audit (stop 42) and failing before its fix.
@Suite(.serialized) struct DaemonLifeTests {
    /// A daemon of the default test config in `dir`, listening on `dir/pf.sock`.
    static func listening(in dir: TempDir) throws -> DaemonProcess {
        let daemon = try DaemonProcess(
            arguments: ["--config", try DaemonProcess.writeConfig(dir)], socket: dir.path + "/pf.sock",
            dir: dir)
        try #require(daemon.waitUntilListening(), "daemon did not start: \(daemon.stderr)")
        return daemon
    }

    /// SIGHUP (`kill -HUP`, `systemctl --user reload pathfinder`, a log rotator) is "reload":
    /// the daemon opens its door indexes and gazetteer again, says so in one line and runs on,
    /// still answering on its socket; SIGTERM then stops it as before. Before: SIGHUP stopped
    /// it with exit 0, which the unit's `Restart=on-failure` took as meant, leaving the walker
    /// without the daemon until someone noticed.
    @Test func aHangUpSignalReopensTheIndexesAndRunsOn() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let daemon = try Self.listening(in: dir)
        daemon.signal(SIGHUP)
        #expect(daemon.logs("<6>info: SIGHUP: "), "\(daemon.stderr)")
        #expect(daemon.stderr.contains("opened again"), "\(daemon.stderr)")
        #expect(!daemon.stderr.contains("stopping"), "\(daemon.stderr)")
        #expect(daemon.process.isRunning)
        #expect(fields(try daemon.client().request(#"{"cmd": "status"}"#))["ok"] == .bool(true))
        daemon.signal(SIGHUP)
        #expect(fields(try daemon.client().request(#"{"cmd": "status"}"#))["ok"] == .bool(true))
        // The signal and the request reach the loop by different ways: the request may be
        // answered first, so the second reload's line is waited for (bounded, 20 s).
        for _ in 0..<2000 where daemon.stderr.components(separatedBy: "<6>info: SIGHUP: ").count < 3 {
            usleep(10_000)
        }
        #expect(daemon.stderr.components(separatedBy: "<6>info: SIGHUP: ").count == 3, "\(daemon.stderr)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0, "\(daemon.stderr)")
        #expect(daemon.stderr.contains("SIGTERM: stopping"), "\(daemon.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/pf.sock"))
    }

    /// The shipped unit reloads with SIGHUP (`systemctl --user reload pathfinder`) and
    /// restarts the daemon on failure; nothing in it makes a SIGHUP a stop.
    @Test func theUnitReloadsWithAHangUpSignal() throws {
        let unit = try String(contentsOfFile: GoQueryTests.repo + "/dist/pathfinder.service", encoding: .utf8)
        let lines = unit.split(separator: "\n").map(String.init)
        #expect(lines.contains("ExecReload=/bin/kill -HUP $MAINPID"), "\(unit)")
        #expect(lines.contains("Restart=on-failure"), "\(unit)")
    }

    /// A client's text with a line break in it (a typed answer, a destination's name) stays on
    /// its own log line, escaped: no client writes a line of its own into the journal (before:
    /// "<3>error: INJECTED" stood alone, an error the daemon never had).
    @Test func aClientsLineBreakCannotStartALogLine() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let daemon = try Self.listening(in: dir)
        let client = try daemon.client()
        _ = try client.request(#"{"cmd": "heard", "text": "여기 아니야\n<3>error: INJECTED"}"#)
        _ = try client.request(
            #"{"cmd": "go", "destination": {"name": "A\r\n<3>error: INJECTED dest", "center": {"lat": 60.17, "lon": 24.94}}}"#
        )
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        let lines = daemon.stderr.split(separator: "\n")
        #expect(lines.allSatisfy { !$0.hasPrefix("<3>error: INJECTED") }, "\(daemon.stderr)")
        #expect(lines.allSatisfy { !$0.contains("\r") }, "\(daemon.stderr)")
        #expect(daemon.stderr.contains(#"\n<3>error: INJECTED"#), "\(daemon.stderr)")
    }

    /// `pathfinder daemon` as `nobody` (through `setpriv`), not yet started: `config`
    /// (world-readable) and `socket`, its memory and prompts under `dir/other`.
    static func nobodysDaemon(config: String, socket: String, dir: TempDir) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = [
            "--reuid=\(DaemonProcess.unprivileged)", "--regid=\(DaemonProcess.unprivileged)",
            "--clear-groups",
            try BuiltExecutable.pathfinder().path, "daemon", "--config", config, "--socket", socket,
            "--memory",
            dir.path + "/other/memory.json", "--speak-wav", dir.path + "/other/wav",
        ]
        process.environment = ["XDG_CONFIG_HOME": dir.path + "/other/config", "HOME": dir.path + "/other"]
        return process
    }

    /// A daemon run as `nobody` with `config` (world-readable) and `socket`, its memory and
    /// prompts under `dir/other`; returned once its socket exists.
    static func daemonOfNobody(config: String, socket: String, dir: TempDir) throws -> Process {
        let other = try nobodysDaemon(config: config, socket: socket, dir: dir)
        other.standardError = FileHandle.nullDevice
        try other.run()
        var listening = false
        for _ in 0..<1000 where !listening && other.isRunning {
            if socket.hasPrefix("@") {
                // No file to see: listening once a client is no longer told "not running".
                do { _ = try ControlClient(path: socket) } catch {
                    if case .notRunning = error {} else { listening = true }
                }
            } else {
                var info = stat()
                listening = stat(socket, &info) == 0 && info.st_uid == DaemonProcess.unprivileged
            }
            if !listening { usleep(10_000) }
        }
        if !listening { other.terminate() }
        try #require(listening, "the other user's daemon did not make its socket")
        return other
    }

    /// A stale socket of root's (a `sudo pathfinder daemon` killed) in a user's own runtime
    /// folder is replaced by the user's daemon (before, in this stop: refused as "a socket of
    /// another user", and the daemon never started there); root, in a folder no one else
    /// can write in, may talk to it.
    @Test(.enabled(if: getuid() == 0, "needs root to start a process as another user"))
    func aStaleSocketOfRootInTheUsersOwnFolderIsReplaced() throws {
        let dir = TempDir()
        defer { dir.remove() }
        #expect(chmod(dir.path, 0o1777) == 0)
        let run = dir.path + "/run"
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: false)
        let socket = run + "/pf.sock"
        let config = try DaemonProcess.writeConfig(dir)
        #expect(chmod(config, 0o644) == 0)
        let roots = try DaemonProcess(
            arguments: ["--config", config, "--socket", socket], socket: socket, dir: dir)
        try #require(roots.waitUntilListening(), "\(roots.stderr)")
        #expect(
            chown(run, DaemonProcess.unprivileged, DaemonProcess.unprivileged) == 0 && chmod(run, 0o700) == 0)
        // While root's daemon runs, its socket is left alone: the user's daemon says one runs
        // (before, in this stop: it removed root's socket, and root's daemon exited).
        let early = try Self.nobodysDaemon(config: config, socket: socket, dir: dir)
        let earlyErr = Pipe()
        early.standardError = earlyErr
        try early.run()
        early.waitUntilExit()
        let said = String(decoding: earlyErr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(
            early.terminationStatus == 1 && said.contains("another pathfinder daemon is running there"),
            "\(said)")
        usleep(2_500_000)  // past root's path check
        #expect(
            fields(try roots.client().request(#"{"cmd": "status"}"#))["ok"] == .bool(true), "\(roots.stderr)")
        roots.signal(SIGKILL)
        _ = roots.waitForExit()
        #expect(FileManager.default.fileExists(atPath: socket), "the killed daemon left its socket")

        let users = try Self.daemonOfNobody(config: config, socket: socket, dir: dir)
        defer {
            users.terminate()
            users.waitUntilExit()
        }
        let status = try runCapturing(try BuiltExecutable.pathfinder().path, ["status", "--socket", socket])
        #expect(status.status == 0, "\(status.text)")
    }

    /// An abstract socket's name is anyone's: root does not talk to another user's daemon on
    /// one, whatever folder it runs in (before, in this stop: "@name" was taken for a file in
    /// the working folder, and a private working folder made root trust it).
    @Test(.enabled(if: getuid() == 0, "needs root to start a process as another user"))
    func rootDoesNotTrustAnotherUsersAbstractSocket() throws {
        let dir = TempDir()
        defer { dir.remove() }
        #expect(chmod(dir.path, 0o1777) == 0)
        let config = try DaemonProcess.writeConfig(dir)
        #expect(chmod(config, 0o644) == 0)
        let socket = "@pathfinder-test-\(UUID().uuidString.prefix(8))"
        let other = try Self.daemonOfNobody(config: config, socket: socket, dir: dir)
        defer {
            other.terminate()
            other.waitUntilExit()
        }
        let status = try runCapturing(try BuiltExecutable.pathfinder().path, ["status", "--socket", socket])
        #expect(status.status == 1)
        #expect(status.text.contains("served by another user's process (uid 65534"), "\(status.text)")
    }

    /// An abstract socket ("@name") has no file: the daemon serves on, past the 2 s path
    /// check (before, in this stop: "removed or replaced", exit 1 two seconds after start).
    @Test func anAbstractSocketIsServedOn() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let socket = "@pathfinder-test-\(UUID().uuidString.prefix(8))"
        let daemon = try DaemonProcess(
            arguments: ["--config", try DaemonProcess.writeConfig(dir), "--socket", socket], socket: socket,
            dir: dir)
        try #require(daemon.waitUntilListening(), "\(daemon.stderr)")
        usleep(2_500_000)
        #expect(
            fields(try daemon.client().request(#"{"cmd": "status"}"#))["ok"] == .bool(true),
            "\(daemon.stderr)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    /// What a client run as `nobody` gets from `socket`: "connected", then "reply: …" for
    /// each reply line, or how the daemon ended it. A raw client (python3): `pathfinder`'s own
    /// refuses to talk to another user's daemon before sending anything.
    static func nobodysRequests(on socket: String) throws -> String {
        let script = """
            import socket, sys
            path = sys.argv[1]
            s = socket.socket(socket.AF_UNIX)
            try:
                s.connect("\\0" + path[1:] if path.startswith("@") else path)
            except OSError as e:
                print("connect:", e); sys.exit(0)
            print("connected")
            s.settimeout(10)
            try:
                s.sendall(b'{"cmd": "where"}\\n{"cmd": "go", "query": "Ateneum"}\\n{"cmd": "subscribe"}\\n')
                f = s.makefile("rb")
                for line in f:
                    print("reply:", line.decode().strip())
                print("closed")
            except OSError as e:
                print("ended:", e)
            """
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else {
            throw ToolMissing(message: "python3 not found: apt-get install python3")
        }
        let result = try runCapturing(
            "/usr/bin/setpriv",
            [
                "--reuid=\(DaemonProcess.unprivileged)", "--regid=\(DaemonProcess.unprivileged)",
                "--clear-groups",
                "/usr/bin/python3", "-c", script, socket,
            ], standardOutput: true)
        return result.text
    }

    /// The control socket serves only its own user (and root): another local user's
    /// connection is closed unanswered and the log names its uid and pid (before, on an
    /// abstract socket, which has no file mode to keep anyone out, `nobody`'s `where` got the
    /// walker's position, its `go` redirected the walk, and `subscribe` would have streamed
    /// every position). A socket file whose mode was widened is guarded the same way.
    @Test(
        .enabled(if: getuid() == 0, "needs root to start a process as another user"),
        arguments: [true, false])
    func anotherUsersConnectionIsClosedUnanswered(abstract: Bool) throws {
        let dir = TempDir()
        defer { dir.remove() }
        let socket = abstract ? "@pathfinder-test-\(UUID().uuidString.prefix(8))" : dir.path + "/pf.sock"
        let daemon = try DaemonProcess(
            arguments: ["--config", try DaemonProcess.writeConfig(dir), "--socket", socket], socket: socket,
            dir: dir)
        try #require(daemon.waitUntilListening(), "\(daemon.stderr)")
        if !abstract {
            #expect(chmod(dir.path, 0o755) == 0 && chmod(socket, 0o666) == 0)
        }

        let said = try Self.nobodysRequests(on: socket)
        #expect(said.hasPrefix("connected"), "\(said)")
        #expect(!said.contains("reply:"), "\(said)")
        #expect(daemon.logs("refused a connection from uid 65534 (pid "), "\(daemon.stderr)")
        #expect(!daemon.stderr.contains("Ateneum"), "\(daemon.stderr)")

        // This account's own clients are served as before.
        #expect(
            fields(try daemon.client().request(#"{"cmd": "status"}"#))["ok"] == .bool(true),
            "\(daemon.stderr)")
        let status = try runCapturing(try BuiltExecutable.pathfinder().path, ["status", "--socket", socket])
        #expect(status.status == 0, "\(status.text)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    /// `count` connections to `socket` as `nobody`, one after another, each closed at once.
    static func nobodysConnections(_ count: Int, to socket: String) throws {
        let script = """
            import socket, sys
            path = sys.argv[1]
            for _ in range(int(sys.argv[2])):
                s = socket.socket(socket.AF_UNIX)
                s.connect("\\0" + path[1:] if path.startswith("@") else path)
                s.close()
            """
        let result = try runCapturing(
            "/usr/bin/setpriv",
            [
                "--reuid=\(DaemonProcess.unprivileged)", "--regid=\(DaemonProcess.unprivileged)",
                "--clear-groups", "/usr/bin/python3", "-c", script, socket, String(count),
            ])
        #expect(result.status == 0, "\(result.text)")
    }

    /// A burst of another user's connections is logged in full without waiting for a later
    /// one: the first at once with its pid, the rest as a count naming the uid (no pid, as
    /// they came from several processes) within the 10 s of the report interval, and at the
    /// daemon's stop. Before, the count came only with a later refusal, under that one's pid,
    /// and never if none came.
    @Test(.enabled(if: getuid() == 0, "needs root to start a process as another user"))
    func aBurstOfAnotherUsersConnectionsIsCountedWithoutALaterOne() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let socket = "@pathfinder-test-\(UUID().uuidString.prefix(8))"
        let daemon = try DaemonProcess(
            arguments: ["--config", try DaemonProcess.writeConfig(dir), "--socket", socket], socket: socket,
            dir: dir)
        try #require(daemon.waitUntilListening(), "\(daemon.stderr)")
        try Self.nobodysConnections(5, to: socket)
        #expect(daemon.logs("refused a connection from uid 65534 (pid "), "\(daemon.stderr)")
        let four = "control socket: refused 4 more connections from uid 65534 since the last such line"
        var counted = false
        for _ in 0..<1500 where !counted {
            counted = daemon.stderr.contains(four)
            if !counted { usleep(10_000) }
        }
        #expect(counted, "\(daemon.stderr)")
        // Within the next 10 s, then the stop: counted at the stop.
        try Self.nobodysConnections(3, to: socket)
        usleep(300_000)
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        let three = "control socket: refused 3 more connections from uid 65534 since the last such line"
        #expect(daemon.stderr.contains(three), "\(daemon.stderr)")
        let lines = daemon.stderr.split(separator: "\n")
        #expect(
            (lines.firstIndex { $0.contains(three) } ?? .max)
                < (lines.firstIndex { $0.hasSuffix("stopped") } ?? 0),
            "\(daemon.stderr)")
        #expect(
            lines.filter { $0.contains("more connections") }.allSatisfy { !$0.contains("pid") },
            "\(daemon.stderr)")
    }

    /// In a shared folder (`/tmp`, the fallback without XDG_RUNTIME_DIR) another user can make
    /// the socket first. This account's clients do not send to it, and its daemon neither
    /// serves beside it nor removes it (before: `go` sent the walker's destination to the
    /// other user's process and printed its "ok"). Run as root, with `nobody` as the other.
    @Test(.enabled(if: getuid() == 0, "needs root to start a process as another user"))
    func aSocketOfAnotherUserIsNeitherTalkedToNorReplaced() throws {
        let dir = TempDir()
        defer { dir.remove() }
        #expect(chmod(dir.path, 0o1777) == 0)
        let socket = dir.path + "/pf.sock"
        let config = try DaemonProcess.writeConfig(dir)
        #expect(chmod(config, 0o644) == 0)
        let other = try Self.daemonOfNobody(config: config, socket: socket, dir: dir)
        defer {
            other.terminate()
            other.waitUntilExit()
        }

        let status = try runCapturing(try BuiltExecutable.pathfinder().path, ["status", "--socket", socket])
        #expect(status.status == 1)
        #expect(status.text.contains("served by another user's process (uid 65534"), "\(status.text)")

        let ours = try DaemonProcess(arguments: ["--config", config], socket: socket, dir: dir)
        #expect(ours.waitForExit() == 1)
        #expect(ours.stderr.contains("a socket of another user (uid 65534) is there"), "\(ours.stderr)")
        var info = stat()
        #expect(stat(socket, &info) == 0 && info.st_uid == DaemonProcess.unprivileged, "left in place")
    }

    /// Started from a shell with a umask of 022, the prompts it writes (they name the
    /// destination) are the walker's alone, as under systemd's UMask=0077 (before: the folder
    /// 0755 and its WAVs 0644).
    @Test func thePromptFilesArePrivateWhateverTheUmask() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let old = umask(0o022)
        defer { umask(old) }
        let daemon = try Self.listening(in: dir)
        let go = fields(
            try daemon.client().request(
                #"{"cmd": "go", "destination": {"name": "Rautatieasema", "center": {"lat": 60.1711, "lon": 24.9414}}}"#
            ))
        #expect(go["ok"] == .bool(true))
        let first = dir.path + "/wav/0001.wav"
        var written = false
        for _ in 0..<500 where !written {
            written = FileManager.default.fileExists(atPath: first)
            if !written { usleep(10_000) }
        }
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        try #require(written, "no prompt written: \(daemon.stderr)")
        var info = stat()
        #expect(stat(dir.path + "/wav", &info) == 0 && info.st_mode & 0o777 == 0o700)
        #expect(stat(first, &info) == 0 && info.st_mode & 0o777 == 0o600)
    }

    /// The prompts of `speakWav` (`NNNN.wav`, name order = time order) continue after the
    /// highest number already in the folder, so a restarted daemon never writes over the
    /// last run's prompts (before: every start began again at 0001.wav, overwriting them and
    /// mixing old and new in name order).
    @Test func aRestartedDaemonNumbersItsPromptsAfterTheLastRunsOnes() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let wav = dir.path + "/wav"
        func prompts() -> [String: Data] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: wav)) ?? []
            var files: [String: Data] = [:]
            for name in names where name.hasSuffix(".wav") {
                files[name] = FileManager.default.contents(atPath: wav + "/" + name)
            }
            return files
        }
        /// One daemon's life: a `go` to `name` (which is said), until `count` prompts are in
        /// the folder, then `stop` (said too).
        func run(to name: String, until count: Int) throws {
            let daemon = try Self.listening(in: dir)
            let go = fields(
                try daemon.client().request(
                    #"{"cmd": "go", "destination": {"name": "\#(name)", "center": {"lat": 60.1711, "lon": 24.9414}}}"#
                ))
            #expect(go["ok"] == .bool(true))
            for _ in 0..<1000 where prompts().count < count { usleep(10_000) }
            // The voice is quiet before the stop: nothing half-written is compared.
            _ = try daemon.client().request(#"{"cmd": "stop"}"#)
            usleep(1_500_000)
            daemon.signal(SIGTERM)
            #expect(daemon.waitForExit() == 0, "\(daemon.stderr)")
        }
        try run(to: "Rautatieasema", until: 1)
        let first = prompts()
        try #require(!first.isEmpty, "no prompt written")
        try run(to: "Ateneum", until: first.count + 1)
        let second = prompts()
        // Every prompt of the first run is still there, as it was.
        for (name, data) in first { #expect(second[name] == data, "\(name) was written over") }
        let last = try #require(first.keys.max())
        let added = second.keys.filter { !first.keys.contains($0) }.sorted()
        #expect(
            !added.isEmpty,
            "the second run wrote nothing new: \(first.keys.sorted()), then \(second.keys.sorted())")
        #expect(added.allSatisfy { $0 > last }, "after \(last): \(added)")
        #expect(added.first == String(format: "%04d.wav", Int(last.prefix(4))! + 1), "\(added)")
    }

    /// Names already in a `speakWav` folder that are not its own four-digit prompts
    /// (`NNNN.wav`) are left alone, whatever their digits, and nothing is written over; when
    /// the numbers run out (9999.wav is there) no more prompts are written, said once.
    /// Before: the highest number of any length counted, so 9223372036854775807.wav crashed
    /// the daemon ("arithmetic overflow", exit 132, its socket left behind), 4294967296.wav
    /// made the next prompt 0001.wav again (`%04d` read the number as 32 bits) over the one
    /// there, and after 9999.wav came 10000.wav, which sorts before it.
    @Test(arguments: [
        (["9223372036854775807.wav"], "0001.wav"),
        (["0001.wav", "4294967296.wav"], "0002.wav"),
        (["0007.wav", "12345.wav", "123.wav", "x0009.wav"], "0008.wav"),
        (["9998.wav", "9999.wav"], nil),
    ])
    func promptNumbersNeverOverflowNorWriteOverNorMisorder(existing: [String], next: String?) throws {
        let dir = TempDir()
        defer { dir.remove() }
        let wav = dir.path + "/wav"
        try FileManager.default.createDirectory(atPath: wav, withIntermediateDirectories: true)
        for name in existing { try Data(name.utf8).write(to: URL(fileURLWithPath: wav + "/" + name)) }
        let daemon = try Self.listening(in: dir)
        let go = fields(
            try daemon.client().request(
                #"{"cmd": "go", "destination": {"name": "Rautatieasema", "center": {"lat": 60.1711, "lon": 24.9414}}}"#
            ))
        #expect(go["ok"] == .bool(true), "\(daemon.stderr)")
        func names() -> Set<String> { Set((try? FileManager.default.contentsOfDirectory(atPath: wav)) ?? []) }
        let runOut = "cannot speak (speakWav \(wav): 9999.wav is the last prompt number"
        if let next {
            for _ in 0..<1000 where !names().contains(next) { usleep(10_000) }
            #expect(names().contains(next), "\(names().sorted())\n\(daemon.stderr)")
        } else {
            #expect(daemon.logs(runOut), "\(daemon.stderr)")
        }
        // A second prompt: said after the first, numbered after it or refused as it was.
        _ = try daemon.client().request(#"{"cmd": "stop"}"#)
        usleep(1_500_000)
        #expect(
            fields(try daemon.client().request(#"{"cmd": "status"}"#))["ok"] == .bool(true),
            "\(daemon.stderr)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0, "\(daemon.stderr)")
        for name in existing {
            #expect(
                FileManager.default.contents(atPath: wav + "/" + name) == Data(name.utf8),
                "\(name) written over")
        }
        let added = names().subtracting(existing).sorted()
        if next == nil {
            #expect(added.isEmpty, "\(added)")
            #expect(daemon.stderr.components(separatedBy: runOut).count == 2, "said once:\n\(daemon.stderr)")
        } else {
            #expect(added.first == next, "\(added)")
            #expect(added.allSatisfy { $0.count == 8 }, "\(added)")
        }
    }

    /// Once the numbers have run out, moving the folder's files away lets prompts be written
    /// again, from 0001.wav, without a restart.
    @Test func promptsAreWrittenAgainOnceTheFullFolderIsEmptied() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let wav = dir.path + "/wav"
        try FileManager.default.createDirectory(atPath: wav, withIntermediateDirectories: true)
        try Data().write(to: URL(fileURLWithPath: wav + "/9999.wav"))
        let daemon = try Self.listening(in: dir)
        _ = try daemon.client().request(
            #"{"cmd": "go", "destination": {"name": "Rautatieasema", "center": {"lat": 60.1711, "lon": 24.9414}}}"#
        )
        #expect(daemon.logs("9999.wav is the last prompt number"), "\(daemon.stderr)")
        try FileManager.default.moveItem(atPath: wav + "/9999.wav", toPath: dir.path + "/9999.wav")
        _ = try daemon.client().request(#"{"cmd": "stop"}"#)
        var written = false
        for _ in 0..<1000 where !written {
            written = FileManager.default.fileExists(atPath: wav + "/0001.wav")
            if !written { usleep(10_000) }
        }
        #expect(written, "\(daemon.stderr)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0, "\(daemon.stderr)")
    }

    /// With `mic: false` and `buttons`, the start log says answers come through both (before:
    /// "answers only via `heard` requests", then "buttons on …"); without buttons, as before.
    @Test func theMicrophoneOffLineNamesTheButtons() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let withButtons = try DaemonProcess(
            arguments: ["--config", try DaemonProcess.writeConfig(dir, #", "buttons": "keys""#)],
            socket: dir.path + "/pf.sock", dir: dir)
        try #require(withButtons.waitUntilListening(), "\(withButtons.stderr)")
        withButtons.signal(SIGTERM)
        #expect(withButtons.waitForExit() == 0)
        #expect(
            withButtons.stderr.contains(
                "info: microphone off (mic: false); answers only via buttons and `heard` requests\n"),
            "\(withButtons.stderr)")
        #expect(withButtons.stderr.contains("info: buttons on \(dir.path)/keys"), "\(withButtons.stderr)")

        let without = try Self.listening(in: dir)
        without.signal(SIGTERM)
        #expect(without.waitForExit() == 0)
        #expect(
            without.stderr.contains("info: microphone off (mic: false); answers only via `heard` requests\n"),
            "\(without.stderr)")
    }

    /// `--socket` naming something that is not a socket (a file, a folder) is said to be
    /// that, exit 2 like a socket path too long (before: "the pathfinder daemon is not
    /// running (no answer on /etc/passwd)", exit 1, which sent the walker to start one).
    @Test func aClientSocketPathThatIsNoSocketIsSaidToBeOne() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let file = dir.path + "/notes.txt"
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        let binary = try BuiltExecutable.pathfinder().path
        for (command, path, what) in [
            (["status"], file, "a regular file"), (["stop"], dir.path, "a directory"),
            (["go", "Ateneum"], "/dev/null", "a character device"),
        ] {
            let result = try runCapturing(binary, command + ["--socket", path])
            #expect(result.status == 2, "\(command) \(path): \(result)")
            #expect(
                result.text
                    == "pathfinder \(command[0]): \(path): is \(what), not a socket (the daemon's control socket is given by --socket or the config's \"socket\")\n",
                "\(result.text)")
        }
        // Nothing there, or a socket nobody answers on, is still "not running", exit 1.
        let missing = try runCapturing(binary, ["status", "--socket", dir.path + "/none.sock"])
        #expect(missing.status == 1 && missing.text.contains("is not running"), "\(missing)")
    }

    /// The daemon's own `--socket` (or config "socket") naming something that is no socket (a
    /// file, a folder, a device, a FIFO, a symbolic link) is a usage error, as for its clients:
    /// exit 2 before anything starts, one line naming the path and what is there, and the
    /// thing left as it was (before: exit 1, "exists and is not a socket; not replacing it",
    /// after the position source was opened, which sent systemd to restart it in a loop).
    @Test func aDaemonSocketPathThatIsNoSocketIsAUsageError() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let file = dir.path + "/notes.txt"
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        let fifo = dir.path + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let link = dir.path + "/link.sock"
        #expect(symlink(file, link) == 0)
        let config = try DaemonProcess.writeConfig(dir)
        for (path, what, origin) in [
            (file, "a regular file", "--socket"), (dir.path, "a directory", "--socket"),
            ("/dev/null", "a character device", "--socket"), (fifo, "a FIFO (named pipe)", "--socket"),
            (link, "a symbolic link (to \(file))", "--socket"), (file, "a regular file", config),
        ] {
            let flags = origin == "--socket" ? ["--socket", path] : []
            if origin == config {
                try
                    #"{"socket": "\#(path)", "mic": false, "gpsd": "127.0.0.1:29471", "baro": "none", "memory": "\#(dir.path)/memory.json"}"#
                    .write(toFile: config, atomically: true, encoding: .utf8)
            }
            let daemon = try DaemonProcess(arguments: ["--config", config] + flags, socket: path, dir: dir)
            let code = daemon.waitForExitOrKill()
            #expect(code == 2, "\(path): \(daemon.stderr)")
            #expect(
                daemon.stderr
                    == "<3>error: pathfinder daemon: \(origin): key \"socket\": \(path): is \(what), not a socket; the daemon makes its control socket there and replaces only a socket (give a path where nothing is)\n",
                "\(daemon.stderr)")
        }
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "x")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == file)
    }

    /// The daemon's own socket path below a regular file (`notes.txt/x.sock`, or deeper:
    /// ENOTDIR) is a usage error too: exit 2 before anything starts, one line naming the path
    /// and the part that is no folder (before: exit 1, "bind: Not a directory", once the
    /// position source was open). A folder that is missing is none: the daemon makes it and
    /// listens. Its clients refuse the path below a file alike, exit 2 (before: exit 1,
    /// "connect: Not a directory"); one in a folder that is not there is a daemon not running,
    /// exit 1, as when a stopped service's runtime folder was removed.
    @Test func aDaemonSocketPathBelowAFileIsAUsageError() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let file = dir.path + "/notes.txt"
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        let config = try DaemonProcess.writeConfig(dir)
        let belowAFile = "\(file) is a regular file, not a folder"
        for path in [file + "/x.sock", file + "/deeper/x.sock"] {
            let daemon = try DaemonProcess(
                arguments: ["--config", config, "--socket", path], socket: path, dir: dir)
            let code = daemon.waitForExitOrKill()
            #expect(code == 2, "\(path): \(daemon.stderr)")
            #expect(
                daemon.stderr
                    == "<3>error: pathfinder daemon: --socket: key \"socket\": \(path): \(belowAFile); the daemon makes its control socket in a folder, made when missing (give a path in a folder)\n",
                "\(daemon.stderr)")
        }
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "x")
        let inANewFolder = dir.path + "/none/x.sock"
        let daemon = try DaemonProcess(
            arguments: ["--config", config, "--socket", inANewFolder], socket: inANewFolder, dir: dir)
        #expect(daemon.waitUntilListening(), "\(daemon.stderr)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0, "\(daemon.stderr)")
        let binary = try BuiltExecutable.pathfinder().path
        for command in [["status"], ["stop"], ["go", "Ateneum"]] {
            let result = try runCapturing(binary, command + ["--socket", file + "/x.sock"])
            #expect(result.status == 2, "\(command): \(result)")
            #expect(
                result.text
                    == "pathfinder \(command[0]): \(file)/x.sock: \(belowAFile), so no socket is there (the daemon's control socket is given by --socket or the config's \"socket\")\n",
                "\(result.text)")
        }
        let missing = try runCapturing(binary, ["status", "--socket", dir.path + "/gone/x.sock"])
        #expect(missing.status == 1 && missing.text.contains("is not running"), "\(missing)")
    }

    /// The daemon's socket in a folder that is a symbolic link to nothing (`dang -> nowhere`):
    /// the daemon cannot make the folder through the link, so it is a usage error, exit 2 up
    /// front, one line naming the link and its target (before: exit 1 at run time, "bind: No
    /// such file or directory", not a word of the link). A link to a folder is fine.
    @Test func aDaemonSocketInADanglingLinkIsAUsageError() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let link = dir.path + "/dang"
        try #require(symlink(dir.path + "/nowhere", link) == 0)
        let config = try DaemonProcess.writeConfig(dir)
        for path in [link + "/x.sock", link + "/deeper/x.sock"] {
            let daemon = try DaemonProcess(
                arguments: ["--config", config, "--socket", path], socket: path, dir: dir)
            let code = daemon.waitForExitOrKill()
            #expect(code == 2, "\(path): \(daemon.stderr)")
            #expect(
                daemon.stderr
                    == "<3>error: pathfinder daemon: --socket: key \"socket\": \(path): \(link) is a symbolic link to \(dir.path)/nowhere, which does not exist; the daemon makes its control socket in a folder, made when missing (give a path in a folder)\n",
                "\(daemon.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/nowhere"))
        try FileManager.default.createDirectory(
            atPath: dir.path + "/nowhere", withIntermediateDirectories: false)
        let daemon = try DaemonProcess(
            arguments: ["--config", config, "--socket", link + "/x.sock"], socket: link + "/x.sock", dir: dir)
        #expect(daemon.waitUntilListening(), "\(daemon.stderr)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0, "\(daemon.stderr)")
    }

    /// Its socket file deleted: no client can reach it, and a second daemon would start on
    /// the path, so it exits 1 saying why, for systemd to restart it (before: it ran on,
    /// unreachable, and `stop` said it was not running). With no client connected too: the
    /// probe that saw it listening has hung up before the socket goes (before stop 43, `poll`
    /// then slept with no time-out, so the check never ran and it ran on for good).
    @Test func aDeletedSocketEndsItWithExit1() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let daemon = try Self.listening(in: dir)
        usleep(500_000)
        #expect(unlink(dir.path + "/pf.sock") == 0)
        let code = daemon.waitForExitOrKill()
        #expect(code == 1, "\(daemon.stderr)")
        #expect(
            daemon.stderr.contains("control socket \(dir.path)/pf.sock was removed or replaced"),
            "\(daemon.stderr)")
    }
}
