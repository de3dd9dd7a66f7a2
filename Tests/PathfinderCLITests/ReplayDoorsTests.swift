import Arrival
import Foundation
import Geo
import Replay
import Testing

/// `pathfinder replay --doors DB`: the door index as the replay's source of OSM doors.
@Suite("pathfinder replay --doors")
struct ReplayDoorsTests {
    static let repo = DemoTests.repo
    static let walk = [
        "replay", "--nmea", repo + "/artifacts/demo/walk.nmea", "--destination",
        repo + "/artifacts/demo/destination.json", "--heard", repo + "/artifacts/demo/heard.tsv",
    ]
    static let bundledIndex = repo + "/artifacts/doors/helsinki.db"

    /// The event log's lines as JSON objects.
    func events(_ out: String) throws -> [[String: Any]] {
        try out.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    /// The doors (entrance first, then alternatives) of the plan made when OSM's doors arrived.
    func doorsArrivedPlan(_ out: String) throws -> (t: Double, doors: [(label: String?, at: Coordinate)]) {
        let line = try #require(
            try events(out).first {
                $0["event"] as? String == "plan" && $0["reason"] as? String == "doorsArrived"
            })
        let plan = try #require(line["plan"] as? [String: Any])
        let doors = ([plan["entrance"] as Any] + (plan["alternatives"] as? [Any] ?? [])).compactMap {
            $0 as? [String: Any]
        }
        return (
            try #require(line["t"] as? Double),
            try doors.map {
                (
                    $0["label"] as? String,
                    Coordinate(
                        latitude: try #require($0["lat"] as? Double),
                        longitude: try #require($0["lon"] as? Double))
                )
            }
        )
    }

    @Test func doorIndex_givesTheSameWalkAsTheBuildingsOSMFile() async throws {
        let scratch = try Scratch()
        let osm = await runPathfinder(
            Self.walk + ["--osm", Self.repo + "/artifacts/demo/doors.osm", "--map", scratch.file("osm.svg")])
        let index = await runPathfinder(
            Self.walk + ["--doors", Self.bundledIndex, "--map", scratch.file("index.svg")])
        #expect(osm.code == 0, "\(osm.err)")
        #expect(index.code == 0, "\(index.err)")
        // Byte for byte the same log: the same doors A, C, D (C stands 1.2 m from A, so it is
        // one door with A in the plan: within EntranceMemory.sameDoorMetres), arriving 3 s late,
        // the same walk and answers.
        #expect(index.out == osm.out)
        #expect(
            index.err.contains("door index \(Self.bundledIndex): building way 28903274, 3 doors"),
            "\(index.err)")
        let plan = try doorsArrivedPlan(index.out)
        #expect(plan.t == 3)
        #expect(plan.doors.map(\.label) == ["A", "D"])
        let lines = try events(index.out).map { $0["event"] as? String ?? "" }
        #expect(lines.first == "plan" && lines.last == "walkEnded")
        #expect(lines.filter { $0 == "doorsRequested" }.count == 1)
        #expect(lines.contains("rejected") && lines.contains("confirmed"))
        // The map's building: the index's outline (an open ring of 11 corners), from the bundled
        // index and from the index made from the OSM file alike.
        let svg = try String(contentsOfFile: scratch.file("index.svg"), encoding: .utf8)
        let polygon = try #require(svg.split(separator: "\n").first { $0.hasPrefix("<polygon points=") })
        let osmPolygon = try #require(
            try String(contentsOfFile: scratch.file("osm.svg"), encoding: .utf8).split(separator: "\n").first
            {
                $0.hasPrefix("<polygon points=")
            })
        let corners = polygon.split(separator: "\"")[1].split(separator: " ")
        #expect(corners.count == 11)
        #expect(osmPolygon.split(separator: "\"")[1].split(separator: " ") == corners)
    }

    /// An extract of the whole block: `--osm` asks a door index made from the file, as
    /// `--doors` asks the one imported from it, so both give the building's own three doors
    /// (before: `--osm` took every entrance within 100 m of the centre, and a neighbour's main
    /// door 99.96 m away led). `plan --osm` and `memory osm` read the file the same way.
    @Test func neighboursDoors_areNotTheBuildings() async throws {
        let scratch = try Scratch()
        let block = try fixture("siltavuorenpenger-block.osm")
        let imported = await runPathfinder(["doors", "import", block, "--out", scratch.file("block.db")])
        #expect(imported.code == 0, "\(imported.err)")

        let fromIndex = await runPathfinder(Self.walk + ["--doors", scratch.file("block.db")])
        let fromBuilding = await runPathfinder(
            Self.walk + ["--osm", Self.repo + "/artifacts/demo/doors.osm"])
        let fromBlock = await runPathfinder(Self.walk + ["--osm", block])
        #expect(fromIndex.code == 0, "\(fromIndex.err)")
        #expect(fromBlock.code == 0, "\(fromBlock.err)")
        #expect(fromIndex.out == fromBuilding.out)
        #expect(fromBlock.out == fromIndex.out)
        #expect(
            fromBlock.err.contains("doors from \(block): building way 28903274, 3 doors"), "\(fromBlock.err)")
        let center = Coordinate(latitude: 60.1753029, longitude: 24.9516901)
        let indexDoors = try doorsArrivedPlan(fromIndex.out).doors
        #expect(indexDoors.count == 2 && indexDoors.allSatisfy { $0.at.distance(to: center) < 30 })

        let destination = Self.repo + "/artifacts/demo/destination.json"
        let plan = await runPathfinder(["plan", "--destination", destination, "--osm", block, "--compact"])
        #expect(plan.code == 0, "\(plan.err)")
        let planned = try #require(
            try JSONSerialization.jsonObject(with: Data(plan.out.utf8)) as? [String: Any])
        let entrance = try #require(planned["entrance"] as? [String: Any])
        #expect(entrance["label"] as? String == "A", "\(plan.out)")
        let alternatives = (planned["alternatives"] as? [[String: Any]] ?? []).compactMap {
            $0["label"] as? String
        }
        #expect(alternatives == ["D"], "\(plan.out)")

        let memory = scratch.file("memory.json")
        let recorded = await runPathfinder([
            "memory", "osm", "--file", memory, "--name", "Siltavuorenpenger 10", "--center",
            "60.1753029,24.9516901",
            "--osm", block, "--now", "2026-12-04T10:00:00Z",
        ])
        #expect(recorded.code == 0, "\(recorded.err)")
        let stored = try String(contentsOfFile: memory, encoding: .utf8)
        #expect(stored.components(separatedBy: "\"source\" : \"osm\"").count - 1 == 3, "\(stored)")
    }

    @Test(arguments: [
        (
            ["--doors", "/nonexistent/doors.db"],
            "--doors /nonexistent/doors.db: not a door index: no such file"
        ),
        (["--doors", repo + "/artifacts/demo/walk.nmea"], "walk.nmea: not a door index"),
        (
            ["--doors", bundledIndex, "--osm", repo + "/artifacts/demo/doors.osm"],
            "give --osm or --doors, not both"
        ),
    ])
    func badDoors_exit2NamingTheFile(extra: [String], message: String) async {
        let result = await runPathfinder(Self.walk + extra)
        #expect(result.code == 2)
        #expect(result.err.contains(message), "\(result.err)")
        #expect(result.out.isEmpty)
    }

    @Test(arguments: [
        #"{"nmea": "w", "destination": "d", "audio": "a", "audioStart": 0}"#,
        #"{"nmea": "w", "destination": "d", "audio": "a", "audioStart": 0, "osm": "o", "doors": "x.db"}"#,
    ])
    func demoManifest_namesOneDoorSource(manifest: String) async throws {
        let scratch = try Scratch()
        _ = try scratch.write("demo.json", manifest)
        let result = await runPathfinder(["demo", "--json", "--dir", scratch.path])
        #expect(result.code == 2)
        #expect(result.err.contains("\(scratch.path)/demo.json: name the doors' source"), "\(result.err)")
    }

    /// The demo walk to the building's centre, "여기가 입구야" typed at 300 s, the building's
    /// doors from its OSM file arriving `doorsAfter` seconds after the walk asks (replay's
    /// default when `nil`); the log and the memory the walk wrote.
    func answeredBeforeTheDoors(doorsAfter: String?) async throws -> (events: [[String: Any]], memory: String)
    {
        let scratch = try Scratch()
        let memory = scratch.file("memory.json")
        let result = await runPathfinder(
            [
                "replay", "--nmea", Self.repo + "/artifacts/demo/walk.nmea", "--destination",
                Self.repo + "/artifacts/demo/destination.json", "--heard",
                try scratch.write("heard.tsv", "300\t여기가 입구야\n"), "--osm",
                Self.repo + "/artifacts/demo/doors.osm", "--memory", memory,
            ] + (doorsAfter.map { ["--doors-after", $0] } ?? []))
        #expect(result.code == 0, "\(result.err)")
        return (try events(result.out), try String(contentsOfFile: memory, encoding: .utf8))
    }

    /// OSM's doors arriving after "여기가 입구야", before the walk ends, are remembered and
    /// nothing is re-planned or said: the third rule FinalApproachEdgeTests proves on the core
    /// (before its fix, "지도에서 입구를 찾았어…" followed the promise), here on the binary.
    @Test func doorsAfterTheAnswer_areRememberedNotAnnounced() async throws {
        let (lines, memory) = try await answeredBeforeTheDoors(doorsAfter: "301")
        let confirmed = try #require(lines.first { $0["event"] as? String == "confirmed" })
        #expect(confirmed["t"] as? Double == 300)
        #expect(!lines.contains { $0["reason"] as? String == "doorsArrived" }, "\(lines)")
        let said = lines.compactMap { $0["text"] as? String }
        #expect(!said.contains { $0.hasPrefix("지도에서 입구를 찾았어") }, "\(said)")
        #expect(said.last == Prompts.remembered, "\(said)")
        let saves = lines.filter { $0["event"] as? String == "memorySaved" }.compactMap { $0["t"] as? Double }
        #expect(saves == [300, 301], "the answer, then the doors: \(saves)")
        #expect(lines.last?["event"] as? String == "walkEnded")
        // The walker's door and the building's three OSM doors.
        #expect(memory.components(separatedBy: "\"source\" : \"osm\"").count - 1 == 3, "\(memory)")
        #expect(memory.components(separatedBy: "\"source\" : \"walker\"").count - 1 == 1, "\(memory)")
    }

    /// OSM's doors arriving after the walk has ended (3 s after "여기가 입구야") are remembered
    /// all the same, nothing said, as the docs promise (before, the ended walk took them with
    /// it: no line, nothing stored, and the next walk asked OSM again).
    @Test func doorsAfterTheWalkEnded_areRememberedNotAnnounced() async throws {
        let (lines, memory) = try await answeredBeforeTheDoors(doorsAfter: "310")
        let events = lines.map { "\($0["event"] as? String ?? "?") \($0["t"] as? Double ?? -1)" }
        let ended = try #require(events.firstIndex(of: "walkEnded 303.0"), "\(events)")
        #expect(events[(ended + 1)...] == ["memorySaved 310.0"], "\(events)")
        #expect(!lines.contains { $0["reason"] as? String == "doorsArrived" }, "\(lines)")
        #expect(lines.compactMap { $0["text"] as? String }.last == Prompts.remembered)
        #expect(memory.components(separatedBy: "\"source\" : \"osm\"").count - 1 == 3, "\(memory)")
        #expect(memory.components(separatedBy: "\"source\" : \"walker\"").count - 1 == 1, "\(memory)")
    }

    /// By default the same doors arrive 3 s after they are asked for, long before the answer:
    /// the walk to the centre turns to door A at once.
    @Test func doorsAtTheDefaultTime_leadTheWalk() async throws {
        let (lines, _) = try await answeredBeforeTheDoors(doorsAfter: nil)
        let plan = try #require(lines.first { $0["reason"] as? String == "doorsArrived" })
        #expect(plan["t"] as? Double == Replayer.doorsDelaySeconds)
        #expect(lines.contains { ($0["text"] as? String)?.hasPrefix("지도에서 입구를 찾았어. A 입구") == true })
    }

    @Test(arguments: [
        (["--doors-after", "5"], "--doors-after needs --doors or --osm"),
        (["--osm", repo + "/artifacts/demo/doors.osm", "--doors-after", "-1"], "--doors-after"),
        (["--osm", repo + "/artifacts/demo/doors.osm", "--doors-after", "soon"], "--doors-after"),
        (["--osm", repo + "/artifacts/demo/doors.osm", "--doors-after", "nan"], "--doors-after"),
    ])
    func badDoorsAfter_exit2(extra: [String], message: String) async {
        let result = await runPathfinder(Self.walk + extra)
        #expect(result.code == 2)
        #expect(result.err.contains(message), "\(result.err)")
        #expect(result.out.isEmpty)
    }

    /// OSM data around a square with no building within 50 m of its centre ("Tori"), a kiosk's
    /// loose entrance 20 m east of it, and a building ("Talo", doors on its south and north
    /// walls) whose centre is 100 m south of the square's: within 120 m, so one venue with it
    /// in the memory.
    static let squareAndBuilding = """
        <?xml version="1.0" encoding="UTF-8"?>
        <osm version="0.6">
         <node id="1" lat="60.1699000" lon="24.9398000"/>
         <node id="2" lat="60.1699000" lon="24.9402000"/>
         <node id="3" lat="60.1701000" lon="24.9402000"/>
         <node id="4" lat="60.1701000" lon="24.9398000"/>
         <node id="5" lat="60.1699000" lon="24.9400000"><tag k="entrance" v="main"/></node>
         <node id="6" lat="60.1701000" lon="24.9400000"><tag k="entrance" v="yes"/></node>
         <node id="7" lat="60.1708980" lon="24.9403600"><tag k="entrance" v="yes"/></node>
         <way id="10"><nd ref="1"/><nd ref="5"/><nd ref="2"/><nd ref="3"/><nd ref="6"/><nd ref="4"/><nd ref="1"/><tag k="building" v="yes"/><tag k="name" v="Talo"/></way>
        </osm>
        """

    /// A place with no building within 50 m of its centre (a square, a park, a city's point
    /// from the gazetteer): the door index says "no building within 50 m", which is no
    /// building's doors. It is said, and the entrances near the centre lead that walk, but
    /// nothing is remembered: before, it was stored as a building there with those entrances
    /// as its OSM doors, read now, and for 30 days the real building within 120 m of it was
    /// planned from them (the kiosk's entrance first) and its own doors never asked for. Alike
    /// from `--doors` and `--osm`, which share the core.
    @Test(arguments: [true, false])
    func noBuildingAtTheCentre_isNotRememberedAsABuildingsDoors(fromIndex: Bool) async throws {
        let scratch = try Scratch()
        let osm = try scratch.write("square.osm", Self.squareAndBuilding)
        var source = ["--osm", osm]
        if fromIndex {
            let imported = await runPathfinder(["doors", "import", osm, "--out", scratch.file("square.db")])
            #expect(imported.code == 0, "\(imported.err)")
            source = ["--doors", scratch.file("square.db")]
        }
        let memory = scratch.file("memory.json")
        let walk = ["replay", "--nmea", Self.repo + "/artifacts/demo/walk.nmea", "--memory", memory] + source
        let square = try scratch.write(
            "tori.json", #"{"name": "Tori", "center": {"lat": 60.1709, "lon": 24.94}}"#)
        let toSquare = await runPathfinder(walk + ["--destination", square])
        #expect(toSquare.code == 0, "\(toSquare.err)")
        #expect(toSquare.err.contains("no building within 50 m; 3 entrances within 150 m"), "\(toSquare.err)")
        // The kiosk's entrance, then the building's two, lead this walk.
        #expect(try doorsArrivedPlan(toSquare.out).doors.count == 3, "\(toSquare.out)")
        let stored = (try? String(contentsOfFile: memory, encoding: .utf8)) ?? ""
        #expect(!stored.contains("\"osm\""), "no building's doors remembered: \(stored)")

        let building = try scratch.write(
            "talo.json", #"{"name": "Talo", "center": {"lat": 60.17, "lon": 24.94}}"#)
        let toBuilding = await runPathfinder(walk + ["--destination", building])
        #expect(toBuilding.code == 0, "\(toBuilding.err)")
        #expect(toBuilding.err.contains("building way 10, 2 doors"), "\(toBuilding.err)")
        let lines = try events(toBuilding.out)
        #expect(lines.contains { $0["event"] as? String == "doorsRequested" }, "\(toBuilding.out)")
        let doors = try doorsArrivedPlan(toBuilding.out).doors
        #expect(doors.count == 2 && doors.allSatisfy { $0.at.latitude < 60.1702 }, "\(toBuilding.out)")
        let remembered = try String(contentsOfFile: memory, encoding: .utf8)
        #expect(remembered.components(separatedBy: "\"source\" : \"osm\"").count - 1 == 2, "\(remembered)")
    }

    /// A destination naming its building (`"osm"`, as `go QUERY` makes it) replays with that
    /// building's doors from the index: Helsinki Cathedral, whose centroid lies in a small
    /// building of no doors in its middle (way/234870674), which a destination without it
    /// still gets (audit 12 A12-7).
    @Test func aDestinationNamingItsBuilding_getsThatBuildingsDoors() async throws {
        let scratch = try Scratch()
        let center = #""center": {"lat": 60.1703780916399, "lon": 24.9521759393067}"#
        for (field, found) in [
            (#", "osm": "way/419479428""#, "building way 419479428, 3 doors"),
            ("", "building way 234870674, 0 doors"),
        ] {
            let destination = try scratch.write(
                "d.json", #"{"name": "Helsingin tuomiokirkko", \#(center)\#(field)}"#)
            let result = await runPathfinder([
                "replay", "--nmea", Self.repo + "/artifacts/demo/walk.nmea", "--destination", destination,
                "--doors", Self.bundledIndex,
            ])
            #expect(result.code == 0, "\(result.err)")
            #expect(result.err.contains(found), "\(field): \(result.err)")
        }
    }

    @Test func withoutDoors_theRequestGoesUnanswered() async throws {
        // A replay reads only the files it is given: no --osm, no --doors, no doors arrive.
        let result = await runPathfinder(Self.walk)
        #expect(result.code == 0, "\(result.err)")
        let lines = try events(result.out)
        #expect(lines.contains { $0["event"] as? String == "doorsRequested" })
        #expect(!lines.contains { $0["reason"] as? String == "doorsArrived" })
    }
}
