import Arrival
import Daemon
import Foundation
import Geo
import Glibc
import Speech
import Storage
import TestSupport
import Testing

/// The whole daemon against a real gpsd: the demo walk's NMEA served to gpsd on a private
/// port (20 epochs a second), the built `pathfinder daemon` in a subprocess, the walker's
/// answers sent as `heard` requests when the event stream says "arrived".
@Suite(.serialized) struct EndToEndTests {
    /// The subscribed event stream, read line by line; everything seen is kept.
    final class EventStream {
        let client: ControlClient
        private(set) var seen: [[String: JSONValue]] = []

        init(_ client: ControlClient) { self.client = client }

        /// Reads until an event satisfies `match` (nil if the stream ends or stays silent 20 s).
        func next(_ match: ([String: JSONValue]) -> Bool) -> [String: JSONValue]? {
            while let line = client.readLine() {
                let event = fields(line)
                seen.append(event)
                if match(event) { return event }
            }
            return nil
        }

        /// Reads to the end of the stream (the daemon closed it).
        func drain() {
            while let line = client.readLine() { seen.append(fields(line)) }
        }

        func named(_ name: String) -> [[String: JSONValue]] {
            seen.filter { $0["event"]?.stringValue == name }
        }
        var said: [String] { named("say").compactMap { $0["text"]?.stringValue } }
    }

    static func event(_ name: String) -> ([String: JSONValue]) -> Bool {
        { $0["event"]?.stringValue == name }
    }

    static func door(_ value: JSONValue?) throws -> Door { try #require(value).decode(Door.self) }

    private func fixture(_ name: String) throws -> String {
        try #require(
            Bundle.module.path(forResource: "Fixtures/demo/" + name, ofType: nil), "no fixture \(name)")
    }

    /// `pathfinder doors import` of the demo's OSM extract: the daemon's door index.
    private func importDoors(into dir: TempDir) throws -> String {
        let out = dir.path + "/doors.db"
        let process = Process()
        process.executableURL = try BuiltExecutable.pathfinder()
        process.arguments = ["doors", "import", try fixture("doors.osm"), "--out", out]
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "pathfinder doors import failed")
        return out
    }

    @Test func theDemoWalkThroughARealGPSDWithARestartMidWalk() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let nmea = try String(contentsOfFile: try fixture("walk.nmea"), encoding: .utf8)
        let feeder = try NMEAFeeder(nmea: nmea, epochsPerSecond: 20)
        defer { feeder.shutdown() }
        let gpsdPort = try NMEAFeeder.freePort()
        var gpsd = try GPSDProcess(port: gpsdPort, feed: feeder.port)
        defer { gpsd.stop() }
        let memoryPath = dir.path + "/memory.json"
        let wavs = dir.path + "/wav"
        let config = dir.path + "/config.json"
        try """
        {"socket": "\(dir.path)/pf.sock", "memory": "\(memoryPath)", "gpsd": "127.0.0.1:\(gpsdPort)",
         "baro": "nmea", "doors": "\(try importDoors(into: dir))", "lastStretchMetres": 60}
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(
            arguments: ["--config", config, "--no-mic", "--speak-wav", wavs, "--log-level", "debug"],
            socket: dir.path + "/pf.sock", dir: dir)
        try #require(daemon.waitUntilListening(), "daemon did not start: \(daemon.stderr)")
        let events = EventStream(try daemon.client())
        #expect(fields(try events.client.request(#"{"cmd": "subscribe"}"#))["ok"] == .bool(true))
        var requests = try daemon.client()
        let destination = try String(contentsOfFile: try fixture("destination.json"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let go = fields(try requests.request(#"{"cmd": "go", "destination": \#(destination)}"#))
        #expect(go["ok"] == .bool(true), "go: \(go)")

        // OSM's doors come from the door index: A first, D as the alternative.
        let doorsPlan = try #require(events.next { Self.event("plan")($0) && $0["reason"] == "doorsArrived" })
        let firstDoor = try Self.door(doorsPlan["plan"]?.objectValue?["entrance"])
        #expect(firstDoor.label == "A")

        // Positions flow: the only network socket is the TCP connection to the loopback gpsd.
        // Checked once a position has arrived, so a client still in its reconnect backoff
        // (gpsd slow to start on a loaded machine) is not read as "no socket".
        var position: JSONValue?
        for _ in 0..<1000 where position == nil {
            let status = fields(try requests.request(#"{"cmd": "status"}"#))
            if let p = status["position"], p != .null { position = p } else { usleep(20_000) }
        }
        #expect(position != nil, "no position from gpsd:\n\(daemon.stderr)")
        let sockets = ProcessSockets(pid: daemon.pid)
        #expect(sockets.network.count == 1, "network sockets: \(sockets.network)")
        for socket in sockets.network {
            let remote = ProcessSockets.decodeIPv4(socket.remote)
            #expect(socket.proto == "tcp" && remote?.0 == "127.0.0.1" && remote?.1 == Int(gpsdPort))
        }

        // gpsd dies a third of the way in and stays away past the core's 20 s without a fix: the
        // walker hears it once, as lost (fixes came in this walk); gpsd comes back.
        while feeder.epochsServed < feeder.epochCount / 3 { usleep(20_000) }
        gpsd.stop()
        events.client.setReadTimeout(seconds: 40)
        let lost = events.next { Self.event("say")($0) && $0["text"]?.stringValue == Prompts.noFix }
        #expect(lost != nil, "no prompt of the lost signal; daemon log:\n\(daemon.stderr)")
        gpsd = try GPSDProcess(port: gpsdPort, feed: feeder.port)
        // The request connection sat idle through the outage: the daemon closes one after 30 s.
        requests = try daemon.client()

        // Guidance resumes: the walker reaches A and says it is the wrong door.
        let arrivedA = try #require(
            events.next(Self.event("arrived")), "no arrival after the restart:\n\(daemon.stderr)")
        #expect(try Self.door(arrivedA["door"]).label == "A")
        #expect(feeder.connectionCount >= 2, "gpsd never reconnected to the feed")
        let notHere = fields(try requests.request(#"{"cmd": "heard", "text": "여기 아니야"}"#))
        #expect(notHere["meaning"] == "notHere" && notHere["heeded"] == .bool(true), "\(notHere)")
        let rejected = try #require(events.next(Self.event("rejected")))
        #expect(try Self.door(rejected["door"]).label == "A")
        let next = try #require(events.next { Self.event("plan")($0) && $0["reason"] == "rejected" })
        let secondDoor = try Self.door(next["plan"]?.objectValue?["entrance"])
        #expect(secondDoor.label == "D")

        // At D: "여기가 입구야"; SIGTERM as soon as the reply is in, while the memory is written.
        let arrivedD = try #require(
            events.next(Self.event("arrived")), "no second arrival:\n\(daemon.stderr)")
        #expect(try Self.door(arrivedD["door"]).label == "D")
        let thisIsIt = fields(try requests.request(#"{"cmd": "heard", "text": "여기가 입구야"}"#))
        daemon.signal(SIGTERM)
        #expect(thisIsIt["meaning"] == "thisIsIt", "\(thisIsIt)")
        events.drain()
        #expect(daemon.waitForExit() == 0, "daemon log:\n\(daemon.stderr)")

        let confirmed = try #require(events.named("confirmed").first, "events: \(events.seen)")
        let confirmedDoor = try Self.door(confirmed["door"])
        #expect(confirmedDoor.label == "D" && confirmedDoor.source == .walker)
        #expect(confirmedDoor.altitude != nil, "no barometric altitude from the forwarded XDR sentences")
        // To the decimetre, as a replay logs it (before, the altimeter's raw 20.88237995432807).
        if let altitude = confirmedDoor.altitude {
            let decimetres = [altitude.metres * 10, altitude.accuracy * 10]
            #expect(decimetres.allSatisfy { abs($0 - $0.rounded()) < 1e-9 }, "\(altitude)")
        }
        #expect(events.named("memorySaved").count >= 2)  // the rejection, then the confirmation
        // The memory file is whole and holds the confirmed door and the rejected one.
        let loaded = MemoryFile.load(path: memoryPath)
        #expect(loaded.warning == nil, "\(String(describing: loaded.warning))")
        let building = try #require(loaded.memory.buildings.first)
        #expect(building.name == "Siltavuorenpenger 10")
        #expect(building.confirmed?.coordinate == confirmedDoor.coordinate)
        #expect(building.rejected.contains(firstDoor.coordinate))
        // The same lines as the replay's event log, and the prompts spoken into WAV files.
        #expect(events.said.contains { $0.contains("기억할게") })
        #expect(events.said.filter { $0 == Prompts.noFix }.count == 1, "said: \(events.said)")
        #expect(events.said.contains(Prompts.fixBack) && !events.said.contains(Prompts.waitingForGPS))
        let spoken = (try? FileManager.default.contentsOfDirectory(atPath: wavs)) ?? []
        #expect(spoken.count >= 3, "WAVs: \(spoken)")
        print("e2e: \(events.seen.count) events, \(spoken.count) WAVs, confirmed \(confirmedDoor)")
    }
}

/// `go {"query"}` and `where` through the bundled gazetteer, positions from an NMEA file.
@Suite(.serialized) struct GazetteerDaemonTests {
    /// The repository root (this file is Tests/DaemonTests/EndToEndTests.swift).
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    @Test func goByNameAndWhereFromAnNMEAFile() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let gazetteer = Self.repo + "/artifacts/gazetteer/gazetteer.sqlite"
        try #require(
            FileManager.default.fileExists(atPath: gazetteer), "no bundled gazetteer at \(gazetteer)")
        let nmea = try #require(Bundle.module.path(forResource: "Fixtures/demo/walk.nmea", ofType: nil))
        let daemon = try DaemonProcess(
            arguments: [
                "--socket", dir.path + "/pf.sock", "--memory", dir.path + "/memory.json", "--no-mic",
                "--speak-wav", dir.path + "/wav", "--baro", "none", "--nmea", nmea, "--gazetteer", gazetteer,
                "--doors", Self.repo + "/artifacts/doors/helsinki.db",
            ], socket: dir.path + "/pf.sock", dir: dir)
        try #require(daemon.waitUntilListening(), "daemon did not start: \(daemon.stderr)")
        let client = try daemon.client()

        let go = fields(try client.request(#"{"cmd": "go", "query": "Helsinki"}"#))
        #expect(go["ok"] == .bool(true), "\(go)")
        let destination = try #require(go["destination"]).decode(Destination.self)
        #expect(destination.name == "Helsinki")
        #expect(destination.center.distance(to: Coordinate(latitude: 60.17, longitude: 24.94)) < 5_000)
        let unknown = fields(try client.request(#"{"cmd": "go", "query": "Qxzzyq Nowhere"}"#))
        #expect(unknown["ok"] == .bool(false))
        // Not a gazetteer place, but a named building of the door index.
        let station = fields(try client.request(#"{"cmd": "go", "query": "Rautatieasema"}"#))
        let stationDestination = try #require(station["destination"], "\(station)").decode(Destination.self)
        #expect(stationDestination.name == "Helsingin päärautatieasema")
        #expect(
            unknown["error"]?.stringValue?.contains(
                "no place called \"Qxzzyq Nowhere\" in the gazetteer or the door index") == true,
            "\(unknown)")

        // The file's first fix comes at once (a paced replay waits only between epochs).
        var place: [String: JSONValue] = [:]
        for _ in 0..<500 {
            place = fields(try client.request(#"{"cmd": "where"}"#))
            if place["ok"] == .bool(true) { break }
            #expect(place["error"] == "where: no position yet")
            usleep(20_000)
        }
        let answer = try #require(place["place"]?.objectValue, "where: \(place)\n\(daemon.stderr)")
        #expect(answer["country"]?.objectValue?["id"] == "FI")
        #expect(answer["city"]?.objectValue?["name"] != nil)
        // `pathfinder where` without coordinates is the same request, from the command line.
        let cli = Process()
        let out = Pipe()
        cli.executableURL = try BuiltExecutable.pathfinder()
        cli.arguments = ["where", "--socket", daemon.socket]
        cli.standardOutput = out
        cli.standardError = FileHandle.nullDevice
        try cli.run()
        let printed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        cli.waitUntilExit()
        #expect(cli.terminationStatus == 0)
        #expect(fields(printed)["place"]?.objectValue?["country"]?.objectValue?["id"] == "FI", "\(printed)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }
}

/// The microphone during the last stretch and the speaker, on a machine without those devices.
@Suite(.serialized) struct MicrophoneDaemonTests {
    @Test func aMissingMicrophoneIsLoggedAndTheDaemonRunsOn() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let (daemon, client) = try Self.atTheDoor(
            dir,
            #""micDevice": "pf-test-no-such-device", "speaker": "pf-test-no-such-speaker", "doors": "\#(dir.path)/missing.db""#
        )
        #expect(
            daemon.logs("microphone pf-test-no-such-device:"),
            "no microphone warning:\n\(daemon.stderr)")
        // A missing door index is logged, and the walk goes on to the door it was given.
        #expect(daemon.stderr.contains("missing.db"))
        let status = fields(try client.request(#"{"cmd": "status"}"#))
        #expect(status["state"] == "lastStretch", "\(status)")
        // Answers still come as requests, and from the command line (`pathfinder heard`):
        // words that mean neither answer are not heeded (the command line refuses them: exit 2).
        let chatter = fields(try client.request(#"{"cmd": "heard", "text": "안녕"}"#))
        #expect(chatter["meaning"] == .null && chatter["heeded"] == .bool(false), "\(chatter)")
        #expect(try Self.pathfinder(["heard", "안녕", "--socket", daemon.socket]).status == 2)
        let heard = try Self.pathfinder(["heard", "여기가", "입구야", "--socket", daemon.socket])
        #expect(heard.status == 0)
        #expect(
            fields(heard.out)["meaning"] == "thisIsIt" && fields(heard.out)["heeded"] == .bool(true),
            "\(heard)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        // No such speaker: every prompt fails the same way, and the log says so once.
        let log = daemon.stderr
        #expect(log.components(separatedBy: "cannot speak").count == 2, "\(log)")
        #expect(log.components(separatedBy: "<6>info: say: ").count > 2, "fewer than two prompts:\n\(log)")
        // The walker is told, once, that their voice will not be heard (before, they were asked
        // to answer aloud into a microphone that was not there).
        let told = "say: \(DaemonCore.cannotHearText)\n"
        #expect(log.components(separatedBy: told).count == 2, "\(log)")
    }

    /// A phrase model PocketSphinx refuses (a grammar cut short) is a warning at start, as
    /// docs/daemon.md promises of every configured file — before, the daemon found out at the
    /// door — and the walker is told there.
    @Test func aPhraseModelPocketSphinxRefusesIsSaidAtStart() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let models = dir.path + "/models"
        try FileManager.default.copyItem(atPath: GazetteerDaemonTests.repo + "/models", toPath: models)
        let grammar = try Data(contentsOf: URL(fileURLWithPath: models + "/pathfinder.fsg"))
        try grammar.prefix(3_000).write(to: URL(fileURLWithPath: models + "/pathfinder.fsg"))
        let (daemon, _) = try Self.atTheDoor(
            dir, #""micDevice": "null", "speakWav": "\#(dir.path)/wav""#,
            environment: ["PATHFINDER_MODELS": models])
        let told = "say: \(DaemonCore.cannotHearText)\n"
        #expect(daemon.logs(told), "the walker was not told:\n\(daemon.stderr)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        let log = daemon.stderr
        let atStart = try #require(
            log.range(of: "the microphone cannot hear answers"), "no warning at start:\n\(log)")
        let walk = try #require(log.range(of: "info: say: "), "\(log)")
        #expect(atStart.lowerBound < walk.lowerBound, "warned only after the walk began:\n\(log)")
        #expect(!log.contains("phrase model: phrase model:"), "\(log)")
        #expect(log.components(separatedBy: told).count == 2, "\(log)")
        // It never listened: no "closed" for a microphone that did not open.
        #expect(!log.contains("microphone null: closed"), "\(log)")
    }

    /// A `speakWav` folder that cannot be made: one line in words at start, and one for the
    /// prompts (before: Foundation's NSError at start, then a warning per prompt, each naming
    /// its own NNNN.wav).
    @Test func aSpeakWavFolderThatCannotBeMadeIsSaidOnceInWords() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let file = dir.path + "/afile"
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        let (daemon, _) = try Self.atTheDoor(dir, #""micDevice": "null", "speakWav": "\#(file)/wav""#)
        #expect(daemon.logs("info: say: "), "\(daemon.stderr)")
        // Until a second prompt has been tried (bounded, 20 s; before, a fixed second, which
        // under load was sometimes one prompt: the test failed for its own timing).
        for _ in 0..<2000 where daemon.stderr.components(separatedBy: "<6>info: say: ").count <= 2 {
            usleep(10_000)
        }
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        let log = daemon.stderr
        #expect(
            log.contains("speakWav \(file)/wav: cannot make the folder: \(file) is not a folder\n"), "\(log)")
        #expect(!log.contains("NSCocoaErrorDomain"), "\(log)")
        let cannot =
            "cannot speak (speakWav \(file)/wav: cannot write: a part of \(file)/wav is not a folder)"
        #expect(log.components(separatedBy: cannot).count == 2, "\(log)")
        #expect(log.components(separatedBy: "cannot speak").count == 2, "\(log)")
        #expect(log.components(separatedBy: "<6>info: say: ").count > 2, "fewer than two prompts:\n\(log)")
    }
}

extension MicrophoneDaemonTests {
    /// The built `pathfinder` run with `arguments`: its exit status and standard output.
    static func pathfinder(_ arguments: [String]) throws -> (status: Int32, out: String) {
        let result = try runCapturing(try BuiltExecutable.pathfinder().path, arguments, standardOutput: true)
        return (result.status, result.text)
    }

    /// A daemon with the microphone on (config keys `extra` added) walking the demo NMEA, sent
    /// to a door where the walk's first fix already is: the last stretch, and the microphone, at
    /// once. The daemon and its client.
    static func atTheDoor(
        _ dir: TempDir, _ extra: String, environment: [String: String] = [:]
    ) throws -> (DaemonProcess, ControlClient) {
        let nmea = try #require(Bundle.module.path(forResource: "Fixtures/demo/walk.nmea", ofType: nil))
        let config = dir.path + "/config.json"
        try """
        {"socket": "\(dir.path)/pf.sock", "memory": "\(dir.path)/memory.json", "nmea": "\(nmea)",
         "baro": "none", "mic": true, \(extra)}
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(
            arguments: ["--config", config], socket: dir.path + "/pf.sock", dir: dir, environment: environment
        )
        try #require(daemon.waitUntilListening(), "daemon did not start: \(daemon.stderr)")
        let client = try daemon.client()
        let door = #"{"lat": 60.1722135, "lon": 24.9467832}"#
        let go = fields(
            try client.request(
                #"{"cmd": "go", "destination": {"name": "T", "center": {"lat": 60.1723, "lon": 24.9468}, "door": \#(door)}}"#
            ))
        #expect(go["ok"] == .bool(true), "\(go)")
        return (daemon, client)
    }

    /// The walker's decoders, as the operating point sets them (noise suppression and all), are
    /// the ones the daemon listens with, and its log says so when the last stretch opens the
    /// microphone: ALSA's `null` device, which captures silence on any machine.
    @Test func theDaemonLogsTheDecodersItListensWith() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let models = GazetteerDaemonTests.repo + "/models"
        let expected = try PhraseModel.load(directory: models).operatingPoint.decoderSummary
        try #require(
            expected.contains("noise suppressed"), "the committed point has no noise suppression: \(expected)"
        )
        let (daemon, client) = try Self.atTheDoor(
            dir, #""micDevice": "null", "speakWav": "\#(dir.path)/wav""#,
            environment: ["PATHFINDER_MODELS": models])
        let line = "microphone null: listening; decoders: \(expected)\n"
        #expect(daemon.logs(line), "no \"\(line)\" in:\n\(daemon.stderr)")
        #expect(!daemon.stderr.contains("answers only via `heard` requests\n"), "\(daemon.stderr)")
        // ALSA's null device gives every sample 0, as a muted microphone does: said once.
        let muted =
            "warning: microphone null: no sound at all for 10 s (every sample 0): muted, or the wrong capture device?"
        #expect(daemon.logs(muted), "no \"\(muted)\" in:\n\(daemon.stderr)")
        // `status` shows it while it lasts, as the walker is told "마이크가 안 들려" (audit 11 A11-5:
        // before, "listening" with no problem).
        let microphone = fields(try client.request(#"{"cmd": "status"}"#))["microphone"]?.objectValue
        #expect(microphone?["state"] == .string("listening"), "\(String(describing: microphone))")
        #expect(
            microphone?["problem"]?.stringValue?.contains("no sound at all for 10 s") == true,
            "\(String(describing: microphone))")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        #expect(daemon.stderr.components(separatedBy: muted).count == 2, "\(daemon.stderr)")
        #expect(!daemon.stderr.contains("stock en-us"), "\(daemon.stderr)")
    }

    /// ALSA's `null` capture device gives zeros as fast as it is read — what a wrong `micDevice`
    /// gives: the daemon names it once and reads it at real time, so its decoder never falls
    /// behind and the daemon does not grow; it runs on, and says the silence as of a muted
    /// microphone. Before, in the last stretch the capture thread spun a core, "the decoder fell
    /// 30 s behind" and "caught up" in turns, and the daemon grew by ~100 MB/s until the OOM killer.
    @Test func aCaptureDeviceFasterThanRealTimeIsNamedAndReadAtRealTime() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let (daemon, client) = try Self.atTheDoor(
            dir, #""micDevice": "null", "speakWav": "\#(dir.path)/wav""#,
            environment: ["PATHFINDER_MODELS": GazetteerDaemonTests.repo + "/models"])
        let named =
            "warning: microphone null: the capture device delivers audio faster than real time: not a microphone?"
        #expect(daemon.logs(named), "no \"\(named)\" in:\n\(daemon.stderr)")
        let muted = "warning: microphone null: no sound at all for 10 s"
        #expect(daemon.logs(muted), "no \"\(muted)\" in:\n\(daemon.stderr)")
        let status = try String(contentsOfFile: "/proc/\(daemon.pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        let kilobytes = try #require(Int(line.split { $0 == " " || $0 == "\t" }.dropFirst().first ?? ""))
        #expect(kilobytes < 400_000, "the daemon holds \(kilobytes / 1024) MB")
        // Zeros at real time keep no core busy (before, the capture thread spun one: 170 %).
        func cpuSeconds() throws -> Double {
            let stat = try String(contentsOfFile: "/proc/\(daemon.pid)/stat", encoding: .utf8)
            let after = stat.split(separator: ")").last?.split(separator: " ") ?? []
            return Double((Int(after[11]) ?? 0) + (Int(after[12]) ?? 0)) / Double(sysconf(Int32(_SC_CLK_TCK)))
        }
        let used = try cpuSeconds()
        sleep(3)
        let busy = try cpuSeconds() - used
        #expect(busy < 1.5, "the daemon kept a core busy: \(busy) s of CPU in 3 s")
        #expect(fields(try client.request(#"{"cmd": "status"}"#))["state"] == "lastStretch")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        #expect(daemon.stderr.components(separatedBy: named).count == 2, "\(daemon.stderr)")
        #expect(!daemon.stderr.contains("fell 30 s behind"), "\(daemon.stderr)")
    }

    /// The stock model's fallback is said at start, where the phrase model is loaded to say its
    /// problems now, before any walk opens the microphone (before, only at the door, after
    /// "listening; decoders").
    @Test func theDaemonSaysAtStartThatItWillListenWithTheStockModel() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let models = dir.path + "/models"
        try FileManager.default.createDirectory(atPath: models, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: GazetteerDaemonTests.repo + "/models")
        where name != "en-us-adapted" {
            try FileManager.default.copyItem(
                atPath: GazetteerDaemonTests.repo + "/models/" + name, toPath: models + "/" + name)
        }
        let nmea = try #require(Bundle.module.path(forResource: "Fixtures/demo/walk.nmea", ofType: nil))
        let config = dir.path + "/config.json"
        try """
        {"socket": "\(dir.path)/pf.sock", "memory": "\(dir.path)/memory.json", "nmea": "\(nmea)",
         "baro": "none", "mic": true, "micDevice": "null", "speakWav": "\(dir.path)/wav"}
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(
            arguments: ["--config", config], socket: dir.path + "/pf.sock", dir: dir,
            environment: ["PATHFINDER_MODELS": models])
        try #require(daemon.waitUntilListening(), "daemon did not start: \(daemon.stderr)")
        let line =
            "warning: microphone null: \(models)/en-us-adapted is missing: listening with Debian's stock en-us acoustic model"
        #expect(daemon.logs(line), "no \"\(line)\" in:\n\(daemon.stderr)")
        #expect(daemon.stderr.components(separatedBy: line).count - 1 == 1, "\(daemon.stderr)")
        #expect(
            !daemon.stderr.contains("listening; decoders"), "no walk opened the microphone: \(daemon.stderr)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    /// Without `en-us-adapted` in its models the daemon listens with Debian's stock acoustic
    /// model, which fails four of the five model checks: its log says so when it opens the
    /// microphone, naming the missing folder (before, it fell back without a word).
    @Test func theDaemonSaysWhenItListensWithTheStockModel() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let models = dir.path + "/models"
        try FileManager.default.createDirectory(atPath: models, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: GazetteerDaemonTests.repo + "/models")
        where name != "en-us-adapted" {
            try FileManager.default.copyItem(
                atPath: GazetteerDaemonTests.repo + "/models/" + name, toPath: models + "/" + name)
        }
        let (daemon, _) = try Self.atTheDoor(
            dir, #""micDevice": "null", "speakWav": "\#(dir.path)/wav""#,
            environment: ["PATHFINDER_MODELS": models])
        let line =
            "warning: microphone null: \(models)/en-us-adapted is missing: listening with Debian's stock en-us acoustic model"
        #expect(daemon.logs(line), "no \"\(line)\" in:\n\(daemon.stderr)")
        #expect(daemon.logs("microphone null: listening; decoders:"), "it still listens:\n\(daemon.stderr)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }
}

@Suite struct PositionSourceFailureTests {
    @Test func anNMEAPathThatCannotBeOpenedStopsTheStartNamingIt() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let daemon = try DaemonProcess(
            arguments: [
                "--socket", dir.path + "/pf.sock", "--memory", dir.path + "/memory.json", "--no-mic",
                "--baro", "none", "--nmea", dir.path + "/no-such-receiver",
            ], socket: dir.path + "/pf.sock", dir: dir)
        #expect(daemon.waitForExit() == 1)
        #expect(daemon.stderr.contains("nmea \(dir.path)/no-such-receiver"), "\(daemon.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/pf.sock"))
    }

    /// A daemon (no microphone, no barometer) reading `dir/FILE`: the sentence bodies given,
    /// each with its checksum; listening, and the file's path.
    static func daemonReading(
        _ bodies: [String], file: String, in dir: TempDir
    ) throws -> (DaemonProcess, String) {
        let path = dir.path + "/" + file
        let lines = bodies.map { body in
            let sum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
            return "$" + body + "*" + String(format: "%02X", sum) + "\r\n"
        }
        try lines.joined().write(toFile: path, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(
            arguments: [
                "--socket", dir.path + "/pf.sock", "--memory", dir.path + "/memory.json", "--no-mic",
                "--baro", "none", "--nmea", path,
            ], socket: dir.path + "/pf.sock", dir: dir)
        try #require(daemon.waitUntilListening(), "\(daemon.stderr)")
        return (daemon, path)
    }

    /// A recorded file of GGA only (no RMC or ZDA: no date) gives no fix; the log says why,
    /// once. Before: nothing was said, and no position ever came; then it was said that the
    /// input ended, and at the next tick that it was awaited.
    @Test func anNMEAFileWithoutADateIsSaidWhyNoPositionComes() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let (daemon, path) = try Self.daemonReading(
            (0..<5).map { "GPGGA,12000\($0).00,6010.0000,N,02456.0000,E,1,08,0.9,10.0,M,17.0,M,," },
            file: "gga-only.nmea", in: dir)
        #expect(
            daemon.logs(
                "NMEA \(path): the input ended: fixes dropped: the input has no date yet (no RMC or ZDA sentence); no more positions"
            ),
            "\(daemon.stderr)")
        // Then nothing contradicts it at the next ticks (before: "…; waiting for it").
        usleep(2_500_000)
        #expect(!daemon.stderr.contains("waiting for it"), "\(daemon.stderr)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    /// A recording of a receiver's simulator (GGA quality 8, RMC mode S): no position, and the
    /// log says why, as for a file without a date. Before, its positions led the walk.
    @Test func anNMEAFileOfSimulatedPositionsIsSaidWhyNoPositionComes() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let (daemon, path) = try Self.daemonReading(
            (0..<3).flatMap { second in
                [
                    "GPGGA,12000\(second).00,6010.0000,N,02456.0000,E,8,08,0.9,10.0,M,17.0,M,,",
                    "GPRMC,12000\(second).00,A,6010.0000,N,02456.0000,E,0.5,90.0,010124,,,S",
                ]
            }, file: "simulator.nmea", in: dir)
        let line =
            "NMEA \(path): the input ended: no fix: the receiver says its positions are simulated, typed in or dead reckoning (not GNSS); no more positions"
        #expect(daemon.logs(line), "\(daemon.stderr)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    /// The same over gpsd (simulator by RMC mode S and GGA quality 8, typed in by mode M): the
    /// log says why no position comes. Before: nothing was said over gpsd.
    @Test func aGPSDOfSimulatedPositionsIsSaidWhyNoPositionComes() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let nmea = (0..<40).flatMap { i in
            let t = String(format: "1200%02d.00", i)
            let mode = i.isMultiple(of: 2) ? "S" : "M"
            return [
                "GPRMC,\(t),A,6010.0000,N,02456.0000,E,0.5,90.0,010124,,,\(mode)",
                "GPGGA,\(t),6010.0000,N,02456.0000,E,\(mode == "S" ? 8 : 1),08,0.9,10.0,M,17.0,M,,",
            ]
        }.map { body in "$" + body + "*" + String(format: "%02X", body.utf8.reduce(UInt8(0)) { $0 ^ $1 }) }
        let feeder = try NMEAFeeder(nmea: nmea.joined(separator: "\n"), epochsPerSecond: 10)
        defer { feeder.shutdown() }
        let gpsdPort = try NMEAFeeder.freePort()
        let gpsd = try GPSDProcess(port: gpsdPort, feed: feeder.port)
        defer { gpsd.stop() }
        let daemon = try DaemonProcess(
            arguments: [
                "--socket", dir.path + "/pf.sock", "--memory", dir.path + "/memory.json", "--no-mic",
                "--baro", "none", "--gpsd", "127.0.0.1:\(gpsdPort)",
            ], socket: dir.path + "/pf.sock", dir: dir)
        try #require(daemon.waitUntilListening(), "\(daemon.stderr)")
        let line =
            "gpsd 127.0.0.1:\(gpsdPort): no fix: the receiver says its positions are simulated, typed in or dead reckoning (not GNSS); waiting for it"
        #expect(daemon.logs(line), "\(daemon.stderr)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    /// A serial receiver that hangs up (a USB receiver pulled out) is opened again when its
    /// path answers again (plugged back in; here a udev-like link moved to a new terminal):
    /// before, the daemon ran on without positions until it was restarted. Two pseudo
    /// terminals stand in for the receiver, fed the demo walk's sentences.
    @Test func aSerialReceiverThatHangsUpIsOpenedAgain() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let nmea = try #require(Bundle.module.path(forResource: "Fixtures/demo/walk.nmea", ofType: nil))
        let lines = try String(contentsOfFile: nmea, encoding: .utf8).split(whereSeparator: \.isNewline)
            .filter {
                $0.hasPrefix("$")
            }
        try #require(lines.count >= 1_200)
        let link = dir.path + "/gps"
        /// A new pseudo terminal behind `link`: its controlling (receiver's) end and the other.
        func plugIn() throws -> (receiver: Int32, other: Int32) {
            var receiver: Int32 = -1, other: Int32 = -1
            try #require(openpty(&receiver, &other, nil, nil, nil) == 0)
            // Raw from the start, as a receiver's port is: no echo filling the other side.
            var raw = termios()
            tcgetattr(other, &raw)
            cfmakeraw(&raw)
            tcsetattr(other, TCSANOW, &raw)
            unlink(link)
            try #require(symlink(String(cString: ttyname(other)), link) == 0)
            return (receiver, other)
        }
        func send(_ part: ArraySlice<Substring>, to receiver: Int32) {
            for line in part {
                let bytes = Array((line + "\r\n").utf8)
                _ = bytes.withUnsafeBytes { write(receiver, $0.baseAddress, $0.count) }
                usleep(2_000)
            }
        }
        let first = try plugIn()
        let daemon = try DaemonProcess(
            arguments: [
                "--socket", dir.path + "/pf.sock", "--memory", dir.path + "/memory.json", "--no-mic",
                "--baro", "none", "--nmea", link,
            ], socket: dir.path + "/pf.sock", dir: dir)
        try #require(daemon.waitUntilListening(), "\(daemon.stderr)")
        send(lines[0..<200], to: first.receiver)
        close(first.receiver)
        close(first.other)
        #expect(daemon.logs("\(link): the device hung up; waiting for it"), "\(daemon.stderr)")
        let second = try plugIn()
        defer {
            close(second.receiver)
            close(second.other)
        }
        // The daemon opens it again within a second, flushing what came before: the receiver
        // talks on, a few sentences at a time, until it is heard (bounded, 30 s).
        var start = 1_000
        let deadline = Date().addingTimeInterval(30)
        while !daemon.stderr.contains("NMEA \(link): positions again"), Date() < deadline {
            if start + 20 > lines.count { start = 1_000 }
            send(lines[start..<start + 20], to: second.receiver)
            start += 20
        }
        #expect(daemon.stderr.contains("NMEA \(link): positions again"), "\(daemon.stderr)")
        let status = fields(try daemon.client().request(#"{"cmd": "status"}"#))
        let age = try #require(status["positionAge"]?.numberValue, "\(status)")
        #expect(age < 5, "\(status)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }
}

/// An NMEA FIFO (another program's output) is waited for: the daemon comes up without a
/// writer, says it waits, answers (no position yet), reads the writer's positions as they
/// come, and when the writer closes it, waits for the next one and reads that too, on the
/// same FIFO or one made again at its path. Before:
/// the daemon's open() waited for a writer, so no socket and nothing logged until one came,
/// and the first writer's end ended the positions for good.
@Suite(.serialized) struct NMEAFIFOTests {
    /// A writer on the FIFO at `path`, once the daemon has it open for reading (bounded, 20 s).
    static func writer(of path: String) throws -> Int32 {
        for _ in 0..<2000 {
            let fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            if fd >= 0 { return fd }
            try #require(errno == ENXIO, "open \(path) for writing: \(String(cString: strerror(errno)))")
            usleep(10_000)
        }
        Issue.record("no reader on \(path) after 20 s")
        throw CancellationError()
    }

    /// The demo walk's epochs (one a second), each its sentences from its RMC on.
    static func epochs() throws -> [[Substring]] {
        let walk = try #require(Bundle.module.path(forResource: "Fixtures/demo/walk.nmea", ofType: nil))
        var epochs: [[Substring]] = []
        for line in try String(contentsOfFile: walk, encoding: .utf8).split(whereSeparator: \.isNewline)
        where line.hasPrefix("$") {
            if line.dropFirst(3).hasPrefix("RMC") || epochs.isEmpty { epochs.append([]) }
            epochs[epochs.count - 1].append(line)
        }
        return epochs
    }

    /// The position an epoch's RMC gives, degrees.
    static func position(of epoch: [Substring]) throws -> (lat: Double, lon: Double) {
        let f = try #require(epoch.first { $0.dropFirst(3).hasPrefix("RMC") }).split(
            separator: ",", omittingEmptySubsequences: false)
        func degrees(_ field: Substring, _ width: Int) throws -> Double {
            let whole = try #require(Double(field.prefix(width)))
            return whole + (try #require(Double(field.dropFirst(width)))) / 60
        }
        return (try degrees(f[3], 2), try degrees(f[5], 3))
    }

    /// Runs `body` with a daemon reading a FIFO made here (no writer yet) and the FIFO's path,
    /// then stops the daemon with SIGTERM, which it ends on with 0.
    static func withDaemonOnAFIFO(_ body: (DaemonProcess, String) throws -> Void) throws {
        let dir = TempDir()
        defer { dir.remove() }
        let fifo = dir.path + "/gps.fifo"
        try #require(mkfifo(fifo, 0o600) == 0)
        let daemon = try DaemonProcess(
            arguments: [
                "--socket", dir.path + "/pf.sock", "--memory", dir.path + "/memory.json", "--no-mic",
                "--baro", "none", "--nmea", fifo,
            ], socket: dir.path + "/pf.sock", dir: dir)
        try #require(daemon.waitUntilListening(), "no socket without a writer:\n\(daemon.stderr)")
        try body(daemon, fifo)
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    /// One writer of `epochs` on `fifo`, as `cat FILE > FIFO` is: open, write, close.
    static func writeAndClose(_ epochs: [[Substring]], on fifo: String) throws {
        let fd = try writer(of: fifo)
        send(epochs, to: fd)
        close(fd)
    }

    /// Writes `epochs` to `fd` in one go, as `cat` would.
    static func send(_ epochs: [[Substring]], to fd: Int32) {
        let bytes = Array(epochs.joined().map { $0 + "\r\n" }.joined().utf8)
        #expect(bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == bytes.count)
    }

    /// Whether the daemon's `status` position becomes `epoch`'s within `seconds`.
    static func reaches(_ daemon: DaemonProcess, _ epoch: [Substring], within seconds: Double) throws -> Bool
    {
        let want = try position(of: epoch)
        let client = try daemon.client()
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            let position = fields(try client.request(#"{"cmd": "status"}"#))["position"]?.objectValue
            if let lat = position?["lat"]?.numberValue, let lon = position?["lon"]?.numberValue,
                abs(lat - want.lat) < 1e-6, abs(lon - want.lon) < 1e-6
            {
                return true
            }
            usleep(20_000)
        } while Date() < deadline
        return false
    }

    /// Writers one after another, each as `cat FILE > FIFO` is (open, write, close), the next
    /// coming while the daemon still gives out the last one's final epoch (paced 3 s after its
    /// first, and closed only by the writer's end: it lacks the GST and XDR that end the others):
    /// every one is read. Before, the daemon reopened the FIFO only after that pause, its old
    /// read end still open: the next writer's open succeeded on it, it wrote and left, and the
    /// daemon's close threw its bytes away, unsaid (the audit: 20 writers, 5475 bytes written,
    /// 5202 read).
    @Test func aWriterComingJustAfterAnotherIsRead() throws {
        let epochs = try Self.epochs()
        try Self.withDaemonOnAFIFO { daemon, fifo in
            var lost: [Int] = []
            for k in 0..<4 {
                try Self.writeAndClose(
                    [
                        epochs[100 * k],
                        epochs[100 * k + 3].filter { $0.hasPrefix("$GPRMC") || $0.hasPrefix("$GPGGA") },
                    ], on: fifo)
                // Bounded well past any paced pause (5 s at most, after the last one's 3 s).
                if try !Self.reaches(daemon, epochs[100 * k], within: 12) { lost.append(k) }
                usleep(300_000)
            }
            #expect(lost.isEmpty, "writers lost: \(lost)\n\(daemon.stderr)")
            #expect(try Self.reaches(daemon, epochs[303], within: 12), "\(daemon.stderr)")
            #expect(!daemon.stderr.contains("the input ended"), "\(daemon.stderr)")
        }
    }

    /// A writer that removes the FIFO as it leaves (a script cleaning up after itself): the
    /// daemon waits for the FIFO to be made again at its path, says so once, and reads the
    /// next writer there. Before: "the input ended: open F: No such file or directory; no
    /// more positions", for good, the daemon up without positions.
    @Test func aFIFORemovedByItsWriterIsWaitedForAtItsPath() throws {
        let epochs = try Self.epochs()
        try Self.withDaemonOnAFIFO { daemon, fifo in
            let first = try Self.writer(of: fifo)
            Self.send([epochs[0], epochs[1]], to: first)
            unlink(fifo)
            close(first)
            #expect(try Self.reaches(daemon, epochs[1], within: 8), "\(daemon.stderr)")
            let missing = "NMEA \(fifo): open \(fifo): No such file or directory; waiting for it"
            #expect(daemon.logs(missing), "\(daemon.stderr)")
            // Several of the once-a-second tries pass before it is back.
            usleep(2_500_000)
            try #require(mkfifo(fifo, 0o600) == 0)
            let second = try Self.writer(of: fifo)
            defer { close(second) }
            Self.send([epochs[20], epochs[21]], to: second)
            #expect(try Self.reaches(daemon, epochs[20], within: 8), "\(daemon.stderr)")
            #expect(daemon.stderr.components(separatedBy: missing).count == 2, "said once:\n\(daemon.stderr)")
            #expect(!daemon.stderr.contains("the input ended"), "\(daemon.stderr)")
        }
    }

    /// A new writer is a new stream, paced from its own first epoch: its first fix comes at
    /// once, however far its times are from the last writer's. Before, the pacing went on
    /// from the last writer's last epoch, and the new writer's first fix waited
    /// min(its time - that one's, 5 s).
    @Test func aNewWritersFirstFixIsNotHeldByTheLastWritersTimes() throws {
        let epochs = try Self.epochs()
        try Self.withDaemonOnAFIFO { daemon, fifo in
            try Self.writeAndClose([epochs[0], epochs[1]], on: fifo)
            #expect(try Self.reaches(daemon, epochs[1], within: 8), "\(daemon.stderr)")
            // 300 s on in the walk: held 5 s before.
            let second = try Self.writer(of: fifo)
            defer { close(second) }
            Self.send([epochs[300], epochs[301]], to: second)
            #expect(try Self.reaches(daemon, epochs[300], within: 2.5), "\(daemon.stderr)")
        }
    }

    /// A FIFO deleted and made again (rm, mkfifo) while a writer holds the old one open and has
    /// not written yet: the daemon keeps reading the old one until that writer closes it, then
    /// reads the new one, where the next writer comes. Before: seeing a new FIFO at the path
    /// within 0.1 s, it closed the old one, so that writer's bytes had no reader (EPIPE, or lost
    /// in the pipe when written just as it closed).
    @Test func aWriterHoldingAFIFOMadeAgainIsReadToItsEnd() throws {
        let epochs = try Self.epochs()
        try Self.withDaemonOnAFIFO { daemon, fifo in
            let old = try Self.writer(of: fifo)
            unlink(fifo)
            try #require(mkfifo(fifo, 0o600) == 0)
            // Several of the daemon's 0.1 s polls pass, each seeing the new FIFO at the path.
            usleep(800_000)
            var end = pollfd(fd: old, events: Int16(POLLOUT), revents: 0)
            #expect(poll(&end, 1, 0) == 1 && end.revents & Int16(POLLERR) == 0, "the old FIFO has no reader")
            if end.revents & Int16(POLLERR) == 0 {
                Self.send([epochs[0], epochs[1]], to: old)
                #expect(try Self.reaches(daemon, epochs[1], within: 8), "\(daemon.stderr)")
            }
            close(old)
            // Then the new one is read.
            let next = try Self.writer(of: fifo)
            defer { close(next) }
            Self.send([epochs[20], epochs[21]], to: next)
            #expect(try Self.reaches(daemon, epochs[20], within: 8), "\(daemon.stderr)")
            #expect(!daemon.stderr.contains("the input ended"), "\(daemon.stderr)")
        }
    }

    @Test func aFIFOWithoutAWriterIsWaitedForAndEachWriterRead() throws {
        let walk = try #require(Bundle.module.path(forResource: "Fixtures/demo/walk.nmea", ofType: nil))
        let lines = try String(contentsOfFile: walk, encoding: .utf8).split(whereSeparator: \.isNewline)
            .filter { $0.hasPrefix("$") }
        try Self.withDaemonOnAFIFO { daemon, fifo in
            let waiting = "NMEA \(fifo): no writer has written to the FIFO yet; waiting for it"
            #expect(daemon.logs(waiting), "\(daemon.stderr)")
            let before = fields(try daemon.client().request(#"{"cmd": "status"}"#))
            #expect(before["position"] == .null, "\(before)")
            /// How often the daemon has logged `line` of the FIFO, once it has at least `count` times (bounded, 20 s).
            func logged(_ line: String, _ count: Int) -> Int {
                let seen = { daemon.stderr.components(separatedBy: "NMEA \(fifo): \(line)").count - 1 }
                for _ in 0..<2000 where seen() < count { usleep(10_000) }
                return seen()
            }
            let closed = "the writer closed the FIFO; waiting for it"

            let first = try Self.writer(of: fifo)
            Self.send([Array(lines[0..<15])], to: first)
            #expect(logged("positions again", 1) == 1, "\(daemon.stderr)")
            let during = fields(try daemon.client().request(#"{"cmd": "status"}"#))
            #expect(during["position"] != .null && during["position"] != nil, "\(during)")
            close(first)
            #expect(logged(closed, 1) == 1, "\(daemon.stderr)")
            #expect(!daemon.stderr.contains("the input ended"), "\(daemon.stderr)")

            let second = try Self.writer(of: fifo)
            Self.send([Array(lines[100..<115])], to: second)
            #expect(logged("positions again", 2) == 2, "\(daemon.stderr)")
            close(second)

            // A writer that makes the FIFO anew (rm, mkfifo) is read too.
            #expect(logged(closed, 2) == 2, "\(daemon.stderr)")
            unlink(fifo)
            try #require(mkfifo(fifo, 0o600) == 0)
            let third = try Self.writer(of: fifo)
            defer { close(third) }
            Self.send([Array(lines[200..<215])], to: third)
            #expect(logged("positions again", 3) == 3, "\(daemon.stderr)")
            let age = try #require(
                fields(try daemon.client().request(#"{"cmd": "status"}"#))["positionAge"]?.numberValue)
            #expect(age < 5)
        }
    }
}

/// gpsd not there when the daemon starts: it waits, says so once during a walk (by the core's
/// rule: 20 s without a fix, none yet in the walk), and takes positions as soon as gpsd appears.
@Suite(.serialized) struct GPSDAbsentAtStartTests {
    @Test func theDaemonWaitsForGPSDAndSaysSoOnce() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let gpsdPort = try NMEAFeeder.freePort()
        let daemon = try DaemonProcess(
            arguments: [
                "--socket", dir.path + "/pf.sock", "--memory", dir.path + "/memory.json", "--no-mic",
                "--speak-wav", dir.path + "/wav", "--baro", "none", "--gpsd", "127.0.0.1:\(gpsdPort)",
                "--doors", dir.path + "/missing.db",
            ], socket: dir.path + "/pf.sock", dir: dir)
        try #require(daemon.waitUntilListening(), "daemon did not start: \(daemon.stderr)")
        let events = EndToEndTests.EventStream(try daemon.client())
        _ = try events.client.request(#"{"cmd": "subscribe"}"#)
        let requests = try daemon.client()
        let go = fields(
            try requests.request(
                #"{"cmd": "go", "destination": {"name": "S", "center": {"lat": 60.1753, "lon": 24.9517}}}"#))
        #expect(go["ok"] == .bool(true))
        events.client.setReadTimeout(seconds: 40)
        let waiting = events.next {
            EndToEndTests.event("say")($0) && $0["text"]?.stringValue == Prompts.waitingForGPS
        }
        #expect(waiting != nil, "no waiting prompt:\n\(daemon.stderr)")
        #expect(daemon.stderr.contains("gpsd 127.0.0.1:\(gpsdPort):"), "\(daemon.stderr)")
        // Several one-second ticks of the outage pass, so "once" below means something.
        usleep(3_000_000)

        let nmea = try String(
            contentsOfFile: try #require(
                Bundle.module.path(forResource: "Fixtures/demo/walk.nmea", ofType: nil)),
            encoding: .utf8)
        let feeder = try NMEAFeeder(nmea: nmea, epochsPerSecond: 20)
        defer { feeder.shutdown() }
        let gpsd = try GPSDProcess(port: gpsdPort, feed: feeder.port)
        defer { gpsd.stop() }
        var position: JSONValue?
        for _ in 0..<1500 where position == nil {
            let status = fields(try requests.request(#"{"cmd": "status"}"#))
            if let p = status["position"], p != .null { position = p } else { usleep(20_000) }
        }
        #expect(position != nil, "no position once gpsd appeared:\n\(daemon.stderr)")
        #expect(daemon.stderr.contains("positions again"))
        // Said once, not at every tick of the outage.
        daemon.signal(SIGTERM)
        events.drain()
        #expect(events.said.filter { $0 == Prompts.waitingForGPS }.count == 1, "said: \(events.said)")
        #expect(!events.said.contains(Prompts.noFix), "said: \(events.said)")
        #expect(daemon.waitForExit() == 0)
    }
}

/// No gpsd for a whole walk: after the core's 20 s without a fix the walker hears once that
/// GPS is awaited, never that a signal was lost (there was none in this walk), and nothing at
/// once (before: "GPS를 기다리는 중이야." at once, then "GPS 신호가 끊겼어…" 20 s later).
@Suite(.serialized) struct GPSDNeverThereTests {
    @Test func noGPSDForAWalk_isSaidAwaitedOnceNeverLost() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let gpsdPort = try NMEAFeeder.freePort()
        let daemon = try DaemonProcess(
            arguments: [
                "--socket", dir.path + "/pf.sock", "--memory", dir.path + "/memory.json", "--no-mic",
                "--speak-wav", dir.path + "/wav", "--baro", "none", "--gpsd", "127.0.0.1:\(gpsdPort)",
                "--doors", dir.path + "/missing.db",
            ], socket: dir.path + "/pf.sock", dir: dir)
        try #require(daemon.waitUntilListening(), "daemon did not start: \(daemon.stderr)")
        let events = EndToEndTests.EventStream(try daemon.client())
        events.client.setReadTimeout(seconds: 40)
        _ = try events.client.request(#"{"cmd": "subscribe"}"#)
        let go = fields(
            try daemon.client().request(
                #"{"cmd": "go", "destination": {"name": "S", "center": {"lat": 60.1753, "lon": 24.9517}}}"#))
        #expect(go["ok"] == .bool(true))
        let outage = { (event: [String: JSONValue]) in
            EndToEndTests.event("say")(event) && event["text"]?.stringValue?.hasPrefix("GPS") == true
        }
        let first = try #require(events.next(outage), "nothing said of GPS:\n\(daemon.stderr)")
        #expect(first["text"]?.stringValue == Prompts.waitingForGPS)
        // Said by the core's 20 s rule, not at once: the walk began 20 s before it.
        let began = try #require(events.named("plan").first?["t"]?.stringValue.flatMap(Self.time))
        let said = try #require(first["t"]?.stringValue.flatMap(Self.time))
        #expect(said.timeIntervalSince(began) >= 19.5, "said \(said.timeIntervalSince(began)) s after go")
        // Another 20 s without a fix: nothing more (before: "GPS 신호가 끊겼어").
        usleep(21_000_000)
        daemon.signal(SIGTERM)
        events.drain()
        #expect(daemon.waitForExit() == 0)
        #expect(events.said.filter { $0.hasPrefix("GPS") } == [Prompts.waitingForGPS], "said: \(events.said)")
    }

    static func time(_ text: String) -> Date? {
        let format = ISO8601DateFormatter()
        format.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return format.date(from: text)
    }
}

/// gpsd restarted mid-walk, a second each time (`systemctl restart gpsd`, a loose cable): no
/// fix is missing for as long as the core's no-fix rule waits (20 s), so the walker hears
/// nothing of it; the log says each outage and its end.
@Suite(.serialized) struct GPSDBlipTests {
    @Test func gpsdRestartedForASecond_isNotSaidToTheWalker() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let nmea = try String(
            contentsOfFile: try #require(
                Bundle.module.path(forResource: "Fixtures/demo/walk.nmea", ofType: nil)),
            encoding: .utf8)
        let feeder = try NMEAFeeder(nmea: nmea, epochsPerSecond: 2)
        defer { feeder.shutdown() }
        let gpsdPort = try NMEAFeeder.freePort()
        var gpsd = try GPSDProcess(port: gpsdPort, feed: feeder.port)
        defer { gpsd.stop() }
        let daemon = try DaemonProcess(
            arguments: [
                "--socket", dir.path + "/pf.sock", "--memory", dir.path + "/memory.json", "--no-mic",
                "--speak-wav", dir.path + "/wav", "--baro", "none", "--gpsd", "127.0.0.1:\(gpsdPort)",
                "--doors", dir.path + "/missing.db",
            ], socket: dir.path + "/pf.sock", dir: dir)
        try #require(daemon.waitUntilListening(), "daemon did not start: \(daemon.stderr)")
        let events = EndToEndTests.EventStream(try daemon.client())
        _ = try events.client.request(#"{"cmd": "subscribe"}"#)
        let requests = try daemon.client()
        let go = fields(
            try requests.request(
                #"{"cmd": "go", "destination": {"name": "S", "center": {"lat": 60.1753, "lon": 24.9517}}}"#))
        #expect(go["ok"] == .bool(true))
        /// How often the daemon has logged `line`, once it has at least `count` times (bounded, 20 s).
        func logged(_ line: String, _ count: Int) -> Int {
            let seen = { daemon.stderr.components(separatedBy: line).count - 1 }
            for _ in 0..<2000 where seen() < count { usleep(10_000) }
            return seen()
        }
        let back = "gpsd 127.0.0.1:\(gpsdPort): positions again"
        // The first position; then gpsd is killed and started again a second later, three times,
        // each outage seen by the daemon (logged) before gpsd comes back.
        var position: JSONValue?
        for _ in 0..<1500 where position == nil {
            let status = fields(try requests.request(#"{"cmd": "status"}"#))
            if let p = status["position"], p != .null { position = p } else { usleep(20_000) }
        }
        try #require(position != nil, "no position from gpsd:\n\(daemon.stderr)")
        let (outagesBefore, backBefore) = (logged("; waiting for it", 0), logged(back, 0))
        for restart in 1...3 {
            gpsd.stop()
            #expect(
                logged("; waiting for it", outagesBefore + restart) == outagesBefore + restart,
                "outage \(restart) unseen:\n\(daemon.stderr)")
            usleep(1_000_000)
            gpsd = try GPSDProcess(port: gpsdPort, feed: feeder.port)
            #expect(
                logged(back, backBefore + restart) == backBefore + restart,
                "no positions after restart \(restart):\n\(daemon.stderr)")
        }
        daemon.signal(SIGTERM)
        events.drain()
        #expect(daemon.waitForExit() == 0)
        let outages = events.said.filter { $0.hasPrefix("GPS를 기다리는") || $0.hasPrefix("GPS 신호") }
        #expect(outages.isEmpty, "said: \(events.said)")
    }
}
