import Daemon
import Foundation
import Glibc
import Testing

/// SIGHUP (`systemctl --user reload pathfinder`) reads the config again, the file and the
/// flags as at start: what can change while the daemon runs is applied, what cannot is named
/// as needing a restart, and a file that no longer reads changes nothing. Before, the config
/// was read only at start and a reload applied nothing of an edited file.
@Suite(.serialized) struct DaemonReloadTests {
    /// Writes `dir/config.json`: the test daemon's socket, memory and WAVs in `dir`, no
    /// microphone or barometer, then `extra` (`, "logLevel": "debug"`). Its path.
    @discardableResult
    static func writeConfig(_ dir: TempDir, socket: String? = nil, _ extra: String = "") throws -> String {
        let path = dir.path + "/config.json"
        try """
        {"socket": "\(socket ?? dir.path + "/pf.sock")", "memory": "\(dir.path)/memory.json", "mic": false,
         "speakWav": "\(dir.path)/wav", "gpsd": "127.0.0.1:29471", "baro": "none"\(extra)}
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A daemon on `dir/config.json`, with `flags` after `--config`, listening.
    static func daemon(in dir: TempDir, flags: [String] = []) throws -> DaemonProcess {
        let daemon = try DaemonProcess(
            arguments: ["--config", dir.path + "/config.json"] + flags, socket: dir.path + "/pf.sock",
            dir: dir)
        try #require(daemon.waitUntilListening(), "daemon did not start: \(daemon.stderr)")
        return daemon
    }

    /// SIGHUP, then waits for its summary line (the `n`th since the start).
    static func hangUp(_ daemon: DaemonProcess, count n: Int = 1) {
        daemon.signal(SIGHUP)
        for _ in 0..<2000 where daemon.stderr.components(separatedBy: "<6>info: SIGHUP: ").count <= n {
            usleep(10_000)
        }
        #expect(daemon.stderr.components(separatedBy: "<6>info: SIGHUP: ").count == n + 1, "\(daemon.stderr)")
    }

    /// `logLevel` changed to debug in the file: after SIGHUP, a request is logged at debug (it
    /// was not before the reload), and the summary names the change.
    @Test func aChangedLogLevelIsAppliedOnReload() throws {
        let dir = TempDir()
        defer { dir.remove() }
        try Self.writeConfig(dir)
        let daemon = try Self.daemon(in: dir)
        #expect(fields(try daemon.client().request(#"{"cmd": "status"}"#))["ok"] == .bool(true))
        try Self.writeConfig(dir, #", "logLevel": "debug""#)
        Self.hangUp(daemon)
        #expect(!daemon.stderr.contains("<7>debug:"), "nothing at debug before the reload:\n\(daemon.stderr)")
        #expect(fields(try daemon.client().request(#"{"cmd": "status"}"#))["ok"] == .bool(true))
        #expect(daemon.logs(#": {"cmd": "status"}"#), "\(daemon.stderr)")
        #expect(
            daemon.stderr.split(separator: "\n").contains {
                $0.hasPrefix("<7>debug: client ") && $0.hasSuffix(#": {"cmd": "status"}"#)
            }, "\(daemon.stderr)")
        let summary = try #require(
            daemon.stderr.split(separator: "\n").first { $0.hasPrefix("<6>info: SIGHUP: ") })
        #expect(summary.contains("config \(dir.path)/config.json read"), "\(summary)")
        #expect(summary.contains(#"logLevel "info" → "debug""#), "\(summary)")
        #expect(!daemon.stderr.contains("restart"), "nothing needs a restart:\n\(daemon.stderr)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0, "\(daemon.stderr)")
    }

    /// `lastStretchMetres` 30 → 200 during a walk 100 m from its destination, positions from
    /// an NMEA FIFO: before the reload the walk is not in its last stretch; after it, the next
    /// fix starts the last stretch (the new distance applies now, to the walk under way).
    @Test func aChangedLastStretchAppliesToTheWalkUnderWay() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let fifo = dir.path + "/gps.fifo"
        try #require(mkfifo(fifo, 0o600) == 0)
        // No door index: the walk goes to the destination's centre, 100 m from the fixes.
        let extra = #", "doors": "\#(dir.path)/none.db", "lastStretchMetres": 30"#
        try Self.writeConfig(dir, extra)
        let daemon = try Self.daemon(in: dir, flags: ["--nmea", fifo])
        let epochs = try NMEAFIFOTests.epochs()
        let writer = try NMEAFIFOTests.writer(of: fifo)
        defer { close(writer) }
        // An epoch is given out when the next one begins (its last sentences may still come).
        NMEAFIFOTests.send([epochs[0], epochs[1]], to: writer)
        #expect(try NMEAFIFOTests.reaches(daemon, epochs[0], within: 8), "\(daemon.stderr)")
        let start = try NMEAFIFOTests.position(of: epochs[0])
        let client = try daemon.client()
        let go = fields(
            try client.request(
                #"{"cmd": "go", "destination": {"name": "Hundred", "center": {"lat": \#(start.lat + 100 / 111_195.0), "lon": \#(start.lon)}}}"#
            ))
        #expect(go["state"] == .string("walking"), "\(go)\n\(daemon.stderr)")
        NMEAFIFOTests.send([epochs[2]], to: writer)
        #expect(try NMEAFIFOTests.reaches(daemon, epochs[1], within: 8), "\(daemon.stderr)")
        let walking = fields(try client.request(#"{"cmd": "status"}"#))
        #expect(walking["state"] == .string("walking"), "\(walking)")
        let distance = try #require(walking["distance"]?.numberValue)
        #expect((80...120).contains(distance), "\(walking)")

        try Self.writeConfig(dir, #", "doors": "\#(dir.path)/none.db", "lastStretchMetres": 200"#)
        Self.hangUp(daemon)
        #expect(daemon.stderr.contains("lastStretchMetres 30 → 200"), "\(daemon.stderr)")
        NMEAFIFOTests.send([epochs[3]], to: writer)
        #expect(try NMEAFIFOTests.reaches(daemon, epochs[2], within: 8), "\(daemon.stderr)")
        let after = fields(try client.request(#"{"cmd": "status"}"#))
        #expect(after["state"] == .string("lastStretch"), "\(after)\n\(daemon.stderr)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0, "\(daemon.stderr)")
    }

    /// `socket` and `iioRoot` changed in the file, and `memory` too, which `--memory` overrides
    /// as at start: one warning names the two that changed, each needing a restart; `memory`
    /// is not named; the daemon answers on its old socket and makes no new one.
    @Test func aChangedSocketIsSaidToNeedARestartAndTheOldOneServes() throws {
        let dir = TempDir()
        defer { dir.remove() }
        try Self.writeConfig(dir)
        let daemon = try Self.daemon(in: dir, flags: ["--memory", dir.path + "/flag-memory.json"])
        try Self.writeConfig(
            dir, socket: dir.path + "/new.sock",
            #", "iioRoot": "/sys/other", "memory": "\#(dir.path)/other-memory.json""#)
        // `memory` in the file is its own key now: replace it (the helper wrote it first).
        let path = dir.path + "/config.json"
        let text = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(
            of: #""memory": "\#(dir.path)/memory.json", "#, with: "")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        Self.hangUp(daemon)
        let lines = daemon.stderr.split(separator: "\n").filter { $0.contains("restart") }
        #expect(lines.count == 1, "\(daemon.stderr)")
        let line = try #require(lines.first)
        #expect(line.hasPrefix("<4>warning: SIGHUP: "), "\(line)")
        #expect(line.contains(#"socket "\#(dir.path)/pf.sock" → "\#(dir.path)/new.sock""#), "\(line)")
        #expect(line.contains(#"iioRoot "/sys/bus/iio/devices" → "/sys/other""#), "\(line)")
        #expect(!line.contains("memory"), "--memory still overrides the file:\n\(line)")
        #expect(!line.contains("gpsd") && !line.contains("speakWav"), "unchanged keys:\n\(line)")
        #expect(line.contains("systemctl --user restart pathfinder"), "\(line)")
        #expect(fields(try daemon.client().request(#"{"cmd": "status"}"#))["ok"] == .bool(true))
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/new.sock"))
        // Said again at the next reload: it still needs the restart.
        Self.hangUp(daemon, count: 2)
        #expect(daemon.stderr.split(separator: "\n").filter { $0.contains("restart") }.count == 2)
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0, "\(daemon.stderr)")
    }

    /// A config broken after the start — a bad value beside a good change, then bad JSON: the
    /// daemon runs on as it was (the good change is not applied either), answers `status`,
    /// and logs an error naming the file and what is wrong, as the start would.
    @Test func aConfigBrokenAfterTheStartChangesNothing() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let path = try Self.writeConfig(dir)
        let daemon = try Self.daemon(in: dir)
        try Self.writeConfig(dir, #", "logLevel": "debug", "lastStretchMetres": 2"#)
        Self.hangUp(daemon)
        #expect(
            daemon.stderr.contains(
                #"<3>error: SIGHUP: \#(path): key "lastStretchMetres": 2 is not a distance in metres (5…1000)"#
            ),
            "\(daemon.stderr)")
        #expect(fields(try daemon.client().request(#"{"cmd": "status"}"#))["ok"] == .bool(true))
        #expect(!daemon.stderr.contains("<7>debug:"), "logLevel not applied:\n\(daemon.stderr)")

        try #"{"socket": "x",\#n "logLevel": "debug""#.write(toFile: path, atomically: true, encoding: .utf8)
        Self.hangUp(daemon, count: 2)
        let errors = daemon.stderr.split(separator: "\n").filter {
            $0.hasPrefix("<3>error: SIGHUP: \(path): ")
        }
        #expect(errors.count == 2, "\(daemon.stderr)")
        #expect(errors.last?.contains("line 2") == true, "\(daemon.stderr)")
        #expect(errors.last?.contains("not valid JSON") == true, "\(daemon.stderr)")
        #expect(fields(try daemon.client().request(#"{"cmd": "status"}"#))["ok"] == .bool(true))
        #expect(!daemon.stderr.contains("<7>debug:"), "\(daemon.stderr)")
        #expect(daemon.process.isRunning)
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0, "\(daemon.stderr)")
    }
}

extension DaemonReloadTests {
    /// A config read from a FIFO at start (`--config <(…)` is one) is not read again: no writer
    /// would come, and the daemon's loop would wait for one, its socket unanswered. SIGHUP says
    /// so, opens the indexes again, and the daemon answers.
    @Test func aConfigFromAPipeIsNotReadAgain() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let fifo = dir.path + "/config.fifo"
        try #require(mkfifo(fifo, 0o600) == 0)
        let daemon = try DaemonProcess(
            arguments: ["--config", fifo], socket: dir.path + "/pf.sock", dir: dir)
        let writer = try NMEAFIFOTests.writer(of: fifo)
        let text = Array(
            #"{"socket": "\#(dir.path)/pf.sock", "memory": "\#(dir.path)/memory.json", "mic": false, "baro": "none", "speakWav": "\#(dir.path)/wav"}"#
                .utf8)
        #expect(text.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) } == text.count)
        close(writer)
        try #require(daemon.waitUntilListening(), "daemon did not start: \(daemon.stderr)")
        Self.hangUp(daemon)
        #expect(
            daemon.stderr.contains("SIGHUP: the config \(fifo) is a pipe, read only at start"),
            "\(daemon.stderr)")
        #expect(fields(try daemon.client().request(#"{"cmd": "status"}"#))["ok"] == .bool(true))
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0, "\(daemon.stderr)")
    }

    /// No config file at start (defaults), then a FIFO made at the default path: SIGHUP does not
    /// open it — the loop would wait in open() for a writer, answering no one and deaf to
    /// SIGTERM (before: so, until something wrote to it) — but says it is a pipe, read only at
    /// start, and changes nothing.
    @Test func aFIFOAtTheDefaultPathIsNotOpenedOnReload() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let folder = dir.path + "/xdg/pathfinder"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let daemon = try DaemonProcess(
            arguments: [
                "--socket", dir.path + "/pf.sock", "--memory", dir.path + "/memory.json", "--no-mic",
                "--speak-wav", dir.path + "/wav", "--baro", "none",
            ], socket: dir.path + "/pf.sock", dir: dir, environment: ["XDG_CONFIG_HOME": dir.path + "/xdg"])
        try #require(daemon.waitUntilListening(), "daemon did not start: \(daemon.stderr)")
        try #require(mkfifo(folder + "/config.json", 0o600) == 0)
        daemon.signal(SIGHUP)
        #expect(daemon.logs("SIGHUP: "), "\(daemon.stderr)")
        #expect(
            daemon.stderr.contains("\(folder)/config.json: cannot read the config file: is a FIFO"),
            "\(daemon.stderr)")
        #expect(fields(try daemon.client().request(#"{"cmd": "status"}"#))["ok"] == .bool(true))
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0, "\(daemon.stderr)")
    }
}
