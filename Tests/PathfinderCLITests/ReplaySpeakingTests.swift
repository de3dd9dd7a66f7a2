import Foundation
import Testing

/// What `replay` says and writes as speech, each case from audit 5 on the binary.
@Suite("replay: what the walker hears")
struct ReplaySpeakingTests {
    /// The callouts of a replay's event log, as (t, text).
    static func callouts(_ out: String) -> [(t: Double, text: String)] {
        eventLines(out).compactMap { e in
            guard e["event"] as? String == "say", let text = e["text"] as? String, text.hasPrefix("입구까지"),
                let t = e["t"] as? Double
            else { return nil }
            return (t, text)
        }
    }

    /// Out of a taxi (20 s north at 8 m/s), then 3 minutes standing with door A due east: the
    /// walker is told the compass word, not a clock hour relative to the taxi (before: "세 시
    /// 방향" 12 times in the 3 minutes; the walker facing the building turned right, south).
    @Test func afterATaxiRide_theDoorIsACompassWord() async throws {
        let r = await runPathfinder([
            "replay", "--nmea", try fixture("taxi-then-stand/walk.nmea"), "--destination",
            try fixture("taxi-then-stand/dest.json"),
        ])
        #expect(r.code == 0, "\(r.err)")
        let standing = Self.callouts(r.out).filter { $0.t >= 20 }
        #expect(standing.count >= 10, "\(standing)")
        for callout in standing {
            #expect(callout.text == "입구까지 백오십 미터, 동쪽 방향", "at \(callout.t) s: \(callout.text)")
        }
    }
}
