import Daemon
import Foundation
import Glibc
import TestSupport
import Testing

/// `repeat` pressed while the callout it repeats is still waiting behind long prompts: the
/// walker asked for it, so it is said however long it waits (audit 6, R1-6). Before, the repeat
/// was dropped as the waiting callout's duplicate ("not queued twice"), the callout then as stale
/// ("dropped, older than 10 s"), and the words came only with the walk's next callout, 15 s later.
@Suite("Daemon: repeat of a waiting callout", .serialized)
struct RepeatWaitingCalloutTests {
    @Test func aRepeatOfTheWaitingCallout_isSaid() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let daemon = try WalkReplacedTests.standingDaemon(in: dir)
        let client = try daemon.client()
        // Door A 100 m north: the start and the last stretch's long prompt (≈ 8 s each, paced as
        // they would play) come before the callout, which waits well over 10 s.
        let hall = WalkReplacedTests.oldHall
        #expect(fields(try client.request(#"{"cmd": "go", "destination": \#(hall)}"#))["ok"] == .bool(true))
        let callout = "입구까지 백 미터, 북쪽 방향"
        try #require(daemon.logs("say: \(callout)"), "\(daemon.stderr)")
        #expect(fields(try client.request(#"{"cmd": "repeat"}"#))["ok"] == .bool(true))
        let third = "said into \(dir.path)/wav/0003.wav"
        for _ in 0..<4000 where !daemon.stderr.contains(third) { usleep(10_000) }
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExitOrKill() == 0)
        let log = daemon.stderr
        let said = log.split(separator: "\n").filter { $0.contains("said into ") }
        #expect(said.count >= 3 && said[2].hasSuffix(callout), "\(said)\n\(log)")
        #expect(!log.contains("dropped, older than"), "\(log)")
    }
}
