import Arrival
import Foundation
import Geo
import Testing

/// A made-up building in Seoul (40 m square, centre 37.5° N 127° E, "새건물") whose OSM doors
/// are A (`entrance=main`, the middle of its south wall) and B (`entrance=yes`, the north
/// wall), and a walk to A: from 81 m south of A at 1.4 m/s to 1 m south of it (t = 58 s), then
/// standing there 30 s. The trace begins 2026-06-15T10:00:00Z. (Stop 44's audit through
/// `replay`, rebuilt here.)
enum TwoDoorBuilding {
    static let name = "새건물"
    static let center = Coordinate(latitude: 37.5, longitude: 127.0)
    static let start = Date(timeIntervalSince1970: 1_781_517_600)  // 2026-06-15T10:00:00Z
    static let doorA = center.offset(metres: 20, bearing: 180)
    static let doorB = center.offset(metres: 20, bearing: 0)

    static var destination: String {
        #"{"name": "\#(name)", "center": {"lat": \#(center.latitude), "lon": \#(center.longitude)}}"#
    }

    /// The building's outline with A on its south wall and B on its north wall.
    static var osm: String {
        let north = center.offset(metres: 20, bearing: 0).latitude
        let south = center.offset(metres: 20, bearing: 180).latitude
        let west = center.offset(metres: 20, bearing: 270).longitude
        let east = center.offset(metres: 20, bearing: 90).longitude
        func node(_ id: Int, _ lat: Double, _ lon: Double, _ tags: String = "") -> String {
            let at = String(format: #"<node id="%d" lat="%.9f" lon="%.9f""#, id, lat, lon)
            return tags.isEmpty ? at + "/>\n" : at + ">" + tags + "</node>\n"
        }
        return #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n<osm version=\"0.6\">\n"
            + node(1, north, west)
            + node(2, doorB.latitude, doorB.longitude, #"<tag k="entrance" v="yes"/><tag k="ref" v="B"/>"#)
            + node(3, north, east) + node(4, south, east)
            + node(5, doorA.latitude, doorA.longitude, #"<tag k="entrance" v="main"/><tag k="ref" v="A"/>"#)
            + node(6, south, west)
            + #"<way id="1">"# + [1, 2, 3, 4, 5, 6, 1].map { #"<nd ref="\#($0)"/>"# }.joined()
            + #"<tag k="building" v="yes"/></way>"# + "\n</osm>\n"
    }

    /// The walk to A, one RMC, GGA and GST a second (σ 3 m).
    static var nmea: String {
        let from = doorA.offset(metres: 81, bearing: 180)
        var points = (0...58).map { from.offset(metres: 80 * Double($0) / 58, bearing: 0) }
        points += Array(repeating: points[points.count - 1], count: 30)
        let time = DateFormatter()
        time.locale = Locale(identifier: "en_US_POSIX")
        time.timeZone = TimeZone(identifier: "UTC")
        time.dateFormat = "HHmmss.SS,ddMMyy"
        func minutes(_ degrees: Double, _ width: Int) -> String {
            let whole = Int(degrees)
            return String(format: "%0\(width)d%010.7f", whole, (degrees - Double(whole)) * 60)
        }
        var text = ""
        for (t, p) in points.enumerated() {
            let stamp = time.string(from: start + Double(t)).split(separator: ",")
            let (hms, dmy) = (String(stamp[0]), String(stamp[1]))
            let at = "\(minutes(p.latitude, 2)),N,\(minutes(p.longitude, 3)),E"
            let knots = t < 58 ? 1.4 / 0.514444 : 0
            text += ReplayInputTests.sentence(
                String(format: "GPRMC,%@,A,%@,%.2f,0.0,%@,,,A", hms, at, knots, dmy))
            text += ReplayInputTests.sentence("GPGGA,\(hms),\(at),1,09,0.8,30.0,M,18.0,M,,")
            text += ReplayInputTests.sentence("GPGST,\(hms),3.0,,,,3.0,3.0,4.0")
        }
        return text
    }

    /// A memory of 200 buildings far from this one (a grid 3 km east), building `i` changed
    /// `i` hours before `newest`; those in `walkerTaught` hold a rejection.
    /// `oldestFirst`: listed from the least recently changed, as a hand-edited or merged file
    /// may be.
    static func memory(walkerTaught: (Int) -> Bool, newest: Date, oldestFirst: Bool = false) throws -> String
    {
        let iso = ISO8601DateFormatter()
        let base = center.offset(metres: 3000, bearing: 90)
        var buildings: [[String: Any]] = []
        for i in 0..<200 {
            let c = base.offset(metres: Double(i % 20) * 300, bearing: 90).offset(
                metres: Double(i / 20) * 300, bearing: 0)
            var b: [String: Any] = [
                "name": String(format: "B%03d", i), "center": ["lat": c.latitude, "lon": c.longitude],
                "changed": iso.string(from: newest - Double(i) * 3600),
            ]
            if walkerTaught(i) {
                let r = c.offset(metres: 10, bearing: 0)
                b["rejected"] = [["lat": r.latitude, "lon": r.longitude]]
            }
            buildings.append(b)
        }
        if oldestFirst { buildings.reverse() }
        let data = try JSONSerialization.data(withJSONObject: ["version": 1, "buildings": buildings])
        return String(decoding: data, as: UTF8.self)
    }

    /// `replay` of the walk with `heard` and OSM's doors from the building's file, the memory
    /// `memory` (JSON) written to a file first; the event log and the memory as written.
    static func replay(
        memory: String, heard: String, _ more: [String] = []
    ) async throws -> (
        events: [[String: Any]], memory: String
    ) {
        let scratch = try Scratch()
        let memoryFile = try scratch.write("memory.json", memory)
        let r = await runPathfinder(
            [
                "replay", "--nmea", try scratch.write("walk.nmea", nmea), "--destination",
                try scratch.write("dest.json", destination), "--osm", try scratch.write("doors.osm", osm),
                "--heard", try scratch.write("heard.tsv", heard), "--memory", memoryFile,
            ] + more)
        #expect(r.code == 0, "\(r.err)")
        return (eventLines(r.out), try String(contentsOfFile: memoryFile, encoding: .utf8))
    }
}

/// "여기 아니야" re-plans from the doors the walk knows, not only from what the memory kept.
@Suite("replay: the doors a walk knows")
struct ReplayKnownDoorsTests {
    /// What happened after "여기 아니야" at 70 s: the story of the events from then on.
    static func afterTheAnswer(_ events: [[String: Any]]) -> [String] {
        events.filter { ($0["t"] as? Double ?? 0) >= 70 }.compactMap { e -> String? in
            switch e["event"] as? String {
            case "rejected": "rejected \((e["door"] as? [String: Any])?["label"] as? String ?? "?")"
            case "walkEnded": "walkEnded \(e["reason"] as? String ?? "?")"
            case "plan":
                "plan \(e["reason"] as? String ?? "?") \(((e["plan"] as? [String: Any])?["entrance"] as? [String: Any])?["label"] as? String ?? "centre")"
            case "say": (e["callout"] as? Bool == true) ? nil : e["text"] as? String
            default: nil
            }
        }
    }

    /// The story of leading on to door B.
    static func ledOnToB(_ story: [String]) -> Bool {
        story.count >= 4 && story.prefix(3) == ["rejected A", "walkEnded rejected", "plan rejected B"]
            && story[3].hasPrefix("다른 입구로 안내할게. B 입구")
    }

    /// OSM's doors read for this walk (A, then B) lead it to B after "여기 아니야" at A, though
    /// the memory could not keep them. With 200 buildings remembered, the new building holding
    /// only OSM's doors is trimmed at once when every other one is walker-taught (`before`:
    /// all changed before the trace), or when the others are newer (`after`: a replay of an
    /// older walk; half walker-taught, all 300 days after the trace); and when every one is
    /// walker-taught and newer, even the rejection of A is trimmed with it at once. Before, the
    /// re-plan read the memory alone: "다른 입구는 모르겠어…" and the centre, with B known a
    /// minute earlier.
    @Test(arguments: [("before", 1), ("after", 2), ("after", 1)])
    func aRejection_leadsToOSMsNextDoor_whenTheMemoryDidNotKeepThem(
        changed: String, walkerTaughtEvery: Int
    ) async throws {
        let newest =
            changed == "before"
            ? TwoDoorBuilding.start - 86_400 : TwoDoorBuilding.start + 300 * 86_400
        let memory = try TwoDoorBuilding.memory(walkerTaught: { $0 % walkerTaughtEvery == 0 }, newest: newest)
        let (events, written) = try await TwoDoorBuilding.replay(memory: memory, heard: "70\t여기 아니야\n")
        let plans = events.filter { $0["event"] as? String == "plan" }.compactMap { $0["reason"] as? String }
        #expect(plans.prefix(2) == ["start", "doorsArrived"], "\(plans)")
        let story = Self.afterTheAnswer(events)
        #expect(Self.ledOnToB(story), "\(story)")
        #expect(!story.contains(Prompts.noDoorLeft), "\(story)")
        #expect(written.contains("\"name\" : \"B000\""), "the memory's newest building is kept")
    }

    /// OSM's doors remembered as read 30 days less a minute before the walk: fresh when it
    /// starts (planned A, then B; OSM not asked), stale by "여기 아니야" at 70 s. They stay the
    /// walk's, so it leads on to B, and OSM is not asked during it (the next walk asks). Before,
    /// the re-plan judged them again at the answer: gone, "다른 입구는 모르겠어…", and OSM never
    /// asked either.
    @Test func doorsFreshWhenTheWalkStarted_leadItToTheEnd() async throws {
        let iso = ISO8601DateFormatter()
        let read = iso.string(from: TwoDoorBuilding.start - EntranceMemory.candidatesLifetime + 60)
        func door(_ c: Coordinate, _ label: String) -> String {
            #"{"lat": \#(c.latitude), "lon": \#(c.longitude), "source": "osm", "label": "\#(label)"}"#
        }
        let c = TwoDoorBuilding.center
        let memory = """
            {"version": 1, "buildings": [{"name": "\(TwoDoorBuilding.name)", "center": {"lat": \(c.latitude), \
            "lon": \(c.longitude)}, "changed": "\(read)", "osm": {"read": "\(read)", "doors": \
            [\(door(TwoDoorBuilding.doorA, "A")), \(door(TwoDoorBuilding.doorB, "B"))]}}]}
            """
        let (events, written) = try await TwoDoorBuilding.replay(memory: memory, heard: "70\t여기 아니야\n")
        let start = try #require(events.first { $0["event"] as? String == "plan" })
        let planned = try #require(start["plan"] as? [String: Any])
        #expect((planned["entrance"] as? [String: Any])?["label"] as? String == "A", "\(planned)")
        let story = Self.afterTheAnswer(events)
        #expect(Self.ledOnToB(story), "\(story)")
        #expect(!events.contains { $0["event"] as? String == "doorsRequested" })
        #expect(written.contains("\"read\" : \"\(read)\""), "\(written)")
    }
}
