import Arrival
import Foundation
import Geo
import Testing

/// A memory file another program changed (a family's correction moved in, `memory
/// confirm|reject` on the daemon's file), merged by the shell while a walk is under way
/// (``FinalApproach/Event/memoryFileRead(_:)``): the walk's building changed re-plans it.
@Suite("A merged memory file mid-walk")
struct MergedMemoryTests {
    /// A door west of the centre, which only the family knows.
    static let doorC = Door(coordinate: Scene.center.offset(metres: 60, bearing: 270), label: "C")

    /// A walk inside the last stretch, 150 m south-west of the building, led to door A (B after
    /// it), not yet there.
    static func ledToA() throws -> WalkSimulator {
        var sim = WalkSimulator(from: Scene.center.offset(metres: 150, bearing: 200))
        sim.send(.go(Scene.destination))
        sim.wait(2)
        sim.send(.doorsArrived([Scene.doorA, Scene.doorB]))
        sim.wait(2)
        try #require(sim.approach.isInLastStretch && sim.approach.plan?.entrance == Scene.doorA)
        return sim
    }

    /// The memory as the family changed it (a copy of the walk's, with `change`), merged in.
    static func merge(_ sim: inout WalkSimulator, _ change: (inout EntranceMemory, Date) -> Void) {
        var file = sim.approach.memory
        change(&file, sim.now)
        sim.send(.memoryFileRead(file))
    }

    @Test func theLeadingDoorRejected_turnsTheWalkToTheNextAtOnce() throws {
        var sim = try Self.ledToA()
        Self.merge(&sim) {
            $0.reject(Scene.doorA.coordinate, name: "Rautatieasema", center: Scene.center, now: $1)
        }
        let plan = try #require(sim.plans.last)
        #expect(plan.1 == .memoryMerged)
        #expect(plan.0.entrance == Scene.doorB && plan.0.alternatives.isEmpty)
        #expect(sim.said.last == Prompts.nextDoor(Scene.doorB))
        sim.walk(to: Scene.doorB.coordinate)
        #expect(sim.said.contains(Prompts.arrived(at: Scene.doorB)))
        #expect(!sim.records.contains { if case .arrived(Scene.doorA?, _, _) = $0 { true } else { false } })
    }

    @Test func anotherDoorConfirmed_leads() throws {
        var sim = try Self.ledToA()
        Self.merge(&sim) { $0.confirm(Self.doorC, name: "Rautatieasema", center: Scene.center, now: $1) }
        let plan = try #require(sim.plans.last)
        #expect(plan.1 == .memoryMerged)
        #expect(plan.0.entrance?.coordinate == Self.doorC.coordinate)
        #expect(plan.0.alternatives == [Scene.doorA, Scene.doorB])
        #expect(sim.said.last == Prompts.nextDoor(try #require(plan.0.entrance)))
    }

    @Test func everyDoorRejected_leadsToTheCentreAndSaysNoneIsLeft() throws {
        var sim = try Self.ledToA()
        Self.merge(&sim) {
            $0.reject(Scene.doorA.coordinate, name: "Rautatieasema", center: Scene.center, now: $1)
            $0.reject(Scene.doorB.coordinate, name: "Rautatieasema", center: Scene.center, now: $1)
        }
        let plan = try #require(sim.plans.last)
        #expect(plan.1 == .memoryMerged && plan.0.entrance == nil && plan.0.walkTo == Scene.center)
        #expect(sim.said.last == Prompts.noDoorLeft)
    }

    /// Every door rejected by the family on a walk that knows no outline (OSM's answer had none;
    /// a read remembered when the walk began has none): the index is asked again, and the
    /// outline it answers leads the walk to the walls, arriving there. Before (audit 13 A13-9),
    /// not asked: led to the centre, never arrived.
    @Test func everyDoorRejected_asksForTheOutlineAndArrivesAtTheWalls() throws {
        var sim = try Self.ledToA()
        let before = sim.effects.count
        Self.merge(&sim) {
            $0.reject(Scene.doorA.coordinate, name: "Rautatieasema", center: Scene.center, now: $1)
            $0.reject(Scene.doorB.coordinate, name: "Rautatieasema", center: Scene.center, now: $1)
        }
        #expect(
            sim.effects[before...].contains {
                if case .requestDoors(Scene.destination) = $0.effect { true } else { false }
            })
        // A 40 m square round the centre.
        let corners = [45.0, 135, 225, 315].map { Scene.center.offset(metres: 28.3, bearing: $0) }
        sim.send(
            .doorsArrived(
                [Scene.doorA, Scene.doorB],
                outline: BuildingOutline(rings: [.init(role: .outer, points: corners)])))
        sim.walk(to: Scene.center.offset(metres: 25, bearing: 180))
        #expect(sim.said.contains(Prompts.arrivedAtBuilding), "\(sim.said)")
    }

    /// The walker at door A, asked: A stays first (their answer there is the latest word); the
    /// family's door C comes next, and "여기 아니야" leads there.
    @Test func atTheDoorBeingAsked_itStaysAndTheFamilysDoorComesNext() throws {
        var sim = try Self.ledToA()
        sim.walk(to: Scene.doorA.coordinate)
        #expect(sim.said.last == Prompts.arrived(at: Scene.doorA))
        Self.merge(&sim) {
            $0.reject(Scene.doorA.coordinate, name: "Rautatieasema", center: Scene.center, now: $1)
            $0.confirm(Self.doorC, name: "Rautatieasema", center: Scene.center, now: $1)
        }
        let plan = try #require(sim.plans.last)
        #expect(plan.1 == .memoryMerged)
        #expect(plan.0.entrance == Scene.doorA)
        #expect(plan.0.alternatives.map(\.coordinate) == [Self.doorC.coordinate, Scene.doorB.coordinate])
        #expect(sim.said.last == Prompts.arrived(at: Scene.doorA), "nothing said over the question")
        sim.send(.heard(.typed("여기 아니야")))
        #expect(sim.plans.last?.1 == .rejected)
        #expect(sim.plans.last?.0.entrance?.coordinate == Self.doorC.coordinate)
    }

    @Test func anotherBuildingChanged_leavesTheWalkAlone() throws {
        var sim = try Self.ledToA()
        let effects = sim.effects.count
        let other = Scene.center.offset(metres: 5000, bearing: 90)
        Self.merge(&sim) { $0.confirm(Door(coordinate: other), name: "Kamppi", center: other, now: $1) }
        #expect(sim.effects.count == effects, "\(sim.effects[effects...].map(\.effect))")
        #expect(sim.approach.memory.building(near: other) != nil, "the merged memory is held")
        #expect(sim.approach.plan?.entrance == Scene.doorA)
    }

    /// After "여기가 입구야" the walk only waits to end: nothing is re-planned or said.
    @Test func afterThisIsIt_nothingIsReplanned() throws {
        var sim = try Self.ledToA()
        sim.walk(to: Scene.doorA.coordinate)
        sim.send(.heard(.typed("여기가 입구야")))
        let effects = sim.effects.count
        Self.merge(&sim) { $0.confirm(Self.doorC, name: "Rautatieasema", center: Scene.center, now: $1) }
        #expect(sim.effects.count == effects, "\(sim.effects[effects...].map(\.effect))")
    }
}
