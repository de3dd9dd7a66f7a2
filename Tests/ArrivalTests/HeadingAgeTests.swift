import Arrival
import Foundation
import Geo
import Testing

/// The walker's heading for clock directions comes from the course over ground, which GPS
/// gives only while moving. A course remembered after the walker stopped is said for a short
/// while only, never from before the walk began, and never a vehicle's: otherwise "세 시
/// 방향" is said for minutes relative to a taxi's or yesterday's heading (audit 5, B2).
@Suite("Heading: a remembered course ages")
struct HeadingAgeTests {
    /// The door, due east of where the walker stands (150 m).
    static let door = Door(coordinate: Scene.center, source: .osm, level: "0", label: "A")
    static let destination = Destination(name: "Test Hall", center: Scene.center, door: door)
    static let standing = Scene.center.offset(metres: 150, bearing: 270)

    /// The callouts said `from` seconds after the simulation began, with their times.
    func callouts(_ sim: WalkSimulator, from: Double = 0) -> [(t: Double, text: String)] {
        sim.effects.compactMap {
            let t = $0.time.timeIntervalSince(sim.start)
            guard case .say(let p) = $0.effect, p.isCallout, t >= from else { return nil }
            return (t, p.text)
        }
    }

    /// A taxi north at 8 m/s for 20 s, then 3 minutes standing (no course): the walker who got
    /// out faces anywhere, so the door is a compass word (before: "세 시 방향" 12 times,
    /// relative to the taxi's heading).
    @Test func afterATaxiRide_standingStill_isToldTheCompassWord() throws {
        var sim = WalkSimulator(from: Self.standing.offset(metres: 160, bearing: 180))
        sim.noise = 0
        sim.pace = 8
        sim.send(.go(Self.destination))
        sim.walk(to: Self.standing)
        let rideEnds = sim.now.timeIntervalSince(sim.start)
        sim.wait(180)
        let standing = callouts(sim, from: rideEnds + 1)
        #expect(standing.count >= 10, "\(standing)")
        for callout in standing {
            #expect(callout.text.hasSuffix("동쪽 방향"), "at \(callout.t) s: \(callout.text)")
        }
    }

    /// Walking north at 1.3 m/s for 13 s, then standing: the walker still faces the way they
    /// walked for ``FinalApproach/Settings/headingMemorySeconds`` (10 s), so the quiet-spell
    /// callout 3 s after the stop is a clock hour (3 o'clock); the next, 18 s after, is the
    /// compass word: they may have turned since.
    @Test func afterWalking_theCourseHoldsForAShortWhile() throws {
        #expect(FinalApproach.Settings().headingMemorySeconds == 10)
        var sim = WalkSimulator(from: Self.standing.offset(metres: 16.9, bearing: 180))
        sim.noise = 0
        sim.send(.go(Self.destination))
        sim.walk(to: Self.standing)
        #expect(sim.now.timeIntervalSince(sim.start) == 13)
        sim.wait(40)
        let said = callouts(sim).map { "\(Int($0.t)): \($0.text)" }
        #expect(
            said == [
                "1: 입구까지 백오십 미터, 세 시 방향", "16: 입구까지 백오십 미터, 세 시 방향",
                "31: 입구까지 백오십 미터, 동쪽 방향", "46: 입구까지 백오십 미터, 동쪽 방향",
            ], "\(said)")
    }

    /// A course walked before `go` (the way to the bus stop, yesterday's walk in a daemon that
    /// ran on) is not the new walk's: its first fix, standing, gets the compass word.
    @Test func aCourseFromBeforeTheWalk_isNotUsed() throws {
        var sim = WalkSimulator(from: Self.standing.offset(metres: 13, bearing: 180))
        sim.noise = 0
        sim.walk(to: Self.standing)  // 10 s north, no walk yet
        sim.send(.go(Self.destination))
        sim.wait(1)
        let first = try #require(callouts(sim).first)
        #expect(first.text.hasSuffix("동쪽 방향"), "\(first)")
    }

    /// A resumed walk (the daemon restarted) does not take the course from before it either.
    @Test func aResumedWalk_startsWithoutACourse() throws {
        var sim = WalkSimulator(from: Self.standing.offset(metres: 13, bearing: 180))
        sim.noise = 0
        sim.send(.go(Self.destination))
        sim.walk(to: Self.standing)
        sim.send(.resume(Self.destination))
        sim.wait(1)
        let resumed = callouts(sim, from: sim.now.timeIntervalSince(sim.start))
        let first = try #require(resumed.first)
        #expect(first.text.hasSuffix("동쪽 방향"), "\(first)")
    }
}
