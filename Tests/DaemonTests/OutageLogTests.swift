import Testing

@testable import Daemon

/// The log's rate limits (audit 8 A8-5, A8-6) on their own clock: a position source flapping
/// between causes, and idle closes in a burst.
struct OutageLogTests {
    /// The first cause at once; each change once; a change back within 60 s not again, after
    /// it again; a fix ends the outage, and the next outage's first cause is told at once.
    @Test func aCauseChangeIsToldOnceAndAFlapNotEveryTick() {
        var outage = PositionOutage()
        let start = ContinuousClock.now
        let at = { (seconds: Int) in start + .seconds(seconds) }
        func line(_ problem: String?, _ now: ContinuousClock.Instant) -> String? {
            outage.line(for: problem, source: "gpsd g", now: now)
        }
        func positionsAgain() -> Bool { outage.positionsAgain() }
        #expect(line(nil, at(0)) == nil)
        #expect(
            line("refused", at(1)) == "gpsd g: refused; waiting for it")
        #expect(line("refused", at(2)) == nil)
        #expect(line(nil, at(3)) == nil)
        #expect(
            line("silent", at(4))
                == "gpsd g: silent (the cause changed; before: refused)")
        #expect(line("refused", at(5)) == nil)
        #expect(line("silent", at(6)) == nil)
        #expect(
            line("refused", at(70))
                == "gpsd g: refused (the cause changed; before: silent)")
        #expect(positionsAgain())
        #expect(!positionsAgain())
        #expect(
            line("refused", at(71)) == "gpsd g: refused; waiting for it")
    }

    /// 25 idle closes in 0.1 s: one line at once, the other 24 in one line 10 s on (or at the stop).
    @Test func idleClosesInABurstAreTwoLines() {
        var closes = IdleCloses()
        let start = ContinuousClock.now
        var lines: [String] = []
        func due(_ now: ContinuousClock.Instant, all: Bool = false) -> String? {
            closes.due(idleSeconds: 30, now: now, all: all)
        }
        func closed(_ client: Int, _ now: ContinuousClock.Instant) -> String? {
            closes.closed(client, idleSeconds: 30, now: now)
        }
        for client in 1...25 {
            if let line = closes.closed(client, idleSeconds: 30, now: start + .milliseconds(client * 4)) {
                lines.append(line)
            }
            if let line = closes.due(idleSeconds: 30, now: start + .milliseconds(client * 4)) {
                lines.append(line)
            }
        }
        #expect(lines == ["client 1: no request for 30 s; closed"])
        #expect(
            due(start + .seconds(11))
                == "closed 24 more idle clients (2, 3, 4, 5, 6, 7, 8, 9, 10, 11, …) since the last such line: no request for 30 s"
        )
        #expect(due(start + .seconds(12), all: true) == nil)
        #expect(closed(26, start + .seconds(13)) == nil)
        #expect(
            due(start + .seconds(14), all: true)
                == "closed 1 more idle client (26) since the last such line: no request for 30 s")
    }
}
