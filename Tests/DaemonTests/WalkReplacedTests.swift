import Daemon
import Foundation
import Glibc
import TestSupport
import Testing

/// A `go` during a walk replaces it, and what the old walk queued is not said after the
/// change (audit 5, B7): before, "Test Hall에 거의 다 왔어. A 입구로 안내할게…" was spoken
/// after the walk to Other Place had begun.
@Suite("Daemon: a replaced walk's prompts", .serialized)
struct WalkReplacedTests {
    /// The old walk's building: a long name keeps its first prompt playing (paced, ≈ 8 s) well
    /// past the change on a loaded machine, so its last stretch's prompt is still waiting then.
    static let oldName = "Test Hall of the Long Name for Patient Listeners"
    /// The old walk's destination: door A 100 m north of where the walker stands.
    static let oldHall =
        #"{"name": "\#(oldName)", "center": {"lat": 60.1011, "lon": 24.9333}, "door": {"lat": 60.1009, "lon": 24.9333, "label": "A", "level": "0", "note": "2층 출발 홀"}}"#

    /// A daemon (no microphone, no barometer, prompts into `dir`/wav paced as they would play,
    /// debug log) whose walker stands still at 60.1 N, 24.9333 E for two minutes.
    static func standingDaemon(in dir: TempDir) throws -> DaemonProcess {
        let nmea = dir.path + "/standing.nmea"
        try WherePromptTests.standing(lat: "6006.0000,N", lon: "02456.0000,E", seconds: 120).write(
            toFile: nmea, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(
            arguments: [
                "--socket", dir.path + "/pf.sock", "--memory", dir.path + "/memory.json", "--no-mic",
                "--baro", "none", "--nmea", nmea, "--speak-wav", dir.path + "/wav", "--log-level", "debug",
            ], socket: dir.path + "/pf.sock", dir: dir)
        try #require(daemon.waitUntilListening(), "\(daemon.stderr)")
        return daemon
    }

    @Test func aGoDuringAWalk_dropsWhatTheOldWalkQueued() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let daemon = try Self.standingDaemon(in: dir)
        let client = try daemon.client()
        // Test Hall's door A is 100 m north (the last stretch at once: its long prompt waits
        // behind the first); Other Place's door 200 m east.
        let testHall = Self.oldHall
        let otherPlace =
            #"{"name": "Other Place", "center": {"lat": 60.1, "lon": 24.9372}, "door": {"lat": 60.1, "lon": 24.9369, "label": "B"}}"#
        #expect(
            fields(try client.request(#"{"cmd": "go", "destination": \#(testHall)}"#))["ok"] == .bool(true))
        // The first prompt is being written (paced as it would play, ≈ 3 s) and the last
        // stretch's waits behind it when the destination changes.
        try #require(daemon.logs("say: \(Self.oldName)에 거의 다 왔어"), "\(daemon.stderr)")
        // The first prompt synthesized (its file written, now paced), so what is said after the
        // change is the new walk's (on a loaded machine espeak-ng could still be at it then).
        try #require(daemon.logs("said into \(dir.path)/wav/0001.wav"), "\(daemon.stderr)")
        #expect(
            fields(try client.request(#"{"cmd": "go", "destination": \#(otherPlace)}"#))["ok"] == .bool(true))
        try #require(daemon.logs("said into \(dir.path)/wav/0003.wav"), "\(daemon.stderr)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExitOrKill() == 0)
        let log = daemon.stderr
        let change = try #require(log.range(of: "go: Other Place"), "\(log)")
        let saidAfter = log[change.upperBound...].split(separator: "\n").filter { $0.contains("said into ") }
        #expect(saidAfter.first?.hasSuffix("안내를 시작할게. 목적지는 Other Place.") == true, "\(saidAfter)")
        for line in saidAfter {
            #expect(!line.contains(Self.oldName) && !line.contains("북쪽"), "the old walk's, after it: \(line)")
        }
        // Dropped because the walk was replaced, and logged so (audit 6, R1-9: before, "dropped
        // by stop:", with no stop sent).
        let droppedLines = log[change.upperBound...].split(separator: "\n").filter { $0.contains("dropped") }
        #expect(
            droppedLines.contains { $0.contains("dropped, walk replaced: \(Self.oldName)에 거의 다 왔어") },
            "\(droppedLines)")
        #expect(!log.contains("dropped by stop"), "\(droppedLines)")
    }
}
