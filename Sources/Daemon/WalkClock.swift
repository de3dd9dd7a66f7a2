package import Foundation
import Geo

/// The `now` the daemon hands `FinalApproach`: the wall clock, held steady during a walk.
///
/// A Raspberry Pi without a real-time clock boots with a stale date and jumps when NTP or
/// GPS time arrives. FinalApproach's timers (walk end, no-fix warning, callout spacing)
/// compare its `now`s, and the memory stores them as dates. So while a walk runs, `now`
/// advances on the monotonic clock from the wall-clock time at which the walk was last
/// anchored: a jump cannot end a walk early or stall it. Between walks `now` follows the
/// wall clock again, so stored dates pick up a corrected clock at the next walk.
package struct WalkClock: Sendable {
    private var anchorWall: Date
    private var anchorMonotonic: ContinuousClock.Instant
    /// The anchor of the last walk (of the start before any walk), kept after it ends for
    /// ``lastWalkNow(monotonic:)``.
    private var walkAnchorWall: Date
    private var walkAnchorMonotonic: ContinuousClock.Instant

    package init(wall: Date = Date(), monotonic: ContinuousClock.Instant = .now) {
        anchorWall = wall
        anchorMonotonic = monotonic
        walkAnchorWall = wall
        walkAnchorMonotonic = monotonic
    }

    /// The time for FinalApproach.
    /// - Parameters:
    ///   - walking: whether a walk is under way (then the wall clock is not read).
    ///   - wall: the wall clock now; `monotonic`: the monotonic clock now (tests pass both).
    package mutating func now(
        walking: Bool, wall: Date = Date(), monotonic: ContinuousClock.Instant = .now
    ) -> Date {
        guard walking else {
            anchorWall = wall
            anchorMonotonic = monotonic
            return wall
        }
        walkAnchorWall = anchorWall
        walkAnchorMonotonic = anchorMonotonic
        return anchorWall.addingTimeInterval((monotonic - anchorMonotonic).inSeconds)
    }

    /// The last walk's time carried on monotonically after it ended, until the next walk
    /// starts: for a memory write's outcome after the walk, which FinalApproach compares with
    /// an instant of the walk (the "이제 입구를 기억했어." window after a failed write). Before
    /// (audit 9 A9-1), that outcome came on the wall clock: stepped an hour ahead after the
    /// failure, the sentence was never said; stepped back, it was said up to an hour late.
    package func lastWalkNow(monotonic: ContinuousClock.Instant = .now) -> Date {
        walkAnchorWall.addingTimeInterval((monotonic - walkAnchorMonotonic).inSeconds)
    }
}
