import Arrival
import Foundation
import Geo
import Testing

@Suite("ArrivalPlan: which door first")
struct ArrivalPlanTests {
    let t0 = Place.t0
    let station = Place.station
    var destination: Destination { Destination(name: "Rautatieasema", center: station) }

    /// The walk the product is for, end to end on values.
    @Test func rejectThenConfirmNearTheRejectedDoor() throws {
        let a = Place.osmDoor(Place.at(60, 0), label: "A", level: "0")
        let b = Place.osmDoor(Place.at(80, 180), label: "B")
        var memory = EntranceMemory()

        // OSM offers A and B (A ranked first).
        memory.recordOSM([a, b], name: "Rautatieasema", center: station, now: t0)
        var plan = ArrivalPlan.make(destination: destination, memory: memory, now: t0)
        #expect(plan.doors == [a, b])

        // The walker rejects A: the plan picks B.
        memory.reject(a.coordinate, name: "Rautatieasema", center: station, now: t0 + 60)
        plan = ArrivalPlan.make(destination: destination, memory: memory, now: t0 + 61)
        #expect(plan.entrance == b)
        #expect(plan.alternatives.isEmpty)
        #expect(plan.walkTo == b.coordinate)

        // The walker confirms a point 4 m from A: it leads, as the walker's; A merges into it; B follows.
        let spot = Place.at(4, 90, from: a.coordinate)
        memory.confirm(Door(coordinate: spot), name: "Rautatieasema", center: station, now: t0 + 120)
        plan = ArrivalPlan.make(destination: destination, memory: memory, now: t0 + 121)
        let entrance = try #require(plan.entrance)
        #expect(entrance.coordinate == spot)
        #expect(entrance.source == .walker)
        #expect(entrance.level == "0")  // inherited from A, which it merged with
        #expect(plan.alternatives == [b])
        #expect(plan.walkTo == spot)
    }

    @Test func aLateOSMAnswerKeepsTheCompanionsDoorLeading() {
        let named = Door(coordinate: Place.at(40, 270), note: "택시 승강장 옆")
        let destination = Destination(name: "Rautatieasema", center: station, door: named)
        var memory = EntranceMemory()

        let before = ArrivalPlan.make(destination: destination, memory: memory, now: t0)
        #expect(before.entrance?.coordinate == named.coordinate)
        #expect(before.entrance?.source == .companion)

        // OSM answers late, with a main door it ranks first.
        let main = Place.osmDoor(Place.at(50, 0), label: "main")
        let side = Place.osmDoor(Place.at(70, 90), label: "side")
        let justRead = ArrivalPlan.make(
            destination: destination, memory: memory, osmDoors: [main, side], now: t0 + 5)
        #expect(justRead.entrance?.coordinate == named.coordinate)
        #expect(justRead.alternatives == [main, side])

        // And when it is remembered rather than just read.
        memory.recordOSM([main, side], name: "Rautatieasema", center: station, now: t0 + 5)
        let remembered = ArrivalPlan.make(destination: destination, memory: memory, now: t0 + 6)
        #expect(remembered == justRead)
    }

    @Test func orderIsConfirmedThenCompanionThenOSM() {
        var memory = EntranceMemory()
        let osm = Place.osmDoor(Place.at(50, 0))
        memory.recordOSM([osm], name: "S", center: station, now: t0)
        memory.confirm(Door(coordinate: Place.at(50, 90)), name: "S", center: station, now: t0)
        let companion = Door(coordinate: Place.at(50, 180), source: .companion)
        let plan = ArrivalPlan.make(
            destination: Destination(name: "S", center: station, door: companion), memory: memory, now: t0)
        #expect(plan.doors.map(\.source) == [.walker, .companion, .osm])
        #expect(plan.doors.map(\.coordinate) == [Place.at(50, 90), Place.at(50, 180), Place.at(50, 0)])
    }

    @Test func mergeKeepsTheFirstPositionAndInheritsNoteAndLevel() {
        let companion = Door(coordinate: Place.at(40, 0), label: "Pippa's")
        let osmNear = Place.osmDoor(
            Place.at(12, 90, from: companion.coordinate), label: "K", level: "1", note: "지하")
        let plan = ArrivalPlan.make(
            destination: Destination(name: "S", center: station, door: companion), memory: EntranceMemory(),
            osmDoors: [osmNear], now: t0)
        #expect(
            plan.doors == [
                Door(
                    coordinate: companion.coordinate, source: .companion, level: "1", note: "지하",
                    label: "Pippa's")
            ])
    }

    @Test func mergeNeverOverwritesWhatTheFirstDoorHas() {
        let first = Place.osmDoor(Place.at(40, 0), level: "0", note: "정문")
        let second = Place.osmDoor(Place.at(10, 90, from: first.coordinate), level: "2", note: "옆문")
        let third = Place.osmDoor(Place.at(15.5, 270, from: first.coordinate))
        let plan = ArrivalPlan.make(
            destination: Destination(name: "S", center: station), memory: EntranceMemory(),
            osmDoors: [first, second, third], now: t0)
        #expect(plan.doors == [first, third])
    }

    @Test func everyDoorWithin15MetresOfARejectionIsDropped() {
        var memory = EntranceMemory()
        let rejected = Place.at(50, 0)
        memory.reject(rejected, name: "S", center: station, now: t0)
        let companion = Door(coordinate: Place.at(14, 90, from: rejected))
        let osmNear = Place.osmDoor(Place.at(15, 270, from: rejected))
        let osmFar = Place.osmDoor(Place.at(16, 270, from: rejected))
        let plan = ArrivalPlan.make(
            destination: Destination(name: "S", center: station, door: companion), memory: memory,
            osmDoors: [osmNear, osmFar], now: t0)
        #expect(plan.doors == [osmFar])
    }

    @Test func nothingLeftWalksToTheCentre() throws {
        var memory = EntranceMemory()
        let only = Place.osmDoor(Place.at(50, 0))
        memory.recordOSM([only], name: "S", center: station, now: t0)
        memory.reject(only.coordinate, name: "S", center: station, now: t0)
        let plan = ArrivalPlan.make(
            destination: Destination(name: "S", center: station), memory: memory, now: t0)
        #expect(plan == ArrivalPlan(walkTo: station, entrance: nil, alternatives: []))
        let json = try #require(String(data: try JSONEncoder().encode(plan), encoding: .utf8))
        #expect(json.contains("\"entrance\":null"))
    }

    @Test func osmDoorsJustReadReplaceRememberedOnes() {
        var memory = EntranceMemory()
        memory.recordOSM([Place.osmDoor(Place.at(50, 0), label: "old")], name: "S", center: station, now: t0)
        let fresh = Place.osmDoor(Place.at(50, 180), label: "new")
        let plan = ArrivalPlan.make(
            destination: Destination(name: "S", center: station), memory: memory, osmDoors: [fresh], now: t0)
        #expect(plan.doors == [fresh])
    }
}
