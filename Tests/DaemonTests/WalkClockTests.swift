import Daemon
import Foundation
import Testing

/// FinalApproach's `now` in the daemon: steady during a walk whatever the wall clock does.
@Suite struct WalkClockTests {
    @Test func aWallClockJumpDuringAWalkIsIgnoredAndPickedUpAfterIt() {
        let start = ContinuousClock.now
        let booted = Date(timeIntervalSince1970: 1_600_000_000)  // a stale date from before NTP
        var clock = WalkClock(wall: booted, monotonic: start)
        #expect(clock.now(walking: false, wall: booted, monotonic: start) == booted)
        // NTP sets the wall clock a year ahead 10 s into the walk: the walk's time moves 10 s.
        let corrected = booted.addingTimeInterval(365 * 86_400)
        #expect(clock.now(walking: true, wall: corrected, monotonic: start + .seconds(10)) == booted + 10)
        // A jump backwards cannot stall it either.
        #expect(
            clock.now(walking: true, wall: booted - 3600, monotonic: start + .seconds(25)) == booted + 25)
        // Between walks the wall clock (now right) is followed again.
        let later = corrected.addingTimeInterval(30)
        #expect(clock.now(walking: false, wall: later, monotonic: start + .seconds(30)) == later)
        #expect(clock.now(walking: true, wall: later + 999, monotonic: start + .seconds(32)) == later + 2)
    }

    /// Audit 9 A9-1: after a walk, a memory write's outcome is timed on the walk's clock carried
    /// on, as the failure it follows was, whatever the wall clock did between; the next walk
    /// takes the wall clock again.
    @Test func theLastWalksClockCarriesOnAfterItEnds() {
        let start = ContinuousClock.now
        let wall = Date(timeIntervalSince1970: 1_600_000_000)
        var clock = WalkClock(wall: wall, monotonic: start)
        _ = clock.now(walking: false, wall: wall, monotonic: start)
        #expect(clock.now(walking: true, wall: wall + 3600, monotonic: start + .seconds(10)) == wall + 10)
        // The walk ended; the wall clock, an hour ahead, is followed between walks.
        #expect(clock.now(walking: false, wall: wall + 3615, monotonic: start + .seconds(15)) == wall + 3615)
        #expect(clock.lastWalkNow(monotonic: start + .seconds(20)) == wall + 20)
        // A next walk anchors afresh.
        #expect(
            clock.now(walking: true, wall: wall + 9999, monotonic: start + .seconds(22)) == wall + 3615 + 7)
        #expect(clock.lastWalkNow(monotonic: start + .seconds(30)) == wall + 3615 + 15)
    }
}
