import Foundation
import Geo

extension FinalApproach {
    /// `go`: the plan at once from memory and the named door; OSM asked in the background
    /// unless a fresh answer is remembered. `resumed`: a walk under way when the daemon
    /// stopped, said to resume rather than to start.
    ///
    /// OSM's doors fresh now are the walk's for every plan it re-makes, though they pass
    /// ``EntranceMemory/candidatesLifetime`` during it: they were a fresh answer when the walk
    /// was planned (before, they vanished at "여기 아니야", and OSM was not asked either). The
    /// next walk judges them again.
    ///
    /// A fresh read without doors is asked again all the same: OSM's answer carries the
    /// building's outline, which the memory does not keep, and a walk with no door arrives at
    /// the walls only when it has one (before, audit 12 A12-3, the walk to a building with no
    /// door mapped led to its centre, 17–28 m inside the walls of a 35 m block, and never
    /// arrived). So is a fresh read whose every door the walker (or the family) rejected: the
    /// plan has no door to lead to, as for a building without one (before, audit 13 A13-9, it
    /// was not asked, and the walk led to the centre and never arrived).
    mutating func start(_ destination: Destination, now: Date, resumed: Bool = false) -> [Effect] {
        var effects: [Effect] = walk != nil ? [.walkEnded(.replaced)] : []
        let plan = ArrivalPlan.make(destination: destination, memory: memory, now: now)
        let fresh = memory.building(near: destination.center)?.freshOSMDoors(now: now)
        walk = Walk(destination: destination, plan: plan, started: now, osmDoors: fresh)
        lastCourse = nil  // the way to the start (a ride, an earlier walk) is not this walk's
        let said = resumed ? Prompts.resumed(destination.name) : Prompts.start(destination.name)
        effects += [.plan(plan, .start), .say(Prompt(said))]
        let ask = fresh?.isEmpty ?? true || plan.entrance == nil
        doorsAwaited = ask ? destination : nil
        if ask {
            effects.append(.requestDoors(destination))
        }
        return effects
    }

    /// OSM's doors, late: remembered (a building's only, ``OSMAnswer/remembered``: OSM knowing
    /// no building there gives entrances nearby that lead this walk alone); the plan re-made. A
    /// walk to the building's centre (no door was known) turns to the best door at once,
    /// wherever the walker is — inside the last stretch too, even at the centre. A leading door
    /// changes only while the walker is well away from it. A new door is said. Once the walk
    /// that asked has ended, they are remembered for its destination, nothing said.
    mutating func doorsArrived(_ answer: OSMAnswer, now: Date) -> [Effect] {
        let awaited = doorsAwaited
        doorsAwaited = nil
        guard var walk else {
            // Before, the ended walk took them with it: nothing stored, OSM asked again next time.
            guard let awaited,
                memory.recordOSM(answer, name: awaited.name, center: awaited.center, now: now)
            else { return [] }
            return [.saveMemory(memory)]
        }
        let destination = walk.destination
        let doors = answer.doors
        var effects: [Effect] = []
        let ledToWalls = walk.leadsToWalls
        if case .building(_, let outline?) = answer, !outline.isEmpty { walk.outline = outline }
        if memory.recordOSM(answer, name: destination.name, center: destination.center, now: now) {
            effects.append(.saveMemory(memory))
            walk.osmDoors = doors
            self.walk = walk
        } else {
            // Before, "no building here" was stored as a door-less building read now.
            walk.entrancesWithoutBuilding = doors
            self.walk = walk
        }
        // After "여기가 입구야" the walk only waits to end: the doors are remembered, nothing is
        // re-planned or said (before, "지도에서 입구를 찾았어…" followed the promise).
        guard walk.endsAt == nil else { return effects }

        var plan = ArrivalPlan.make(
            destination: destination, memory: memory, osmDoors: doors, rejected: walk.rejected, now: now)
        let current = walk.door
        let leadChanged = Self.isAnotherDoor(current, plan.entrance)
        let near =
            lastPosition.map { $0.coordinate.distance(to: walk.target) <= settings.lateDoorsMinimumMetres }
            ?? false
        if leadChanged, current != nil, near || walk.arrived {
            plan = Self.keepingLead(current, at: walk.target, of: plan)  // too close to turn away
        }
        let changed = plan != walk.plan
        let announce = plan.entrance != nil && plan.walkTo != walk.plan.walkTo
        walk.plan = plan
        // The last stretch promised the centre before the answer; it brought the outline and no
        // door: the walk now leads to the walls, and says so (before, audit 13 A13-6, the
        // guidance changed from "건물 중앙까지 …" to "건물까지 …" with no word of why).
        let wallsFound = !ledToWalls && walk.leadsToWalls && walk.inLastStretch
        if announce || wallsFound { walk.turned() }
        self.walk = walk
        if changed { effects.append(.plan(plan, .doorsArrived)) }
        if announce, let door = plan.entrance { effects.append(.say(Prompt(Prompts.doorChanged(door)))) }
        if wallsFound { effects.append(.say(Prompt(Prompts.ledToWalls))) }
        return effects
    }

    /// The memory file, changed by another program (a family's correction moved in, `memory
    /// confirm|reject|osm` on it), was merged: when that changed the building the walk leads to
    /// (`previous`, as it was), the plan is made again as `go` makes it, from the merged memory
    /// and the doors this walk knows (OSM's read for it, those rejected on it), and the walker
    /// is led to its first door at once, told as after "여기 아니야" ("다른 입구로 안내할게…", or
    /// "다른 입구는 모르겠어…" with none left). A walker who has arrived at the door being asked
    /// about keeps it leading: their answer there is the latest word (a "여기가 입구야" lifts the
    /// file's rejection), and "여기 아니야" goes on to the merged plan's next door. Nothing is
    /// said or re-made when the building is as it was (a merge of other buildings), when the
    /// plan comes out the same, or once "여기가 입구야" was stored. Before, the walk under way
    /// kept leading to the door the family had rejected until the next `go`.
    mutating func mergedMemory(changing previous: EntranceMemory.Building?, now: Date) -> [Effect] {
        guard var walk, walk.endsAt == nil else { return [] }
        let building = memory.building(near: walk.destination.center)
        // What plans are made of; not when it changed, nor when OSM was read.
        guard
            building?.confirmed != previous?.confirmed || building?.rejected != previous?.rejected
                || building?.osm?.doors != previous?.osm?.doors
        else { return [] }
        var plan = ArrivalPlan.make(
            destination: walk.destination, memory: memory,
            osmDoors: walk.entrancesWithoutBuilding ?? walk.osmDoors, rejected: walk.rejected, now: now)
        let current = walk.door
        if current != nil, walk.arrived, Self.isAnotherDoor(current, plan.entrance) {
            plan = Self.keepingLead(current, at: walk.target, of: plan)  // asked there: their answer decides
        }
        guard plan != walk.plan else { return [] }
        let turned = Self.isAnotherDoor(current, plan.entrance)
        walk.plan = plan
        if turned { walk.turned() }
        if turned, plan.entrance == nil { walk.noDoorLeftSaidAt = now }
        self.walk = walk
        var effects: [Effect] = [.plan(plan, .memoryMerged)]
        if turned {
            effects.append(.say(Prompt(plan.entrance.map(Prompts.nextDoor) ?? Prompts.noDoorLeft)))
        }
        return effects + askedForOutline()
    }

    /// OSM asked again for the walk's destination when the walk has no door left to lead to
    /// and no outline to arrive at (its doors were read before it began, and then all
    /// rejected: by the walker, or in a merged file), unless an answer is awaited or OSM knew
    /// no building there: the answer carries the outline, so the walk leads to the walls and
    /// arrives there (before, audit 13 A13-9, it led to the centre, 55 m inside the walls of
    /// 서울특별시청, and never arrived).
    mutating func askedForOutline() -> [Effect] {
        guard let walk, walk.door == nil, walk.outline == nil, walk.entrancesWithoutBuilding == nil,
            doorsAwaited == nil
        else { return [] }
        doorsAwaited = walk.destination
        return [.requestDoors(walk.destination)]
    }

    /// Whether `b` leads elsewhere than `a`: a door where there was none (or none where there
    /// was one), or a door further than ``EntranceMemory/sameDoorMetres`` from it.
    public static func isAnotherDoor(_ a: Door?, _ b: Door?) -> Bool {
        switch (a, b) {
        case (nil, nil): false
        case (let a?, let b?): a.coordinate.distance(to: b.coordinate) > EntranceMemory.sameDoorMetres
        default: true
        }
    }

    /// `plan` with `door` (or the centre at `target` when `nil`) still leading, the plan's doors
    /// after it; the door's twin in the plan is merged into it.
    static func keepingLead(_ door: Door?, at target: Coordinate, of plan: ArrivalPlan) -> ArrivalPlan {
        var doors = plan.doors
        guard let door else { return ArrivalPlan(walkTo: target, entrance: nil, alternatives: doors) }
        if let i = doors.firstIndex(where: {
            $0.coordinate.distance(to: door.coordinate) <= EntranceMemory.sameDoorMetres
        }) {
            doors.remove(at: i)
        }
        return ArrivalPlan(walkTo: door.coordinate, entrance: door, alternatives: doors)
    }
}

extension FinalApproach.Walk {
    /// The walk turned to another door: the arrival, and the level decided there, are the old
    /// door's; guidance to the new one comes at once in the last stretch (far away, still one
    /// callout a minute: before, a second far callout came 4 s after the first).
    mutating func turned() {
        arrived = false
        levelSaid = nil
        levelDecided = false
        if inLastStretch { lastCallout = nil }
    }
}
