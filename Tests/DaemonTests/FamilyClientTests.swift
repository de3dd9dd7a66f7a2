import Daemon
import Foundation
import Glibc
import TestSupport
import Testing

/// The client commands as the family at home runs them (audit 10): what was not done is said,
/// on stderr and in a non-zero exit, never a silent exit 0.
@Suite(.serialized) struct FamilyClientTests {
    /// A daemon walking the demo NMEA (its first fix near the demo door), without microphone,
    /// with the bundled gazetteer and door index; `HOME` in `dir`.
    static func walkingDaemon(_ dir: TempDir) throws -> DaemonProcess {
        let nmea = try #require(Bundle.module.path(forResource: "Fixtures/demo/walk.nmea", ofType: nil))
        let repo = GazetteerDaemonTests.repo
        let daemon = try DaemonProcess(
            arguments: [
                "--socket", dir.path + "/pf.sock", "--memory", dir.path + "/memory.json", "--no-mic",
                "--speak-wav", dir.path + "/wav", "--baro", "none", "--nmea", nmea,
                "--gazetteer", repo + "/artifacts/gazetteer/gazetteer.sqlite",
                "--doors", repo + "/artifacts/doors/helsinki.db",
            ], socket: dir.path + "/pf.sock", dir: dir)
        try #require(daemon.waitUntilListening(), "daemon did not start: \(daemon.stderr)")
        return daemon
    }

    /// A walking daemon (``walkingDaemon(_:)``) in a folder of its own, and the client
    /// commands run against it; ``stop()`` ends both.
    final class Walking {
        let dir = TempDir()
        let daemon: DaemonProcess

        /// `position`: waits for the daemon's first position.
        init(position: Bool = true) throws {
            daemon = try FamilyClientTests.walkingDaemon(dir)
            if position { try FamilyClientTests.waitForPosition(daemon) }
        }

        /// `pathfinder ARGS --socket` this daemon's.
        func run(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
            try DaemonProcess.runClient(arguments + ["--socket", daemon.socket], home: dir.path)
        }

        /// Stops the daemon (it exits 0) and removes the folder.
        func stop() {
            daemon.signal(SIGTERM)
            #expect(daemon.waitForExit() == 0)
            dir.remove()
        }
    }

    /// Waits (bounded, 10 s) for the daemon's first position.
    static func waitForPosition(_ daemon: DaemonProcess) throws {
        let client = try daemon.client()
        for _ in 0..<1000 {
            if fields(try client.request(#"{"cmd": "status"}"#))["position"] != .null { return }
            usleep(10_000)
        }
        Issue.record("no position came: \(daemon.stderr)")
    }

    /// A typed answer the walk does not act on says why (A10-5): before, `pathfinder heard
    /// 여기가 입구야` 1.6 km from the door, or "this is it", exited 0 with nothing on stderr,
    /// and the family believed the door was taken.
    @Test func anAnswerNotActedOnSaysWhyAndFails() throws {
        let walking = try Walking(position: false)
        defer { walking.stop() }
        let (run, daemon) = (walking.run, walking.daemon)
        // No walk: understood, not acted on (exit 1, a run-time state).
        let idle = try run(["heard", "여기", "아니야"])
        #expect(idle.status == 1, "\(idle)")
        #expect(fields(idle.out)["heeded"] == .bool(false), "\(idle)")
        #expect(fields(idle.out)["reason"] == "no walk: the daemon is idle", "\(idle)")
        #expect(idle.err == "pathfinder heard: not acted on: no walk: the daemon is idle\n", "\(idle)")
        // Words Pathfinder does not know as an answer: bad input, said before anything is sent.
        for words in [["this", "is", "it"], ["여기가,", "입구야!!"]] {
            let unknown = try run(["heard"] + words)
            #expect(unknown.status == 2, "\(words): \(unknown)")
            #expect(unknown.out.isEmpty, "nothing sent: \(unknown)")
            #expect(
                unknown.err.contains(
                    "pathfinder heard: \"\(words.joined(separator: " "))\" is not an answer Pathfinder knows: say 여기 아니야 or 여기가 입구야"
                ), "\(unknown)")
        }
        // The socket says the same in its reply's reason.
        let client = try daemon.client()
        let chatter = fields(try client.request(#"{"cmd": "heard", "text": "this is it"}"#))
        #expect(chatter["heeded"] == .bool(false) && chatter["meaning"] == .null, "\(chatter)")
        #expect(
            chatter["reason"]?.stringValue?.hasPrefix(
                "not an answer Pathfinder knows: say 여기 아니야 or 여기가 입구야") == true, "\(chatter)")
        // A walk to a door 1.6 km north of the walk: outside the last stretch.
        let go = fields(
            try client.request(
                #"{"cmd": "go", "destination": {"name": "Far", "center": {"lat": 60.1870, "lon": 24.9468}, "door": {"lat": 60.1868, "lon": 24.9468}}}"#
            ))
        #expect(go["ok"] == .bool(true), "\(go)")
        try Self.waitForPosition(daemon)
        let far = try run(["heard", "여기가", "입구야"])
        #expect(far.status == 1, "\(far)")
        #expect(
            fields(far.out)["meaning"] == "thisIsIt" && fields(far.out)["heeded"] == .bool(false), "\(far)")
        #expect(far.err.hasPrefix("pathfinder heard: not acted on: not in the last stretch: "), "\(far)")
        #expect(far.err.hasSuffix(" m from the door (the last stretch begins at 300 m)\n"), "\(far)")
        #expect(
            fields(far.out)["reason"]?.stringValue?.hasPrefix("not in the last stretch: 1") == true, "\(far)")
        #expect(!daemon.stderr.contains("confirmed"), "nothing stored: \(daemon.stderr)")
    }

    /// `go` a city (A10-4): the walk goes to its gazetteer point, as before, but the reply's
    /// `note` and stderr say it is a city's centre, not a building, and ask which building.
    /// Before: ok, exit 0, no note, and the walker was led to a point in a street.
    @Test func aCityIsWalkedToWithANoteAskingWhichBuilding() throws {
        let walking = try Walking()
        defer { walking.stop() }
        let run = walking.run
        let city = try run(["go", "Helsinki"])
        #expect(city.status == 0, "\(city)")
        #expect(fields(city.out)["match"]?.objectValue?["kind"] == "city", "\(city)")
        let note =
            "Helsinki is a city: walking to its centre, not to a building — which building? (go NAME or STREET NUMBER)"
        #expect(fields(city.out)["note"] == .string(note), "\(city)")
        #expect(city.err == "pathfinder go: note: \(note)\n", "\(city)")
        // A building: no such note, nothing on stderr.
        let station = try run(["go", "Rautatieasema"])
        #expect(station.status == 0, "\(station)")
        #expect(fields(station.out)["note"] == nil, "\(station)")
    }

    /// A `go` during a walk names the walk it replaced, and a street with no number says one
    /// building was chosen (A10-8). Before, the reply said neither: the walk to Far stopped
    /// unsaid, and "Siltavuorenpenger" walked to number 10 as if it had been asked for.
    @Test func aGoDuringAWalkNamesTheWalkItReplacedAndAStreetSaysItsChoice() throws {
        let walking = try Walking()
        defer { walking.stop() }
        let run = walking.run
        let destination = walking.dir.path + "/far.json"
        try #"{"name": "Far", "center": {"lat": 60.1870, "lon": 24.9468}}"#.write(
            toFile: destination, atomically: true, encoding: .utf8)
        let first = try run(["go", "--destination", destination])
        #expect(first.status == 0 && first.err.isEmpty, "nothing replaced: \(first)")
        #expect(fields(first.out)["replaced"] == nil, "\(first)")
        let street = try run(["go", "Siltavuorenpenger"])
        #expect(street.status == 0, "\(street)")
        let reply = fields(street.out)
        #expect(reply["replaced"] == "Far", "\(street)")
        let address = try #require(reply["match"]?.objectValue?["address"]?.stringValue, "\(street)")
        #expect(address.hasPrefix("Siltavuorenpenger "), "\(street)")
        let note =
            "\"Siltavuorenpenger\" is a street: chose \(address), the building on it nearest the walker"
            + " — give a house number for another"
        #expect(reply["note"] == .string(note), "\(street)")
        #expect(
            street.err
                == "pathfinder go: replaced the walk to Far\npathfinder go: note: \(note)\n", "\(street)")
        // The same walk again within 10 s is not a replacement.
        let again = try run(["go", "Siltavuorenpenger"])
        #expect(fields(again.out)["again"] == .bool(true) && fields(again.out)["replaced"] == nil, "\(again)")
    }

    /// The far refusal, as the command line is used (A10-9): "use --far", not the socket's
    /// `send "far": true` (before, the family was told to send a JSON field).
    @Test func aFarPlaceIsRefusedNamingTheFlag() throws {
        let walking = try Walking()
        defer { walking.stop() }
        let far = try walking.run(["go", "Tampere"])
        #expect(far.status == 1, "\(far)")
        #expect(far.err.hasPrefix("pathfinder go: \"Tampere\" found Tampere, "), "\(far)")
        #expect(far.err.hasSuffix(" km from here; use --far to walk there anyway\n"), "\(far)")
        // The socket's reply keeps its own wording, for the apps that send it.
        #expect(
            fields(far.out)["error"]?.stringValue?.hasSuffix(#"send "far": true to walk there anyway"#)
                == true)
    }

    /// A query longer than the door index searches is bad input, said before anything is sent
    /// (A10-10), as `doors search` says it: before, the daemon's refusal, exit 1.
    @Test func aQueryTooLongIsBadInput() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let daemon = try DaemonProcess.listening(in: dir)
        let long = String(repeating: "Siltavuorenpenger ", count: 17).trimmingCharacters(in: .whitespaces)
        let result = try DaemonProcess.runClient(["go", long, "--socket", daemon.socket], home: dir.path)
        #expect(result.status == 2, "\(result)")
        #expect(result.out.isEmpty, "nothing sent: \(result)")
        #expect(
            result.err
                == "pathfinder go: the QUERY is \(long.count) characters: at most 200 (a name or an address)\n",
            "\(result)")
        // Spaces around it are not the query (audit 11 A11-6: before, counted): a query of 200
        // characters pasted with spaces after it is searched, by the command and the daemon.
        let padded = String(repeating: "x", count: 200) + "     "
        let sent = try DaemonProcess.runClient(["go", padded, "--socket", daemon.socket], home: dir.path)
        #expect(!sent.err.contains("characters"), "\(sent)")
        #expect(sent.status != 2, "\(sent)")
        let reply = fields(try daemon.client().request(#"{"cmd": "go", "query": "\#(padded)"}"#))
        #expect(reply["error"]?.stringValue?.contains("characters") != true, "\(reply)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }
}
