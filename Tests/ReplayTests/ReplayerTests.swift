import Arrival
import EntranceIndex
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
            doors: try ReplayInputs.building(in: osm, source: "doors.osm", around: destination.center).answer,
            heard: heard)
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

    /// "여기 아니야" at door A, then "여기가 입구야" two seconds later, still at A (the walker
    /// changed their mind): the door stored where they stand is A's, with A's label — not that
    /// of D, the door the rejection turned the walk to, 47 m away (before: labelled "D" at A's
    /// spot, and the next plan named A's door "D"). At D itself the confirmation keeps D's label
    /// (demoWalk_tellsTheWholeStory).
    @Test func aConfirmationAtTheDoorJustRejectedKeepsThatDoorsLabel() throws {
        var replayer = try Fixture.replayer()
        replayer.heard = try ReplayInputs.heard(tsv: "390\t여기 아니야\n392\t여기가 입구야\n")
        let result = try replayer.run(nmea: try Fixture.data("walk.nmea"))
        #expect(result.lines.contains { $0.effect == .walkEnded(.rejected) })
        let building = try #require(result.memory.building(near: try Fixture.destination().center))
        let confirmed = try #require(building.confirmed)
        let a = try #require(building.osm?.doors.first { $0.label == "A" })
        #expect(confirmed.coordinate.distance(to: a.coordinate) <= EntranceMemory.sameDoorMetres)
        #expect(confirmed.label == "A")
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

    /// The walk's NMEA without the lines for which `drop` holds.
    static func walk(dropping drop: (Substring) -> Bool) throws -> [UInt8] {
        let text = String(decoding: try Fixture.data("walk.nmea"), as: UTF8.self)
        return Array(text.split(separator: "\r\n").filter { !drop($0) }.joined(separator: "\r\n").utf8) + [
            13, 10,
        ]
    }

    @Test func pressureBecomesAltitude_calibratedByGPS_storedWithTheDoor() throws {
        // The demo's XDR pressures, calibrated by its GST-rated GPS heights (alt σ 4.8 m, 8 m
        // by the walls), give the walker an altitude good to 6 m: stored with the door D.
        let data = try Fixture.data("walk.nmea")
        let result = try Fixture.replayer().run(nmea: data)
        #expect(result.stats.pressures > 400)
        let door = try #require(result.memory.buildings.first?.confirmed)
        let stored = try #require(door.altitude, "no altitude stored with the confirmed door")
        #expect(stored.accuracy <= EntranceMemory.storedAltitudeAccuracyMetres)
        #expect(stored.accuracy >= BarometricAltimeter.sensorMetres)
        // And it agrees with the GPS's own heights where the walker stood (their mean over
        // the fixes within 10 m of the door: the trace's noise is 4 m a fix).
        let (events, _) = NMEAParser.parse(data)
        let heights: [Double] = events.compactMap {
            guard case .fix(let fix) = $0, fix.coordinate.distance(to: door.coordinate) <= 10 else {
                return nil
            }
            return fix.altitudeMSL
        }
        #expect(heights.count >= 10)
        let mean = heights.reduce(0, +) / Double(heights.count)
        #expect(abs(stored.metres - mean) <= 2 * stored.accuracy, "barometer \(stored), GPS mean \(mean)")
    }

    @Test func traceWithoutPressure_storesNoAltitude() throws {
        let result = try Fixture.replayer().run(nmea: try Self.walk { $0.contains("XDR") })
        #expect(result.stats.pressures == 0)
        let door = try #require(result.memory.buildings.first?.confirmed)
        #expect(door.label == "D")
        #expect(door.altitude == nil)
    }

    @Test func pressureWithoutVerticalAccuracy_staysUncalibrated() throws {
        // Without GST and GSA no fix says how good its height is: the altimeter is never
        // calibrated, so there is no altitude to store — unknown, not guessed.
        let result = try Fixture.replayer().run(
            nmea: try Self.walk { $0.contains("GST") || $0.contains("GSA") })
        #expect(result.stats.pressures > 400)
        let door = try #require(result.memory.buildings.first?.confirmed)
        #expect(door.altitude == nil)
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
        let found = try ReplayInputs.building(in: osm, source: "doors.osm", around: destination.center)
        let outline = try #require(ReplayInputs.outline(of: found))
        #expect(outline.count == 11)  // the index's open ring
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

/// The replay's model of the daemon's voice: one prompt at a time, the daemon's queue rules,
/// each prompt's length estimated from its words.
@Suite struct ReplayVoiceTests {
    let t0 = Date(timeIntervalSince1970: 1_750_000_000)

    /// Prompts end one after another, each its estimated length after the one before; a
    /// callout left waiting more than 10 s is let go when its turn comes, ending then.
    @Test func promptsEndInTurn_andAStaleCalloutIsLetGo() throws {
        var voice = ReplayVoice(origin: t0)
        let question = FinalApproach.Prompt(
            "입구에 도착했어. A 입구. 층 표시 영. 이 층 출발 홀. 맞으면 여기가 입구야, 아니면 여기 아니야라고 말해줘.")
        let start = FinalApproach.Prompt(Prompts.start("Test Hall"))
        let callout = FinalApproach.Prompt("입구까지 삼십 미터, 두 시 방향", isCallout: true)
        #expect(voice.say(start, at: t0).isEmpty)
        #expect(voice.say(question, at: t0).isEmpty)
        #expect(voice.say(callout, at: t0 + 1).isEmpty)
        // Within a second of espeak-ng's lengths (3.4 s and 11.2 s).
        let finishedFirst = voice.finish()
        let first = try #require(finishedFirst)
        #expect(first.ended == [start])
        #expect(abs(first.at.timeIntervalSince(t0) - 3.4) < 1)
        let finishedSecond = voice.finish()
        let second = try #require(finishedSecond)
        #expect(second.ended.first == question)
        #expect(abs(second.at.timeIntervalSince(first.at) - 11.2) < 1)
        // The callout, queued at 1 s, is 14 s old when the question ends: let go, not said.
        #expect(second.ended == [question, callout])
        #expect(voice.finish() == nil)
    }
}
