import Arrival
import Foundation
import Geo
import TestSupport
import Testing

@testable import Daemon

/// The daemon's door lookups on a directory of regional indexes, without a daemon around them.
@Suite struct DaemonLookupsTests {
    /// Busan's box inside Gyeongnam's, 김해 건물 only in Gyeongnam's, and a stray `notes.db`.
    /// Before: the destination's doors came from Busan's (the smaller box): none; and the
    /// stray file failed every lookup ("notes.db: not a door index").
    @Test func doorsComeFromTheRegionWithTheBuildingAndAStrayFileIsAWarning() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let doors = dir.path + "/doors"
        for (name, buildings) in [
            ("busan", [(35.05, 128.95, "부산 남서"), (35.30, 129.25, "부산 북동")]),
            ("gyeongnam", [(35.28, 128.97, "김해 건물"), (34.80, 127.80, "진주 쪽")]),
        ] {
            let xml = squareBuildingsXML(
                buildings.map {
                    SquareBuilding(lat: $0.0, lon: $0.1, tags: ["building": "yes", "name": $0.2])
                })
            try xml.write(toFile: "\(dir.path)/\(name).osm", atomically: true, encoding: .utf8)
            let imported = try runCapturing(
                try BuiltExecutable.pathfinder().path,
                ["doors", "import", "\(dir.path)/\(name).osm", "--out", "\(doors)/\(name).db"])
            try #require(imported.status == 0, "\(imported.text)")
        }
        #expect(FileManager.default.createFile(atPath: doors + "/notes.db", contents: Data()))
        var warnings: [String] = []
        let lookups = DaemonLookups(doors: doors, gazetteer: nil) { warnings.append($0) }
        let found = try lookups.doors(
            for: Destination(name: "김해 건물", center: Coordinate(latitude: 35.28, longitude: 128.97)))
        #expect(found.map(\.coordinate) == [Coordinate(latitude: 35.2799, longitude: 128.97)])
        _ = try lookups.doors(
            for: Destination(name: "부산", center: Coordinate(latitude: 35.05, longitude: 128.95)))
        #expect(warnings.count == 1, "\(warnings)")
        #expect(
            warnings.first?.hasPrefix(
                "door index: skipped \(doors)/notes.db: not a door index: no meta table") == true)
    }
}
