import Daemon
import Foundation
import Glibc
import TestSupport
import Testing

/// Audit 8, A8-7: a `go` for the destination already being led, a moment after the walk began
/// (a double tap, a client that sent it again), is answered with the walk under way, which goes
/// on. Before, the walk began again: `walkEnded replaced`, and the walker heard "안내를 시작할게…"
/// twice. Another destination still replaces the walk.
@Suite("Daemon: the same go twice", .serialized)
struct RepeatedGoTests {
    static let hall =
        #"{"name": "Test Hall", "center": {"lat": 60.1011, "lon": 24.9333}, "door": {"lat": 60.1009, "lon": 24.9333, "label": "A"}}"#
    static let otherPlace =
        #"{"name": "Other Place", "center": {"lat": 60.1, "lon": 24.9372}, "door": {"lat": 60.1, "lon": 24.9369, "label": "B"}}"#

    @Test func theSameDestinationAgainGoesOnAndAnotherReplaces() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let daemon = try WalkReplacedTests.standingDaemon(in: dir)
        let events = EndToEndTests.EventStream(try daemon.client())
        #expect(fields(try events.client.request(#"{"cmd": "subscribe"}"#))["ok"] == .bool(true))
        let client = try daemon.client()
        let first = fields(try client.request(#"{"cmd": "go", "destination": \#(Self.hall)}"#))
        #expect(first["ok"] == .bool(true), "\(first)")
        #expect(first["again"] == nil, "\(first)")
        let second = fields(try client.request(#"{"cmd": "go", "destination": \#(Self.hall)}"#))
        #expect(second["ok"] == .bool(true), "\(second)")
        #expect(second["again"] == .bool(true), "\(second)")
        #expect(second["destination"] == first["destination"], "\(second)")
        #expect(second["plan"] == first["plan"], "\(second)")
        #expect(second["state"] != nil, "\(second)")
        #expect(
            daemon.logs("go: the same destination again within 10 s; the walk goes on"),
            "\(daemon.stderr)")
        // Another destination replaces the walk, as before.
        let other = fields(try client.request(#"{"cmd": "go", "destination": \#(Self.otherPlace)}"#))
        #expect(other["ok"] == .bool(true) && other["again"] == nil, "\(other)")
        let start = "안내를 시작할게. 목적지는 "
        try #require(
            events.next { $0["event"] == "say" && $0["text"] == .string(start + "Other Place.") } != nil,
            "\(daemon.stderr)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExitOrKill() == 0)
        let ended = events.named("walkEnded").map { $0["reason"]?.stringValue ?? "\($0)" }
        #expect(ended == ["replaced"], "one walk replaced, by Other Place: \(ended)")
        #expect(events.said.filter { $0 == start + "Test Hall." }.count == 1, "\(events.said)")
        #expect(events.named("plan").count == 2, "\(events.named("plan"))")
    }
}
