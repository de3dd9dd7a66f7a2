import Arrival
import Daemon
import Foundation
import Geo
import Testing

@Suite struct DaemonCoreTests {
    private let door = Coordinate(latitude: 60.1709, longitude: 24.9420)
    private let center = Coordinate(latitude: 60.1711, longitude: 24.9414)

    private func events(_ actions: [DaemonCore.Action]) -> [String] {
        actions.compactMap {
            if case .event(let v) = $0 { v.objectValue?["event"]?.stringValue } else { nil }
        }
    }

    /// Walks `core` in from 100 m south-west of the door to 2 m from it, a fix every 1.5 s
    /// from `start`; the time of the last.
    private func walkedIn(_ core: inout DaemonCore, from start: Date) -> Date {
        var now = start
        for metres in stride(from: 100.0, through: 2, by: -2) {
            now += 1.5
            let here = door.offset(metres: metres, bearing: 225)
            _ = core.moved(
                .init(time: now, coordinate: here, horizontalAccuracy: 4, speed: 1.3, course: 45), now: now)
        }
        return now
    }

    /// The microphone's faults are said in the walker's words, in the last stretch only:
    /// "cannot hear", and its end, "이제 마이크가 들려." (before, the end was never said).
    @Test func theMicrophoneHearingAgainIsSaidInTheLastStretchOnly() {
        var core = DaemonCore(memory: EntranceMemory())
        #expect(core.hearsAgain().isEmpty && core.cannotHear(buttons: false).isEmpty)
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let destination = Destination(name: "Rautatieasema", center: center, door: Door(coordinate: door))
        _ = core.handle(.go(.destination(destination)), from: 1, now: start)
        _ = walkedIn(&core, from: start)
        #expect(core.hearsAgain().contains(.say(FinalApproach.Prompt("이제 마이크가 들려."))))
        #expect(
            core.cannotHear(buttons: false).contains(.say(FinalApproach.Prompt("마이크가 안 들려. 대답을 들을 수 없어."))))
        #expect(
            core.cannotHear(buttons: true).contains(.say(FinalApproach.Prompt("마이크가 안 들려. 대답은 버튼으로 해줘."))))
    }

    @Test func aConfirmationInTheLastStretchIsSavedAndLogged() throws {
        var core = DaemonCore(memory: EntranceMemory())
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let destination = Destination(name: "Rautatieasema", center: center, door: Door(coordinate: door))
        let go = core.handle(.go(.destination(destination)), from: 1, now: start)
        #expect(events(go).contains("plan"))
        #expect(core.state == "walking")
        // Walk in from 100 m south-west to 2 m from the door.
        let now = walkedIn(&core, from: start)
        #expect(core.state == "lastStretch")
        let status = core.handle(.status, from: 2, now: now)
        let reply = try #require(status.compactMap { if case .reply(2, let v) = $0 { v } else { nil } }.first)
        #expect(reply.objectValue?["distance"]?.numberValue.map { $0 < 5 } == true)
        #expect(reply.objectValue?["positionAge"] == .number(0))
        // No fix for a while (gpsd gone): the same position, and how old it is.
        let later = core.handle(.status, from: 2, now: now + 95.5)
        let stale = try #require(later.compactMap { if case .reply(2, let v) = $0 { v } else { nil } }.first)
        #expect(stale.objectValue?["position"] == reply.objectValue?["position"])
        #expect(stale.objectValue?["positionAge"] == .number(95.5))
        // Words that are no answer, in the last stretch: understood as nothing, and not heeded
        // (before, `heeded` said only "in the last stretch": true here).
        let chatter = core.handle(.heard("안녕"), from: 3, now: now)
        #expect(
            chatter.first
                == .reply(
                    3,
                    .object([
                        "ok": .bool(true), "meaning": .null, "heeded": .bool(false),
                        "reason": .string(DaemonCore.notAnAnswer),
                    ])))
        let heard = core.handle(.heard("여기가 입구야"), from: 3, now: now)
        #expect(events(heard).contains("confirmed"))
        #expect(
            heard.first
                == .reply(3, .object(["ok": .bool(true), "meaning": "thisIsIt", "heeded": .bool(true)])))
        // The same answer again a second later is the walker repeating it: not heeded again, the
        // walk only waits to end.
        let again = core.handle(.heard("여기가 입구야"), from: 3, now: now + 1)
        #expect(
            again.first
                == .reply(
                    3,
                    .object([
                        "ok": .bool(true), "meaning": "thisIsIt", "heeded": .bool(false),
                        "reason": "the walk is ending: 여기가 입구야 was already taken",
                    ])))
        #expect(!events(again).contains("confirmed"))
        #expect(
            heard.contains {
                if case .saveMemory(let m) = $0 { m.buildings.first?.confirmed != nil } else { false }
            })
        // The promise waits for the shell's word that the file is written.
        #expect(!heard.contains { if case .say = $0 { true } else { false } })
        let saved = core.handle(.memorySaved, now: now)
        #expect(events(saved) == ["memorySaved", "say"])
        #expect(
            saved.contains { if case .say(let prompt) = $0 { prompt.text.contains("기억할게") } else { false } })
        let repeated = core.handle(.repeatLast, from: 4, now: now)
        #expect(
            repeated.contains {
                if case .say(let prompt) = $0 { prompt.text.contains("기억할게") } else { false }
            })
    }

    /// Words that mean nothing, typed just as a timer of the walk comes due (here the end of
    /// the walk, a few seconds after "여기가 입구야"): not heeded — the walk's end is the clock's
    /// doing, in the same reply's actions (before: `heeded` true, the timer's effects counted as
    /// the words').
    @Test func wordsThatMeanNothingAreNotHeededWhenATimerComesDueWithThem() throws {
        var core = DaemonCore(memory: EntranceMemory())
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let destination = Destination(name: "Rautatieasema", center: center, door: Door(coordinate: door))
        _ = core.handle(.go(.destination(destination)), from: 1, now: start)
        let now = walkedIn(&core, from: start)
        #expect(events(core.handle(.heard("여기가 입구야"), from: 3, now: now)).contains("confirmed"))
        _ = core.handle(.memorySaved, now: now)
        let later = now + FinalApproach.Settings().endDelaySeconds + 0.5
        let chatter = core.handle(.heard("음"), from: 3, now: later)
        #expect(
            chatter.first
                == .reply(
                    3,
                    .object([
                        "ok": .bool(true), "meaning": .null, "heeded": .bool(false),
                        "reason": .string(DaemonCore.notAnAnswer),
                    ])))
        #expect(events(chatter).contains("walkEnded"))
    }

    /// The door index's answer coming after "여기가 입구야" has ended the walk: the building's
    /// doors are remembered, nothing said (before, the loop dropped them once no walk went on).
    /// An answer for another destination than the one asked for is not taken.
    @Test func doorsFoundAfterTheWalkEnded_areRemembered() throws {
        var core = DaemonCore(memory: EntranceMemory())
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let destination = Destination(name: "Rautatieasema", center: center)
        let go = core.handle(.go(.destination(destination)), from: 1, now: start)
        #expect(go.contains(.requestDoors(destination)))
        var now = start
        for metres in stride(from: 60.0, through: 2, by: -2) {
            now += 1.5
            let here = center.offset(metres: metres, bearing: 225)
            _ = core.moved(
                .init(time: now, coordinate: here, horizontalAccuracy: 4, speed: 1.3, course: 45), now: now)
        }
        #expect(events(core.handle(.heard("여기가 입구야"), from: 3, now: now)).contains("confirmed"))
        now += 4
        #expect(events(core.handle(.tick, now: now)) == ["walkEnded"])
        #expect(core.state == "idle")
        let found = [Door(coordinate: door, source: .osm, label: "A")]
        let elsewhere = Destination(name: "Kamppi", center: door.offset(metres: 1000, bearing: 90))
        #expect(core.doorsFound(.building(doors: found), for: elsewhere, now: now).isEmpty)
        let actions = core.doorsFound(.building(doors: found), for: destination, now: now + 1)
        let saved = try #require(
            actions.compactMap { if case .saveMemory(let memory) = $0 { memory } else { nil } }.first)
        #expect(saved.building(near: center)?.osm?.doors == found)
        #expect(saved.building(near: center)?.confirmed != nil)
        #expect(!actions.contains { if case .say = $0 { true } else { false } })
        // Answered: the same answer again is not taken twice.
        #expect(core.doorsFound(.building(doors: found), for: destination, now: now + 2).isEmpty)
    }

    /// OSM's answer that no building stands at the centre, come after the walk ended, is no
    /// building's doors there either: nothing stored (the rule `memory osm` and a walk keep).
    @Test func noBuildingFoundAfterTheWalkEnded_isNotRemembered() {
        var core = DaemonCore(memory: EntranceMemory())
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let destination = Destination(name: "Kauppatori", center: center)
        #expect(
            core.handle(.go(.destination(destination)), from: 1, now: start).contains(
                .requestDoors(destination)))
        _ = core.handle(.stop, from: 2, now: start + 5)
        #expect(core.state == "idle")
        let entrances = [Door(coordinate: door, source: .osm, label: "A")]
        #expect(core.doorsFound(.noBuilding(entrances: entrances), for: destination, now: start + 6).isEmpty)
        #expect(core.approach.memory == EntranceMemory())
    }

    @Test func heardOutsideTheLastStretchChangesNothing() {
        var core = DaemonCore(memory: EntranceMemory())
        let actions = core.handle(.heard("여기 아니야"), from: 1, now: Date(timeIntervalSince1970: 0))
        #expect(
            actions.first
                == .reply(
                    1,
                    .object([
                        "ok": .bool(true), "meaning": "notHere", "heeded": .bool(false),
                        "reason": "no walk: the daemon is idle",
                    ])))
        #expect(!events(actions).contains("rejected"))
        #expect(!actions.contains { if case .saveMemory = $0 { true } else { false } })
        #expect(core.approach.memory == EntranceMemory())
    }

    /// A walk to a building with no door, whose outline the door index gave, goes to its walls:
    /// `status.distance`, and the reason a typed answer is not heeded, are measured to them, as
    /// the walker hears ("건물까지 백삼십 미터"). Before (audit 13 A13-3), to the centre: 189 m.
    @Test func aWalkToTheWallsIsMeasuredToThemInStatus() throws {
        var settings = FinalApproach.Settings()
        settings.lastStretchMetres = 100
        var core = DaemonCore(memory: EntranceMemory(), settings: settings)
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        // About 133 m × 106 m; the walker 133 m south of its south wall, 189 m from its centre.
        let (south, north, west, east) = (37.5700, 37.5712, 126.9900, 126.9912)
        let outline = BuildingOutline(rings: [
            .init(
                role: .outer,
                points: [
                    Coordinate(latitude: south, longitude: west),
                    Coordinate(latitude: south, longitude: east),
                    Coordinate(latitude: north, longitude: east),
                    Coordinate(latitude: north, longitude: west),
                ])
        ])
        let destination = Destination(
            name: "중정빌딩", center: Coordinate(latitude: 37.5706, longitude: 126.9906))
        _ = core.handle(.go(.destination(destination)), from: 1, now: start)
        _ = core.doorsFound(.building(doors: [], outline: outline), for: destination, now: start + 1)
        let here = Coordinate(latitude: 37.5688, longitude: 126.9906)
        _ = core.moved(.init(time: start + 2, coordinate: here, horizontalAccuracy: 4), now: start + 2)
        let wall = here.distance(to: Coordinate(latitude: south, longitude: 126.9906))
        let status = core.handle(.status, from: 2, now: start + 2)
        let reply = try #require(status.compactMap { if case .reply(2, let v) = $0 { v } else { nil } }.first)
        let distance = try #require(reply.objectValue?["distance"]?.numberValue)
        #expect(abs(distance - wall) < 1, "\(distance) m, the wall \(wall) m")
        let heard = core.handle(.heard("여기 아니야"), from: 3, now: start + 2)
        guard case .reply(3, let answer)? = heard.first else { Issue.record("\(heard)"); return }
        #expect(
            answer.objectValue?["reason"]
                == .string(
                    "not in the last stretch: \(Int(wall.rounded())) m from the building's walls"
                        + " (the last stretch begins at 100 m)"))
    }
}
