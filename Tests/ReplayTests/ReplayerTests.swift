import Arrival
import Foundation
import Geo
import OSM
import Positioning
import Replay
import Testing

enum Fixture {
    static func path(_ name: String) throws -> String {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/" + name, withExtension: nil))
        return url.path
    }
    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: try path(name)))
    }
    static func destination() throws -> Destination {
        try JSONDecoder().decode(Destination.self, from: try data("destination.json"))
    }
    static func replayer(memory: EntranceMemory = EntranceMemory()) throws -> Replayer {
        let destination = try destination()
        let osm = try OSMReader.read(path: try path("doors.osm"))
        let heard = try ReplayInputs.heard(tsv: String(decoding: try data("heard.tsv"), as: UTF8.self))
        return Replayer(
            destination: destination, memory: memory,
            doors: ReplayInputs.doors(in: osm, around: destination.center), heard: heard)
    }
}

func encode(_ lines: [FinalApproach.LogLine]) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    var out = Data()
    for line in lines { out += try encoder.encode(line) + Data("\n".utf8) }
    return out
}

@Suite("Replayer")
struct ReplayerTests {
    @Test func demoWalk_tellsTheWholeStory() throws {
        let result = try Fixture.replayer().run(nmea: try Fixture.data("walk.nmea"))
        let events = result.lines.map(\.event)
        #expect(events.first == "plan")
        #expect(events.last == "walkEnded")
        #expect(events.filter { $0 == "arrived" }.count == 2)
        #expect(result.lines.contains { $0.effect == .walkEnded(.rejected) })
        #expect(result.lines.contains { $0.effect == .walkEnded(.confirmed) })
        // OSM's doors arrive late: 3 s of trace time after they were asked for.
        let asked = try #require(result.lines.first { $0.event == "doorsRequested" })
        let doorsPlan = try #require(
            result.lines.first { if case .plan(_, .doorsArrived) = $0.effect { true } else { false } })
        #expect(doorsPlan.t - asked.t == Replayer.doorsDelaySeconds)
        // The memory: D confirmed (its label and the walker as source), A rejected, OSM read.
        let building = try #require(result.memory.building(near: try Fixture.destination().center))
        #expect(building.confirmed?.label == "D")
        #expect(building.confirmed?.source == .walker)
        #expect(building.rejected.count == 1)
        #expect(building.osm?.doors.map(\.label) == ["A", "C", "D"])
        #expect(result.stats.badChecksum == 0)
        #expect(result.track.count == result.stats.fixes)
    }

    @Test func determinism_twoRunsSameBytes() throws {
        let a = try encode(try Fixture.replayer().run(nmea: try Fixture.data("walk.nmea")).lines)
        let b = try encode(try Fixture.replayer().run(nmea: try Fixture.data("walk.nmea")).lines)
        #expect(a == b)
        #expect(a.count > 5_000)
    }

    @Test func secondVisit_leadsToTheConfirmedDoorWithoutAskingOSM() throws {
        let first = try Fixture.replayer().run(nmea: try Fixture.data("walk.nmea"))
        var again = try Fixture.replayer(memory: first.memory)
        again.heard = []
        let result = try again.run(nmea: try Fixture.data("walk.nmea"))
        guard case .plan(let plan, .start) = result.lines.first?.effect else {
            Issue.record("the first line is not the plan")
            return
        }
        #expect(plan.entrance?.source == .walker)
        #expect(plan.entrance?.label == "D")
        #expect(!result.lines.contains { $0.event == "doorsRequested" })
    }

    @Test func pressureBecomesAltitude_calibratedByGPS() throws {
        // The demo's XDR sentences give the walker an altitude; the door stored carries it only
        // when accurate to 6 m (GPS-calibrated: vertical accuracy of the calibrating fix + 1 m).
        let result = try Fixture.replayer().run(nmea: try Fixture.data("walk.nmea"))
        let stored = result.memory.buildings.first?.confirmed?.altitude
        if let stored { #expect(stored.accuracy <= 6) }
    }

    @Test func traceWithoutFixes_isAnError() throws {
        let replayer = try Fixture.replayer()
        #expect(throws: ReplayError.self) {
            try replayer.run(nmea: Array("$GPGSA,A,1,,,,,,,,,,,,,,,*1E\r\nnonsense\n".utf8))
        }
    }

    @Test(arguments: [
        ("1.5\t여기 아니야\n", 1, ""),
        ("1.5 여기 아니야\n", 0, "line 1"),
        ("# comment\n\n-2\tx\n", 0, "line 3"),
        ("abc\tx\n", 0, "line 1"),
    ])
    func heardTSV(text: String, count: Int, expectedError: String) {
        do {
            let heard = try ReplayInputs.heard(tsv: text)
            #expect(expectedError.isEmpty, "expected an error at \(expectedError)")
            #expect(heard.count == count)
        } catch {
            #expect(!expectedError.isEmpty && error.description.hasPrefix(expectedError + ":"), "\(error)")
        }
    }
}

@Suite("WalkMap")
struct WalkMapTests {
    @Test func mapShowsTraceBuildingDoorsTargetsAndPrompts() throws {
        let destination = try Fixture.destination()
        let osm = try OSMReader.read(path: try Fixture.path("doors.osm"))
        let outline = try #require(ReplayInputs.outline(in: osm, around: destination.center))
        #expect(outline.count == 12)
        let result = try Fixture.replayer().run(nmea: try Fixture.data("walk.nmea"))
        let svg = WalkMap(destination: destination, outline: outline, result: result).svg()
        #expect(svg.hasPrefix("<?xml"))
        #expect(svg.contains("<polygon points="))  // the building
        #expect(svg.contains("<polyline points="))  // the trace
        #expect(svg.contains("stroke=\"#c62828\""))  // a rejected door
        #expect(svg.contains("T2"))  // a target change
        #expect(svg.contains("기억할게"))  // prompts listed
        #expect(
            svg == WalkMap(destination: destination, outline: outline, result: result).svg(), "deterministic")
    }
}
