import Arrival
import Foundation
import Geo
import Storage
import Testing

@Suite("pathfinder plan")
struct PlanCommandTests {
    @Test func theBundledExampleMatchesItsGoldenFile() async throws {
        let (code, out, err) = await runPathfinder([
            "plan", "--destination", try fixture("example/destination.json"),
            "--osm", try fixture("example/rautatieasema.osm"),
        ])
        #expect(code == 0, "\(err)")
        let golden = try String(
            contentsOfFile: try fixture("Snapshots/plan-rautatieasema.json"), encoding: .utf8)
        #expect(out == golden)
        // What the golden file says, in words: the main door leads, 13 doors in all, the
        // private ones are not among them.
        let plan = try JSONDecoder().decode(ArrivalPlan.self, from: Data(out.utf8))
        #expect(plan.entrance?.coordinate == Coordinate(latitude: 60.170747, longitude: 24.9414453))
        #expect(plan.doors.count == 13)
        #expect(
            !plan.doors.contains { $0.coordinate == Coordinate(latitude: 60.170862, longitude: 24.9418498) })
        #expect(plan.doors.compactMap(\.label) == ["C", "D"])
    }

    /// An OSM file that starts with a UTF-8 byte-order mark (as Windows editors save it) was
    /// refused, exit 2 "neither OSM XML nor Overpass JSON"; it plans as without the mark.
    @Test func anOSMFileWithAByteOrderMarkPlansAsWithout() async throws {
        let dir = try Scratch()
        let osm = dir.file("doors.osm")
        try
            (Data([0xEF, 0xBB, 0xBF])
            + Data(contentsOf: URL(fileURLWithPath: try fixture("example/rautatieasema.osm"))))
            .write(to: URL(fileURLWithPath: osm))
        let (code, out, err) = await runPathfinder([
            "plan", "--destination", try fixture("example/destination.json"), "--osm", osm,
        ])
        #expect(code == 0, "\(err)")
        #expect(
            out
                == (try String(
                    contentsOfFile: try fixture("Snapshots/plan-rautatieasema.json"), encoding: .utf8)))
    }

    /// An OSM file's doors count within 150 m of the centre: the railway station's, 700 m from
    /// Siltavuorenpenger 10, are another building's (before, its "main" doors led the plan for
    /// Siltavuorenpenger 10, whose own doors were ranked behind them by kind).
    @Test func anotherBuildingsDoorsInTheFileAreNotThisOnes() async throws {
        let dir = try Scratch()
        let destination = try dir.write(
            "d.json", #"{"name": "Siltavuorenpenger 10", "center": {"lat": 60.1752, "lon": 24.9517}}"#)
        let (code, out, err) = await runPathfinder([
            "plan", "--destination", destination, "--osm", try fixture("example/rautatieasema.osm"),
        ])
        #expect(code == 0, "\(err)")
        let plan = try JSONDecoder().decode(ArrivalPlan.self, from: Data(out.utf8))
        #expect(plan.entrance == nil && plan.doors.isEmpty, "\(out)")
    }

    /// A destination naming its building (`"osm": "way/2008"`, as `go QUERY` makes it) plans
    /// with that building's doors: an L-shaped office whose centroid, its `center`, lies in the
    /// shop in its corner (way/2009). Without `osm`, the shop's door, as before; an `osm` that
    /// is no building's id is refused naming the field (audit 12 A12-7).
    @Test func aDestinationNamingItsBuildingPlansWithThatBuildingsDoors() async throws {
        let dir = try Scratch()
        let osm = try dir.write(
            "l.osm",
            """
            <osm version="0.6">
             <node id="1081" lat="37.5620" lon="126.9800"/><node id="1082" lat="37.5620" lon="126.9810"/>
             <node id="1083" lat="37.5622" lon="126.9810"/><node id="1084" lat="37.5622" lon="126.9802"/>
             <node id="1085" lat="37.5630" lon="126.9802"/><node id="1086" lat="37.5630" lon="126.9800"/>
             <node id="1087" lat="37.5625" lon="126.9800"><tag k="entrance" v="main"/></node>
             <way id="2008"><nd ref="1081"/><nd ref="1082"/><nd ref="1083"/><nd ref="1084"/><nd ref="1085"/>
              <nd ref="1086"/><nd ref="1087"/><nd ref="1081"/><tag k="building" v="office"/></way>
             <node id="1091" lat="37.56225" lon="126.98025"/><node id="1092" lat="37.56225" lon="126.98060"/>
             <node id="1093" lat="37.56260" lon="126.98060"/><node id="1094" lat="37.56260" lon="126.98025"/>
             <node id="1095" lat="37.56260" lon="126.98040"><tag k="entrance" v="main"/></node>
             <way id="2009"><nd ref="1091"/><nd ref="1092"/><nd ref="1093"/><nd ref="1095"/><nd ref="1094"/>
              <nd ref="1091"/><tag k="building" v="retail"/></way>
            </osm>
            """)
        let center = #""center": {"lat": 37.5623222, "lon": 126.9803222}"#
        for (field, door) in [
            (#", "osm": "way/2008""#, Coordinate(latitude: 37.5625, longitude: 126.9800)),
            ("", Coordinate(latitude: 37.5626, longitude: 126.9804)),
        ] {
            let destination = try dir.write("d.json", #"{"name": "엘자빌딩", \#(center)\#(field)}"#)
            let (code, out, err) = await runPathfinder(["plan", "--destination", destination, "--osm", osm])
            #expect(code == 0, "\(err)")
            let plan = try JSONDecoder().decode(ArrivalPlan.self, from: Data(out.utf8))
            #expect(plan.entrance?.coordinate == door, "\(field): \(out)")
        }
        let bad = try dir.write("bad.json", #"{"name": "엘자빌딩", \#(center), "osm": "2008"}"#)
        let (code, _, err) = await runPathfinder(["plan", "--destination", bad, "--osm", osm])
        #expect(code == 2)
        #expect(err.contains("osm") && err.contains("\"way/ID\" or \"relation/ID\""), "\(err)")
    }

    @Test func memoryLeadsAndPlanNeverWrites() async throws {
        let dir = try Scratch()
        let memoryPath = dir.file("memory.json")
        var memory = EntranceMemory()
        let door = Door(coordinate: Coordinate(latitude: 60.1722, longitude: 24.9405))
        memory.confirm(
            door, name: "R", center: Coordinate(latitude: 60.1713, longitude: 24.9412), now: Date())
        try MemoryFile.save(memory, path: memoryPath)
        let before = try Data(contentsOf: URL(fileURLWithPath: memoryPath))

        let (code, out, _) = await runPathfinder([
            "plan", "--destination", try fixture("example/destination.json"), "--memory", memoryPath,
            "--osm", try fixture("example/rautatieasema.osm"), "--compact",
        ])
        #expect(code == 0)
        #expect(out.hasPrefix("{\"alternatives\":[{\"lat\":60.170747,\"lon\":24.9414453,\"source\":\"osm\"}"))
        #expect(out.contains("\"entrance\":{\"lat\":60.1722,\"lon\":24.9405,\"source\":\"walker\"}"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: memoryPath)) == before)
        #expect(dir.entries == ["memory.json"])
    }

    @Test func corruptMemoryIsReportedNotSetAside() async throws {
        let dir = try Scratch()
        let memoryPath = try dir.write("memory.json", "{\"version\": 1,\n\"buildings\": 7}")
        let (code, out, err) = await runPathfinder([
            "plan", "--destination", try fixture("example/destination.json"), "--memory", memoryPath,
            "--compact",
        ])
        #expect(code == 0)
        #expect(
            err.contains(
                "pathfinder plan: warning: \(memoryPath): line 2: field buildings: expected an array"))
        #expect(
            out == "{\"alternatives\":[],\"entrance\":null,\"walkTo\":{\"lat\":60.1713,\"lon\":24.9412}}\n")
        #expect(dir.entries == ["memory.json"])
    }

    @Test(
        "usage errors exit 2 naming the argument",
        arguments: [
            ([String](), "pathfinder plan: --destination is required"),
            (["--destination"], "pathfinder plan: --destination needs a value"),
            (["--destination", "d.json", "--now", "tomorrow"], "--now \"tomorrow\" is not an ISO 8601 time"),
            (
                ["--destination", "d.json", "--now", "2025-05-01T12:00:00"],
                "--now \"2025-05-01T12:00:00\" is not"
            ),
            (["--destination", "d.json", "--fast"], "pathfinder plan: unknown argument \"--fast\""),
        ])
    func usageErrors(argv: [String], message: String) async {
        let (code, out, err) = await runPathfinder(["plan"] + argv)
        #expect(code == 2)
        #expect(out.isEmpty)
        #expect(err.contains(message), "\(err)")
    }

    @Test func missingDestinationFileNamesIt() async throws {
        let dir = try Scratch()
        let (code, _, err) = await runPathfinder(["plan", "--destination", dir.file("nope.json")])
        #expect(code == 2)
        #expect(err.hasPrefix("pathfinder plan: \(dir.file("nope.json")): cannot read destination"))
    }

    @Test(
        "malformed destinations name file, line and field",
        arguments: [
            (
                "{\n  \"name\": \"R\",\n  \"center\": {\"lat\": \"north\", \"lon\": 24.9}\n}",
                "line 3: field center.lat: expected a number"
            ),
            ("{\n  \"name\": \"R\"\n}", "line 1: field center is missing"),
            (
                "{\n  \"name\": \"R\",\n  \"center\": {\"lat\": 95, \"lon\": 24.9}\n}",
                "line 3: field center: coordinate 95.0,24.9 is outside"
            ),
            (
                "{\n  \"name\": \"R\",\n  \"center\": {\"lat\": 60, \"lon\": 24.9},\n  \"door\": {\"lat\": 60}\n}",
                "line 4: field door.lon is missing"
            ),
            ("{\n  \"name\": \"R\",\n  \"center\": {\"lat\": 60 \"lon\": 24.9}\n}", "line 3: not valid JSON"),
        ])
    func malformedDestination(text: String, message: String) async throws {
        let dir = try Scratch()
        let path = try dir.write("destination.json", text)
        let (code, _, err) = await runPathfinder(["plan", "--destination", path])
        #expect(code == 2)
        #expect(err.contains("pathfinder plan: \(path): not a valid destination: \(message)"), "\(err)")
    }

    @Test func badOSMFileNamesIt() async throws {
        let dir = try Scratch()
        let osm = try dir.write("doors.osm", "<osm><node id=\"1\" lat=\"x\" lon=\"2\"/></osm>")
        let (code, _, err) = await runPathfinder([
            "plan", "--destination", try fixture("example/destination.json"), "--osm", osm,
        ])
        #expect(code == 2)
        #expect(err.hasPrefix("pathfinder plan: \(osm)"), "\(err)")
    }
}
