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
}
