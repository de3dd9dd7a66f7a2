import Arrival
import Foundation
import Replay
import Testing

/// A building with no entrance mapped (the usual Korean building in OSM), walked to with the
/// door index, on the binary: `doors import` of a hand-written building, then `replay`.
@Suite("replay: a building without a mapped door")
struct ReplayNoDoorTests {
    /// The building's south-west corner is 37.5650, 126.9760, its north-east 37.5653, 126.9764
    /// (35 m × 33 m); its centre 37.56515, 126.9762.
    static let building = "no-door/building.osm"
    static let destination = "no-door/destination.json"

    /// From 230 m south up to 2 m short of the south wall, then round the building 2 m outside
    /// its walls, then standing there 40 s (audit 12, A12-3).
    static let roundTheBuilding: [(Double, Double)] = [
        (37.5630, 126.9760), (37.56498, 126.9762), (37.56498, 126.97643), (37.56532, 126.97643),
        (37.56532, 126.97597), (37.56498, 126.97597), (37.56498, 126.9762),
    ]

    /// An NMEA trace (GGA and RMC a second, with checksums) walking through `points` at
    /// 1.3 m/s, then standing `stand` seconds at the last one.
    static func nmea(_ points: [(Double, Double)], stand: Int) -> String {
        var fixes: [(lat: Double, lon: Double, course: Double?)] = []
        for (a, b) in zip(points, points.dropFirst()) {
            let dy = (b.0 - a.0) * 111_320
            let dx = (b.1 - a.1) * 111_320 * cos(a.0 * .pi / 180)
            let n = max(1, Int((dx * dx + dy * dy).squareRoot() / 1.3))
            let course = (atan2(dx, dy) * 180 / .pi + 360).truncatingRemainder(dividingBy: 360)
            for i in 0..<n {
                let f = Double(i) / Double(n)
                fixes.append((a.0 + (b.0 - a.0) * f, a.1 + (b.1 - a.1) * f, course))
            }
        }
        let last = points[points.count - 1]
        fixes += Array(repeating: (last.0, last.1, nil), count: stand)
        func degreesMinutes(_ value: Double, width: Int) -> String {
            let degrees = Int(value)
            return String(format: "%0\(width)d%07.4f", degrees, (value - Double(degrees)) * 60)
        }
        var out = ""
        for (i, fix) in fixes.enumerated() {
            let time = String(format: "%02d%02d%02d.00", 3 + i / 3600, i / 60 % 60, i % 60)
            let position = "\(degreesMinutes(fix.lat, width: 2)),N,\(degreesMinutes(fix.lon, width: 3)),E"
            out += ReplayInputTests.sentence("GPGGA,\(time),\(position),1,09,0.9,25.0,M,18.0,M,,")
            let motion = fix.course.map { String(format: "%.1f,%.1f", 1.3 * 1.94384, $0) } ?? "0.0,"
            out += ReplayInputTests.sentence("GPRMC,\(time),A,\(position),\(motion),051226,,,A")
        }
        return out
    }

    /// `pathfinder replay` (the binary) of the walk round the building, with `more` arguments.
    func replay(_ scratch: Scratch, _ more: [String]) throws -> (code: Int32, out: String, err: String) {
        let walk = try scratch.write("round.nmea", Self.nmea(Self.roundTheBuilding, stand: 40))
        return try BinaryTests.run(
            executable: try BinaryTests.binary(),
            ["replay", "--nmea", walk, "--destination", try fixture(Self.destination)] + more)
    }

    /// The door index of the building (`building`, a fixture), made by `doors import` (the binary).
    func importBuilding(_ scratch: Scratch, _ building: String = building) throws -> String {
        let index = scratch.file("seoul.db")
        let made = try BinaryTests.run(
            executable: try BinaryTests.binary(),
            ["doors", "import", try fixture(building), "--out", index])
        #expect(made.code == 0, "\(made.err)")
        return index
    }

    /// Before: the arrival radius (12 m here) was measured from the building's centre, 17–28 m
    /// from every point outside its walls; the walker going round it heard only "건물 중앙까지
    /// 이십 미터, 아홉 시 방향" (into the wall), never arrived, and was never asked to find the
    /// door. Now the walk arrives at the building's outline, and the door can be taught there;
    /// the next walk (the door-less read remembered) arrives so too.
    @Test func aBuildingWithoutDoors_isArrivedAtByItsWalls_andTheDoorIsTaughtThere() throws {
        let scratch = try Scratch()
        let index = try importBuilding(scratch)
        let memory = scratch.file("memory.json")
        for walk in 1...2 {
            let heard = walk == 2 ? ["--heard", try scratch.write("heard.tsv", "200\t여기가 입구야\n")] : []
            let r = try replay(scratch, ["--doors", index, "--memory", memory] + heard)
            #expect(r.code == 0, "walk \(walk): \(r.err)")
            let events = eventLines(r.out)
            let said = events.filter { $0["event"] as? String == "say" }.compactMap { $0["text"] as? String }
            // At the wall, told they are at the building, not at its centre.
            #expect(said.contains(Prompts.arrivedAtBuilding), "walk \(walk): \(said)")
            #expect(!said.contains(Prompts.arrivedAtCenter), "walk \(walk): \(said)")
            let arrived = try #require(
                events.first { $0["event"] as? String == "arrived" }, "walk \(walk): \(said)")
            // Before the wall (2 m short of it at t = 177 s): within 12 m of it.
            #expect((arrived["t"] as? Double ?? .infinity) < 177, "walk \(walk): \(arrived)")
            // The record says what was arrived at (before, a reader of the log saw "the centre").
            #expect(arrived["goal"] as? String == "walls", "walk \(walk): \(arrived)")
            // Once the index has answered, guidance measured to the walls, never to the centre
            // inside them (before it answers, the walk knows only the centre).
            let answered = events.filter { ($0["t"] as? Double ?? 0) > Replayer.doorsDelaySeconds }
            let later = answered.filter { $0["event"] as? String == "say" }.compactMap {
                $0["text"] as? String
            }
            #expect(!later.contains { $0.contains("건물 중앙까지") || $0.contains("건물 중앙이") }, "\(later)")
            #expect(later.contains { $0.hasPrefix("건물까지") }, "walk \(walk): \(later)")
            // The second walk asks the index again: the memory keeps no outline.
            #expect(events.contains { $0["event"] as? String == "doorsRequested" }, "walk \(walk)")
            if walk == 2 {
                #expect(events.contains { $0["event"] as? String == "confirmed" }, "\(events)")
                #expect(said.contains(Prompts.remembered), "\(said)")
            }
        }
    }

    /// The block with two doors mapped (south and east walls), walked round three times with
    /// one memory: first to record OSM's read; then both doors rejected in turn, the read
    /// remembered fresh (the index not asked when the walk began); then again, both rejected in
    /// the memory. Before (audit 13 A13-9), once no door was left the index was not asked, so
    /// no outline came: the walk led to the centre ("건물 중앙까지 …" at the wall) and never
    /// arrived, the walker never asked to teach the door. Now the index is asked when no door is
    /// left and no outline is known, and both walks arrive at the walls.
    @Test func everyDoorRejected_theWalkArrivesAtTheWalls() throws {
        let scratch = try Scratch()
        let index = try importBuilding(scratch, "two-doors/building.osm")
        let memory = scratch.file("memory.json")
        let first = try replay(scratch, ["--doors", index, "--memory", memory])
        #expect(first.code == 0, "\(first.err)")
        // At door 1 (south wall) by 165 s, at door 2 (east wall) at 200 s.
        let heard = try scratch.write("heard.tsv", "165\t여기 아니야\n200\t여기 아니야\n")
        for walk in ["rejecting both", "both rejected"] {
            let more = walk == "rejecting both" ? ["--heard", heard] : []
            let r = try replay(scratch, ["--doors", index, "--memory", memory] + more)
            #expect(r.code == 0, "\(walk): \(r.err)")
            let events = eventLines(r.out)
            // After the last door is gone (at the start, or at 200 s) and the index has answered.
            let gone = walk == "rejecting both" ? 200 : 0
            let after = events.filter { ($0["t"] as? Double ?? 0) >= Double(gone) }
            let said = after.filter { $0["event"] as? String == "say" }.compactMap { $0["text"] as? String }
            #expect(after.contains { $0["event"] as? String == "doorsRequested" }, "\(walk): \(said)")
            if walk == "rejecting both" {
                // At the east wall when its door is rejected: told once to find and teach the
                // door, and arrived there without the same request again (audit 13 A13-4:
                // before, "다른 입구는 모르겠어. 입구를 찾으면 …" then "건물에 도착했어. … 입구를 찾으면 …").
                #expect(said.filter { $0 == Prompts.noDoorLeft }.count == 1, "\(walk): \(said)")
                #expect(!said.contains(Prompts.arrivedAtBuilding), "\(walk): \(said)")
            } else {
                #expect(said.contains(Prompts.arrivedAtBuilding), "\(walk): \(said)")
            }
            let arrived = after.first { $0["event"] as? String == "arrived" }
            #expect(arrived?["door"] is NSNull, "\(walk): \(String(describing: arrived))")
            if walk == "both rejected" {
                #expect(
                    (arrived?["t"] as? Double ?? .infinity) < 177, "\(walk): \(String(describing: arrived))")
            }
            let answered = after.filter {
                ($0["t"] as? Double ?? 0) > Double(gone) + Replayer.doorsDelaySeconds
            }
            let later = answered.filter { $0["event"] as? String == "say" }.compactMap {
                $0["text"] as? String
            }
            #expect(!later.contains { $0.contains("건물 중앙까지") }, "\(walk): \(later)")
        }
    }

    /// A courtyard block (a multipolygon 222 m × 220 m) whose centre lies in its courtyard,
    /// 78 m from any wall, walked to from 110 m south up to 5 m short of its south wall, the
    /// destination naming it by its OSM id as `go` sets it. Asked at the centre, the index knows
    /// no building within 50 m, so no outline came: the walker was led through the south wing
    /// into the courtyard, "건물 중앙에 도착했어" there (audit 13 A13-7). Asked by the id, the
    /// building's answer carries its outline: the walk arrives at the south wall.
    @Test func aCourtyardBuildingNamedByItsId_isArrivedAtByItsWalls() throws {
        let scratch = try Scratch()
        let index = try importBuilding(scratch, "courtyard/building.osm")
        let walk = try scratch.write(
            "south.nmea", Self.nmea([(37.5790, 126.99125), (37.57995, 126.99125)], stand: 30))
        let r = try BinaryTests.run(
            executable: try BinaryTests.binary(),
            [
                "replay", "--nmea", walk, "--destination", try fixture("courtyard/destination.json"),
                "--doors", index,
            ])
        #expect(r.code == 0, "\(r.err)")
        let events = eventLines(r.out)
        let said = events.filter { $0["event"] as? String == "say" }.compactMap { $0["text"] as? String }
        #expect(said.contains(Prompts.arrivedAtBuilding), "\(said)")
        let arrived = try #require(events.first { $0["event"] as? String == "arrived" }, "\(said)")
        // Within the arrival radius (12 m) of the wall, not of the centre 116 m on.
        #expect((arrived["metres"] as? Double ?? .infinity) <= 12, "\(arrived)")
        let answered = events.filter { ($0["t"] as? Double ?? 0) > Replayer.doorsDelaySeconds }
        let later = answered.filter { $0["event"] as? String == "say" }.compactMap { $0["text"] as? String }
        #expect(!later.contains { $0.contains("건물 중앙") }, "\(later)")
    }

    /// A walk that begins inside the last stretch (110 m south of the building) before the
    /// index has answered promises the centre, all it knows then; the answer brings the outline
    /// and no door, and the walker is told the walk now leads to the building, then guided to
    /// its walls. Before (audit 13 A13-6), "건물 중앙으로 안내할게" and "건물 중앙까지 …" were
    /// followed by "건물까지 …" with no word of the change.
    @Test func anOutlineAfterTheCentreWasPromised_isSaid() throws {
        let scratch = try Scratch()
        let index = try importBuilding(scratch)
        let walk = try scratch.write(
            "near.nmea", Self.nmea([(37.5640, 126.9762), (37.56490, 126.9762)], stand: 10))
        let r = try BinaryTests.run(
            executable: try BinaryTests.binary(),
            ["replay", "--nmea", walk, "--destination", try fixture(Self.destination), "--doors", index])
        #expect(r.code == 0, "\(r.err)")
        let said = eventLines(r.out).filter { $0["event"] as? String == "say" }.compactMap {
            $0["text"] as? String
        }
        let promise = try #require(said.firstIndex { $0.hasSuffix("건물 중앙으로 안내할게.") }, "\(said)")
        let change = try #require(said.firstIndex(of: Prompts.ledToWalls), "\(said)")
        #expect(promise < change, "\(said)")
        #expect(said.filter { $0 == Prompts.ledToWalls }.count == 1, "\(said)")
        let after = said[(change + 1)...]
        #expect(after.first?.hasPrefix("건물까지") == true, "\(said)")
        #expect(!after.contains { $0.contains("건물 중앙") }, "\(said)")
        #expect(after.contains(Prompts.arrivedAtBuilding), "\(said)")
    }

    /// Without an outline (a destination file alone, no door index) the walk leads to the
    /// centre as before: there is nothing else to measure to.
    @Test func withoutAnOutline_theWalkStillLeadsToTheCentre() throws {
        let scratch = try Scratch()
        let r = try replay(scratch, [])
        #expect(r.code == 0, "\(r.err)")
        let said = eventLines(r.out).filter { $0["event"] as? String == "say" }.compactMap {
            $0["text"] as? String
        }
        #expect(said.contains { $0.hasPrefix("건물 중앙까지") }, "\(said)")
        #expect(!said.contains(Prompts.arrivedAtCenter), "\(said)")
    }
}
