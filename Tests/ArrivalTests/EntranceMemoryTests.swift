import Arrival
import Foundation
import Geo
import Testing

@Suite("EntranceMemory: buildings, doors, limits")
struct EntranceMemoryTests {
    let t0 = Place.t0
    let station = Place.station

    // MARK: One building whatever the names, within 120 m

    @Test(arguments: [(120.0, 1), (121.0, 2)])
    func namesApartAreOneBuildingWithin120Metres(metres: Double, buildings: Int) throws {
        let other = Place.at(metres, 90)
        try #require(abs(station.distance(to: other) - metres) < 0.01)
        var memory = EntranceMemory()
        memory.confirm(Door(coordinate: Place.at(30, 0)), name: "Rautatieasema", center: station, now: t0)
        memory.reject(Place.at(40, 180), name: "Helsinki Central", center: other, now: t0 + 1)
        #expect(memory.buildings.count == buildings)
        if buildings == 1 {
            // The first name stays; both answers belong to it.
            #expect(memory.buildings[0].name == "Rautatieasema")
            #expect(memory.buildings[0].confirmed != nil)
            #expect(memory.buildings[0].rejected.count == 1)
            #expect(memory.building(near: other) == memory.building(near: station))
        } else {
            #expect(memory.buildings.map(\.name) == ["Helsinki Central", "Rautatieasema"])
        }
    }

    @Test func theNearestRememberedBuildingIsTheOne() {
        var memory = EntranceMemory()
        let west = Place.at(100, 270)
        let east = Place.at(100, 90)
        memory.recordOSM([], name: "West", center: west, now: t0)
        memory.recordOSM([], name: "East", center: east, now: t0)
        #expect(memory.building(near: Place.at(10, 270))?.name == "West")
        #expect(memory.building(near: Place.at(10, 90))?.name == "East")
        #expect(memory.building(near: Place.at(500, 0)) == nil)
    }

    // MARK: 200 buildings, least recently changed trimmed; reads never reorder

    /// 201 buildings 1 km apart, the i-th changed at t0 + i.
    func crowdedMemory(count: Int) -> EntranceMemory {
        var memory = EntranceMemory()
        for i in 0..<count {
            memory.recordOSM(
                [], name: "b\(i)", center: Place.at(Double(i) * 1000, 45), now: t0 + Double(i))
        }
        return memory
    }

    @Test func building201TrimsTheLeastRecentlyChanged() {
        let memory = crowdedMemory(count: 201)
        #expect(EntranceMemory.limit == 200)
        #expect(memory.buildings.count == 200)
        #expect(memory.buildings.first?.name == "b200")
        #expect(memory.buildings.last?.name == "b1")
        #expect(!memory.buildings.contains { $0.name == "b0" })
    }

    @Test func aChangeMovesAnOldBuildingToTheFrontAndSavesItFromTrimming() {
        var memory = crowdedMemory(count: 200)
        memory.reject(
            Place.at(20, 0, from: Place.at(0, 45)), name: "b0", center: Place.at(0, 45), now: t0 + 500)
        #expect(memory.buildings.first?.name == "b0")
        #expect(memory.buildings.first?.changed == t0 + 500)
        memory.recordOSM([], name: "new", center: Place.at(300_000, 45), now: t0 + 501)
        #expect(memory.buildings.count == 200)
        #expect(memory.buildings.prefix(2).map(\.name) == ["new", "b0"])
        #expect(!memory.buildings.contains { $0.name == "b1" })
    }

    /// Issue #11 item 4: 200 ordinary visits pushed out a building whose door the walker
    /// confirmed.
    @Test func ordinaryVisitsNeverEvictWhatTheWalkerTaught() {
        var memory = EntranceMemory()
        let taught = Place.at(0, 45)
        memory.confirm(
            Door(coordinate: Place.at(20, 0, from: taught)), name: "taught", center: taught, now: t0)
        let refused = Place.at(500, 45)
        memory.reject(Place.at(20, 0, from: refused), name: "refused", center: refused, now: t0 + 1)
        for i in 0..<400 {
            memory.recordOSM(
                [], name: "visit\(i)", center: Place.at(Double(i + 1) * 1000, 45), now: t0 + 10 + Double(i))
        }
        #expect(memory.buildings.count == 200)
        #expect(memory.building(near: taught)?.confirmed != nil)
        #expect(memory.building(near: refused)?.rejected.count == 1)
        // The least recently changed plain visits went; the newest 198 stay, in order.
        #expect(memory.buildings.first?.name == "visit399")
        #expect(memory.buildings.suffix(2).map(\.name) == ["refused", "taught"])
        #expect(memory.buildings.dropLast(2).last?.name == "visit202")
    }

    @Test func whenAllAreWalkerTaughtTheLeastRecentlyChangedGoes() {
        var memory = EntranceMemory()
        for i in 0..<201 {
            let center = Place.at(Double(i) * 1000, 45)
            memory.confirm(
                Door(coordinate: Place.at(20, 0, from: center)), name: "t\(i)", center: center,
                now: t0 + Double(i))
        }
        #expect(memory.buildings.count == 200)
        #expect(memory.buildings.last?.name == "t1")
        // A plain visit now is the one building without the walker's word: it goes first.
        memory.recordOSM([], name: "visit", center: Place.at(900_000, 45), now: t0 + 500)
        #expect(memory.buildings.count == 200)
        #expect(!memory.buildings.contains { $0.name == "visit" })
        #expect(memory.buildings.last?.name == "t1")
    }

    @Test func readingOrPlanningNeverReorders() {
        let memory = crowdedMemory(count: 201)
        var copy = memory
        let oldest = Place.at(1000, 45)  // b1, now at the back
        #expect(copy.building(near: oldest)?.name == "b1")
        _ = ArrivalPlan.make(
            destination: Destination(name: "b1", center: oldest), memory: copy, now: t0 + 10_000)
        #expect(copy == memory)
        #expect(copy.buildings.last?.name == "b1")
        // A change to b1 is the only thing that moves it.
        copy.confirm(Door(coordinate: oldest), name: "b1", center: oldest, now: t0 + 10_001)
        #expect(copy.buildings.first?.name == "b1")
    }

    // MARK: OSM freshness

    @Test(arguments: [(0.0, true), (30 * 86_400.0, true), (30 * 86_400.0 + 1, false)])
    func osmDoorsAreKnownFor30Days(age: TimeInterval, fresh: Bool) {
        var memory = EntranceMemory()
        let door = Place.osmDoor(Place.at(50, 0), label: "A")
        memory.recordOSM([door], name: "Rautatieasema", center: station, now: t0)
        let building = memory.building(near: station)
        #expect(building?.freshOSMDoors(now: t0 + age) == (fresh ? [door] : nil))
        let plan = ArrivalPlan.make(
            destination: Destination(name: "Rautatieasema", center: station), memory: memory, now: t0 + age)
        #expect(plan.entrance == (fresh ? door : nil))
        #expect(plan.walkTo == (fresh ? door.coordinate : station))
    }

    // MARK: confirm

    @Test func confirmIsTheWalkersAndLiftsRejectionsWithin15Metres() {
        var memory = EntranceMemory()
        let door = Place.at(50, 0)
        memory.reject(Place.at(14, 90, from: door), name: "S", center: station, now: t0)
        memory.reject(Place.at(16, 270, from: door), name: "S", center: station, now: t0 + 1)
        memory.confirm(
            Door(coordinate: door, source: .companion, level: "1", note: "n", label: "B"), name: "S",
            center: station, now: t0 + 2)
        let building = memory.building(near: station)
        #expect(
            building?.confirmed == Door(coordinate: door, source: .walker, level: "1", note: "n", label: "B"))
        #expect(building?.rejected == [Place.at(16, 270, from: door)])
        #expect(building?.changed == t0 + 2)
    }

    @Test(arguments: [(6.0, true), (3.2, true), (6.01, false), (.nan, false), (.infinity, false)])
    func confirmKeepsAltitudeOnlyWhenAccurateTo6Metres(accuracy: Double, kept: Bool) {
        var memory = EntranceMemory()
        let altitude = BarometricAltitude(metres: 12.4, accuracy: accuracy)
        memory.confirm(
            Door(coordinate: Place.at(50, 0), altitude: altitude), name: "S", center: station, now: t0)
        let stored = memory.building(near: station)?.confirmed?.altitude
        #expect((stored != nil) == kept)
        if kept { #expect(stored?.metres == 12.4) }
    }

    /// Audit 5-A F8: a negative accuracy passed (and the level check took it as ultra-precise),
    /// and so did any height.
    @Test(arguments: [(-1.0, 12.4), (-0.0, 12.4), (3.0, 99_999), (3.0, -5_000), (3.0, .nan)])
    func confirmDropsAnAltitudeNoBarometerGives(accuracy: Double, metres: Double) {
        var memory = EntranceMemory()
        memory.confirm(
            Door(coordinate: Place.at(50, 0), altitude: .init(metres: metres, accuracy: accuracy)), name: "S",
            center: station, now: t0)
        let stored = memory.building(near: station)?.confirmed?.altitude
        #expect((stored != nil) == (accuracy == 0), "\(String(describing: stored))")
    }

    /// Audit 5-A F2: "여기가 입구야" again at the remembered door on a day without a usable
    /// altitude erased the door's stored one. The same door (within 15 m) keeps it unless the
    /// new one is at least as accurate; another door takes its own.
    @Test(arguments: [
        (4.0, BarometricAltitude?.none, BarometricAltitude?.some(.init(metres: 21, accuracy: 4.2))),
        (4.0, .init(metres: 30, accuracy: 5), .init(metres: 21, accuracy: 4.2)),
        (4.0, .init(metres: 30, accuracy: 7), .init(metres: 21, accuracy: 4.2)),
        (4.0, .init(metres: 22, accuracy: 4.2), .init(metres: 22, accuracy: 4.2)),
        (4.0, .init(metres: 22, accuracy: 2), .init(metres: 22, accuracy: 2)),
        // Audit 6 R1-2: one far outside both accuracies (a stale QNH's 144.7) replaces nothing,
        // even as accurate or more; one that agrees replaces it.
        (4.0, .init(metres: 144.7, accuracy: 4.2), .init(metres: 21, accuracy: 4.2)),
        (4.0, .init(metres: 40, accuracy: 2), .init(metres: 21, accuracy: 4.2)),
        (4.0, .init(metres: 29, accuracy: 4.2), .init(metres: 29, accuracy: 4.2)),
        (16.0, nil, nil),
        (16.0, .init(metres: 30, accuracy: 5), .init(metres: 30, accuracy: 5)),
    ])
    func confirmingTheSameDoorAgain_keepsTheBetterAltitude(
        metres: Double, altitude: BarometricAltitude?, expected: BarometricAltitude?
    ) {
        var memory = EntranceMemory()
        let door = Place.at(50, 0)
        memory.confirm(
            Door(coordinate: door, label: "D", altitude: .init(metres: 21, accuracy: 4.2)), name: "S",
            center: station, now: t0)
        let again = Place.at(metres, 90, from: door)
        memory.confirm(
            Door(coordinate: again, label: "D", altitude: altitude), name: "S", center: station, now: t0 + 1)
        let confirmed = memory.building(near: station)?.confirmed
        #expect(confirmed?.coordinate == again)
        #expect(confirmed?.altitude == expected)
        // A memory file merged under a session that confirmed the door so: the same rule.
        var session = EntranceMemory()
        session.confirm(Door(coordinate: again, altitude: altitude), name: "S", center: station, now: t0 + 1)
        var file = EntranceMemory()
        file.confirm(
            Door(coordinate: door, altitude: .init(metres: 21, accuracy: 4.2)), name: "S", center: station,
            now: t0)
        #expect(file.merging(session).building(near: station)?.confirmed?.altitude == expected)
    }

    /// Audit 10 A10-1: a file changed since the base (the family rejected the station's door S
    /// and confirmed F) keeps its change; the session's own changes since the base (a door at
    /// another building) join it. Before, the session's whole memory was laid over the file.
    @Test func aThreeWayMerge_keepsTheFilesCorrectionAndTheSessionsChanges() {
        let kamppi = Place.at(2000, 270)
        let doorS = Place.at(50, 0)
        var base = EntranceMemory()
        base.confirm(Door(coordinate: doorS, label: "S"), name: "S", center: station, now: t0)
        var file = base
        file.reject(doorS, name: "S", center: station, now: t0 + 100)
        file.confirm(
            Door(coordinate: Place.at(50, 180), label: "F"), name: "S", center: station, now: t0 + 100)
        var session = base
        session.confirm(
            Door(coordinate: Place.at(30, 0, from: kamppi), label: "K"), name: "K", center: kamppi,
            now: t0 + 200)

        let merged = file.merging(session, base: base)
        #expect(merged.memory.building(near: station)?.confirmed?.label == "F")
        #expect(merged.memory.building(near: station)?.isRejected(doorS) == true)
        #expect(merged.memory.building(near: kamppi)?.confirmed?.label == "K")
        #expect(merged.memory.buildings.map(\.name) == ["K", "S"])
        #expect(merged.bothChanged.isEmpty)

        // Both changed the station: the file's stands with the session's new door over it (the
        // walker's latest word); the family's rejection of S stays, and which won is said.
        var walker = session
        walker.confirm(
            Door(coordinate: Place.at(50, 90), label: "W"), name: "S", center: station, now: t0 + 300)
        let both = file.merging(walker, base: base)
        #expect(both.memory.building(near: station)?.confirmed?.label == "W")
        #expect(both.memory.building(near: station)?.isRejected(doorS) == true)
        #expect(both.bothChanged.map(\.name) == ["S"])
        #expect(both.bothChanged.first?.confirmed?.label == "W")

        // A copy older than the base (the daemon's own backup restored) brings nothing.
        var older = EntranceMemory()
        older.confirm(
            Door(coordinate: Place.at(50, 270), label: "O"), name: "S", center: station, now: t0 - 100)
        let fromOlder = older.merging(base, base: base)
        #expect(fromOlder.memory.building(near: station)?.confirmed?.label == "S")
        #expect(fromOlder.olderInFile == ["S"])
        #expect(merged.olderInFile.isEmpty)
        // A building the file lacks is kept.
        #expect(EntranceMemory().merging(base, base: base).memory == base)
    }

    /// Audit 11 A11-1, the rule: a copy (door S confirmed) edited by a person after the walker
    /// confirmed W (the daemon's base), its edit marked with the version it began from: W stays,
    /// the family's rejection C joins it, and what of the file's contradicts W is not taken
    /// (the copy's S, a rejection within 15 m of W) and said. Before, the copy stood: W lost.
    @Test func anEditBegunFromAnOlderCopyKeepsTheDaemonsNewerAnswer() throws {
        let (doorS, doorW, doorC) = (Place.at(50, 0), Place.at(50, 90), Place.at(50, 180))
        let nearW = Place.at(8, 0, from: doorW)
        var copy = EntranceMemory()
        copy.confirm(Door(coordinate: doorS, label: "S"), name: "S", center: station, now: t0)
        var base = copy
        base.confirm(Door(coordinate: doorW, label: "W"), name: "S", center: station, now: t0 + 100)
        var file = copy
        file.edit(at: station) { $0.reject(doorC, name: "S", center: station, now: t0 + 200) }
        file.edit(at: station) { $0.reject(nearW, name: "S", center: station, now: t0 + 201) }
        let osm = EntranceMemory.OSMRead(read: t0 + 202, doors: [Place.osmDoor(doorC)])
        file.edit(at: station) { $0.recordOSM(osm.doors, name: "S", center: station, now: osm.read) }
        // Marked with the version the first edit began from: the later ones keep it (before the
        // mark was kept, the second edit's, t0 + 200, was after W's, and W was lost again).
        #expect(file.building(near: station)?.basedOn == t0)

        let merged = file.merging(base, base: base)
        let building = try #require(merged.memory.building(near: station))
        #expect(building.confirmed?.label == "W")
        #expect(building.isRejected(doorC))
        #expect(!building.isRejected(nearW))
        #expect(building.osm == osm)
        #expect(building.changed == t0 + 202)
        #expect(building.basedOn == nil, "the merged version is the daemon's")
        #expect(merged.bothChanged.isEmpty && merged.olderInFile.isEmpty)
        let edited = try #require(merged.editedFromOlder.first)
        #expect(edited.name == "S" && edited.daemons == t0 + 100 && edited.kept?.label == "W")
        #expect(edited.confirmedNotTaken?.label == "S")
        #expect(edited.rejectedNotTaken == [nearW])

        // The walker rejected S since instead, and the family confirmed F on the copy: F is taken
        // (the daemon has no door), and a copy's S is not (the walker rejected it).
        var rejectedS = copy
        rejectedS.reject(doorS, name: "S", center: station, now: t0 + 100)
        var confirmedF = copy
        confirmedF.edit(at: station) {
            $0.confirm(Door(coordinate: doorC, label: "F"), name: "S", center: station, now: t0 + 200)
        }
        let f = confirmedF.merging(rejectedS, base: rejectedS)
        #expect(f.memory.building(near: station)?.confirmed?.label == "F")
        #expect(f.memory.building(near: station)?.isRejected(doorS) == true)
        var keptS = copy
        keptS.edit(at: station) { $0.reject(doorC, name: "S", center: station, now: t0 + 200) }
        let s = keptS.merging(rejectedS, base: rejectedS)
        #expect(s.memory.building(near: station)?.confirmed == nil)
        #expect(s.editedFromOlder.first?.confirmedNotTaken?.label == "S")
        // Nothing of the file's taken: the daemon's building as it was, its date too.
        var onlyS = copy
        onlyS.edit(at: station) { $0.reject(nearW, name: "S", center: station, now: t0 + 200) }
        #expect(onlyS.merging(base, base: base).memory == base)
    }

    /// Audit 13 A13-2, the lineage: a copy edited (door A), merged, then edited again (A
    /// rejected, B confirmed: A was a mistake) is the same copy's continuation: the second edit
    /// stands. The merge keeps the mark of a building it takes from the file, so the daemon's
    /// version carries the copy's lineage; the daemon's own change (an answer, an OSM read)
    /// clears it, and the stale copy then counts as edited from an older version (A11-1 kept).
    /// Before, the merge cleared every mark: the second edit was "not taken", A stayed.
    @Test func aCopyEditedAgainAfterItsMergeIsItsContinuation() throws {
        let (doorA, doorB, doorW) = (Place.at(50, 0), Place.at(50, 90), Place.at(50, 180))
        let walkers = Place.at(50, 270)
        // Made by `memory confirm` while the daemon was stopped; the daemon read it so.
        var base = EntranceMemory()
        base.edit(at: station) { $0.reject(doorW, name: "S", center: station, now: t0) }
        var copy = base
        copy.edit(at: station) {
            $0.confirm(Door(coordinate: doorA, label: "A"), name: "S", center: station, now: t0 + 100)
        }
        let first = copy.merging(base, base: base)
        #expect(first.memory.building(near: station)?.confirmed?.label == "A")
        #expect(first.memory.building(near: station)?.basedOn == EntranceMemory.editedFromNothing)
        #expect(first.editedFromOlder.isEmpty)
        let merged = first.memory
        copy.edit(at: station) { $0.reject(doorA, name: "S", center: station, now: t0 + 200) }
        copy.edit(at: station) {
            $0.confirm(Door(coordinate: doorB, label: "B"), name: "S", center: station, now: t0 + 201)
        }
        let second = copy.merging(merged, base: merged)
        let building = try #require(second.memory.building(near: station))
        #expect(building.confirmed?.label == "B", "\(second.editedFromOlder)")
        #expect(building.isRejected(doorA) && building.isRejected(doorW))
        #expect(second.editedFromOlder.isEmpty && second.bothChanged.isEmpty)
        #expect(building.basedOn == EntranceMemory.editedFromNothing, "still the copy's lineage")

        // The walker answered (or the daemon stored an OSM read) after the first merge: the
        // mark is cleared, and the copy's second edit began before it.
        var answered = merged
        answered.confirm(Door(coordinate: walkers, label: "W"), name: "S", center: station, now: t0 + 150)
        #expect(answered.building(near: station)?.basedOn == nil)
        var read = merged
        read.recordOSM([Place.osmDoor(doorB)], name: "S", center: station, now: t0 + 150)
        #expect(read.building(near: station)?.basedOn == nil)
        let stale = copy.merging(answered, base: answered)
        #expect(stale.memory.building(near: station)?.confirmed?.label == "W")
        #expect(stale.editedFromOlder.map(\.basedOn) == [EntranceMemory.editedFromNothing])
        #expect(stale.memory.building(near: station)?.basedOn == nil)
        // The daemon's unchanged building, kept over a file that lacks it, keeps its mark.
        #expect(EntranceMemory().merging(merged, base: merged).memory == merged)
    }

    /// A11-1's mark: a building the copy lacked is marked as begun from nothing, so the walker's
    /// door at it stays; an edit of a current copy (begun from the base's version) is the family's
    /// correction, as before; and a file without `basedOn` (older files, hand edits) merges as
    /// before, its building dated after the base standing — the walker's newer door replaced.
    @Test func aFileWithoutTheMarkMergesAsBefore() throws {
        let (doorW, doorC) = (Place.at(50, 90), Place.at(50, 180))
        var base = EntranceMemory()
        base.confirm(Door(coordinate: doorW, label: "W"), name: "S", center: station, now: t0 + 100)
        var made = EntranceMemory()
        made.edit(at: station) { $0.reject(doorC, name: "S", center: station, now: t0 + 200) }
        #expect(made.building(near: station)?.basedOn == EntranceMemory.editedFromNothing)
        let fromNothing = made.merging(base, base: base)
        #expect(fromNothing.memory.building(near: station)?.confirmed?.label == "W")
        #expect(fromNothing.memory.building(near: station)?.isRejected(doorC) == true)
        #expect(fromNothing.editedFromOlder.map(\.basedOn) == [EntranceMemory.editedFromNothing])

        var current = base
        current.edit(at: station) { $0.reject(doorW, name: "S", center: station, now: t0 + 200) }
        #expect(current.building(near: station)?.basedOn == t0 + 100)
        let correction = current.merging(base, base: base)
        #expect(correction.memory.building(near: station)?.confirmed == nil)
        #expect(correction.memory.building(near: station)?.isRejected(doorW) == true)
        #expect(correction.editedFromOlder.isEmpty)

        // A file as written before the field: no "basedOn" key, read as none, written without one.
        let json = #"""
            {"buildings": [{"center": {"lat": 60.1712, "lon": 24.9413}, "changed": "2025-04-30T08:03:20Z",
            "name": "S", "rejected": [{"lat": 60.17075, "lon": 24.9413}]}], "version": 1}
            """#
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let old = try decoder.decode(EntranceMemory.self, from: Data(json.utf8))
        #expect(old.building(near: station)?.basedOn == nil)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        #expect(!String(decoding: try encoder.encode(old), as: UTF8.self).contains("basedOn"))
        let asBefore = old.merging(base, base: base)
        #expect(asBefore.memory == old, "the file's building stands, as before")
        #expect(asBefore.editedFromOlder.isEmpty)
        // So does a hand edit of a file whose building keeps the base's own mark.
        var marked = base
        marked.edit(at: station) { $0.reject(doorC, name: "S", center: station, now: t0 + 150) }
        var handEdited = marked
        handEdited.edit(at: station) { $0.reject(doorW, name: "S", center: station, now: t0 + 300) }
        #expect(handEdited.building(near: station)?.basedOn == marked.building(near: station)?.basedOn)
        let hand = handEdited.merging(marked, base: marked)
        #expect(hand.memory.building(near: station)?.confirmed == nil)
        #expect(hand.memory.building(near: station)?.rejected == [doorC, doorW])
        #expect(hand.editedFromOlder.isEmpty)
    }

    @Test func aNewConfirmReplacesTheOld() {
        var memory = EntranceMemory()
        memory.confirm(Door(coordinate: Place.at(50, 0)), name: "S", center: station, now: t0)
        memory.confirm(Door(coordinate: Place.at(50, 180)), name: "S", center: station, now: t0 + 1)
        #expect(memory.building(near: station)?.confirmed?.coordinate == Place.at(50, 180))
        #expect(memory.buildings.count == 1)
    }

    // MARK: reject

    @Test func rejectNeverDuplicatesWithin15Metres() {
        var memory = EntranceMemory()
        let door = Place.at(50, 0)
        memory.reject(door, name: "S", center: station, now: t0)
        memory.reject(Place.at(15, 90, from: door), name: "S", center: station, now: t0 + 1)
        #expect(memory.building(near: station)?.rejected == [door])
        memory.reject(Place.at(15.5, 90, from: door), name: "S", center: station, now: t0 + 2)
        #expect(memory.building(near: station)?.rejected == [door, Place.at(15.5, 90, from: door)])
        // Even a reject that adds nothing is a change: the building moves to the front.
        #expect(memory.building(near: station)?.changed == t0 + 2)
    }

    @Test(arguments: [(10.0, true), (16.0, false)])
    func rejectUnconfirmsAConfirmedDoorWithin15Metres(metres: Double, unconfirmed: Bool) {
        var memory = EntranceMemory()
        let door = Place.at(50, 0)
        memory.confirm(Door(coordinate: door), name: "S", center: station, now: t0)
        memory.reject(Place.at(metres, 90, from: door), name: "S", center: station, now: t0 + 1)
        let building = memory.building(near: station)
        #expect((building?.confirmed == nil) == unconfirmed)
        #expect(building?.rejected == [Place.at(metres, 90, from: door)])
    }
}
