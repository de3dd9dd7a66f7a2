import Arrival
import Foundation
import Geo
import Glibc
import TestSupport
import Testing

@testable import Daemon

/// `go {"query"}` near the walker: the door index first, the gazetteer after, a far place
/// refused. Positions through a real gpsd on a private port; requests on the real socket.
@Suite(.serialized) struct GoQueryTests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    @Test func goByAddressNearTheWalkerAndAFarPlaceRefused() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let gazetteer = Self.repo + "/artifacts/gazetteer/gazetteer.sqlite"
        let doors = Self.repo + "/artifacts/doors/helsinki.db"
        try #require(
            FileManager.default.fileExists(atPath: gazetteer), "no bundled gazetteer at \(gazetteer)")
        let nmea = try String(
            contentsOfFile: try #require(
                Bundle.module.path(forResource: "Fixtures/demo/walk.nmea", ofType: nil)),
            encoding: .utf8)
        // Slowly: the walker stays near the start of the demo walk (Siltavuorenpenger).
        let feeder = try NMEAFeeder(nmea: nmea, epochsPerSecond: 2)
        defer { feeder.shutdown() }
        let gpsdPort = try NMEAFeeder.freePort()
        let config = dir.path + "/config.json"
        try """
        {"socket": "\(dir.path)/pf.sock", "memory": "\(dir.path)/memory.json", "gpsd": "127.0.0.1:\(gpsdPort)",
         "baro": "none", "doors": "\(doors)", "gazetteer": "\(gazetteer)"}
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(
            arguments: ["--config", config, "--no-mic", "--speak-wav", dir.path + "/wav"],
            socket: dir.path + "/pf.sock", dir: dir)
        try #require(daemon.waitUntilListening(), "daemon did not start: \(daemon.stderr)")
        let client = try daemon.client()

        // No gpsd yet, so no fix: the best text match, and the reply says so.
        let blind = fields(try client.request(#"{"cmd": "go", "query": "Siltavuorenpenger 10"}"#))
        #expect(blind["ok"] == .bool(true), "\(blind)")
        #expect(blind["note"]?.stringValue?.contains("no position yet") == true, "\(blind)")
        #expect(blind["match"]?.objectValue?["metres"] == nil)

        let gpsd = try GPSDProcess(port: gpsdPort, feed: feeder.port)
        defer { gpsd.stop() }
        var position: Coordinate?
        for _ in 0..<1500 where position == nil {
            let status = fields(try client.request(#"{"cmd": "status"}"#))
            if let p = status["position"], p != .null {
                position = try p.decode(Coordinate.self)
            } else {
                usleep(20_000)
            }
        }
        let fix = try #require(position, "no position from gpsd:\n\(daemon.stderr)")

        // The demo's own building, by its address: from the door index, near the walker.
        let go = fields(try client.request(#"{"cmd": "go", "query": "siltavuorenpenger 10"}"#))
        #expect(go["ok"] == .bool(true), "\(go)")
        #expect(go["note"] == nil)
        let match = try #require(go["match"]?.objectValue, "\(go)")
        #expect(match["source"] == "doors")
        #expect(match["osm"] == "way/28903274")
        #expect(match["address"] == "Siltavuorenpenger 10")
        let destination = try #require(go["destination"]).decode(Destination.self)
        #expect(destination.center.distance(to: fix) < 2_000)
        if case .number(let metres)? = match["metres"] {
            #expect(abs(metres - destination.center.distance(to: fix)) < 50)
        } else {
            Issue.record("no metres in \(match)")
        }
        if case .array? = go["alternatives"] {} else { Issue.record("no alternatives in \(go)") }

        // A building name the gazetteer does not know, with alternatives for an app.
        let station = fields(try client.request(#"{"cmd": "go", "query": "Helsingin päärautatieasema"}"#))
        #expect(station["match"]?.objectValue?["osm"] == "way/122595198", "\(station)")

        // Paris is in the gazetteer, and about 1 900 km away: refused, naming the distance.
        let paris = fields(try client.request(#"{"cmd": "go", "query": "Paris"}"#))
        #expect(paris["ok"] == .bool(false), "\(paris)")
        let error = paris["error"]?.stringValue ?? ""
        #expect(error.contains("km away") && error.contains("\"far\": true"), "\(error)")
        let km = error.split(separator: " ").compactMap { Int($0) }.first ?? 0
        #expect((1_800...2_000).contains(km), "\(error)")
        // The walk did not change.
        let status = fields(try client.request(#"{"cmd": "status"}"#))
        #expect(status["destination"]?.objectValue?["name"] == "Helsingin päärautatieasema", "\(status)")
        // Asked for on purpose, it is accepted.
        let sure = fields(try client.request(#"{"cmd": "go", "query": "Paris", "far": true}"#))
        #expect(sure["ok"] == .bool(true), "\(sure)")
        #expect(sure["match"]?.objectValue?["source"] == "gazetteer")

        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    /// A door index that is not there does not stop the gazetteer; its reason is told when
    /// nothing is found.
    @Test func aMissingDoorIndexLeavesTheGazetteer() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let gazetteer = Self.repo + "/artifacts/gazetteer/gazetteer.sqlite"
        let daemon = try DaemonProcess(
            arguments: [
                "--socket", dir.path + "/pf.sock", "--memory", dir.path + "/memory.json", "--no-mic",
                "--speak-wav", dir.path + "/wav", "--baro", "none", "--gazetteer", gazetteer,
                "--doors", dir.path + "/no-such-doors",
            ], socket: dir.path + "/pf.sock", dir: dir)
        try #require(daemon.waitUntilListening(), "daemon did not start: \(daemon.stderr)")
        let client = try daemon.client()
        let go = fields(try client.request(#"{"cmd": "go", "query": "Helsinki"}"#))
        #expect(go["ok"] == .bool(true), "\(go)")
        #expect(go["match"]?.objectValue?["source"] == "gazetteer")
        let none = fields(try client.request(#"{"cmd": "go", "query": "Qxzzyq Nowhere"}"#))
        #expect(none["ok"] == .bool(false))
        #expect(
            none["error"]?.stringValue?.contains("door index \(dir.path)/no-such-doors") == true, "\(none)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }
}
