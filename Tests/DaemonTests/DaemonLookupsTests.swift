import Arrival
import Foundation
import Geo
import TestSupport
import Testing

@testable import Daemon

/// The daemon's door lookups on a directory of regional indexes, without a daemon around them.
@Suite struct DaemonLookupsTests {
    /// Imports square buildings (latitude, longitude, name) from `dir/NAME.osm` into
    /// `doors/OUT.db` (`out` defaults to `name`) with the binary, as a family imports a region.
    static func importRegion(
        _ name: String, _ buildings: [(Double, Double, String)], dir: String, doors: String,
        out: String? = nil
    ) throws {
        let xml = squareBuildingsXML(
            buildings.map { SquareBuilding(lat: $0.0, lon: $0.1, tags: ["building": "yes", "name": $0.2]) })
        try xml.write(toFile: "\(dir)/\(name).osm", atomically: true, encoding: .utf8)
        let imported = try runCapturing(
            try BuiltExecutable.pathfinder().path,
            ["doors", "import", "\(dir)/\(name).osm", "--out", "\(doors)/\(out ?? name).db"])
        try #require(imported.status == 0, "\(imported.text)")
    }

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
            try Self.importRegion(name, buildings, dir: dir.path, doors: doors)
        }
        #expect(FileManager.default.createFile(atPath: doors + "/notes.db", contents: Data()))
        var warnings: [String] = []
        let lookups = DaemonLookups(doors: doors, gazetteer: nil) { warnings.append($0) }
        let found = try lookups.doors(
            for: Destination(name: "김해 건물", center: Coordinate(latitude: 35.28, longitude: 128.97)))
        #expect(found.doors.map(\.coordinate) == [Coordinate(latitude: 35.2799, longitude: 128.97)])
        _ = try lookups.doors(
            for: Destination(name: "부산", center: Coordinate(latitude: 35.05, longitude: 128.95)))
        #expect(warnings.count == 1, "\(warnings)")
        #expect(
            warnings.first?.hasPrefix(
                "door index: skipped \(doors)/notes.db: not a door index: no meta table") == true)
    }

    /// A region imported into the directory while the daemon runs is used from the next
    /// lookup, and so is one imported again in place (before: the indexes first opened were
    /// kept until a restart: "outside the door indexes", and the old building).
    @Test func aRegionImportedWhileRunningIsUsedAtTheNextLookup() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let doors = dir.path + "/doors"
        func importRegion(_ name: String, _ lat: Double, _ lon: Double) throws {
            try Self.importRegion(
                name, [(lat, lon, name)], dir: dir.path, doors: doors, out: name == "시청2" ? "시청" : name)
        }
        try importRegion("부산", 35.05, 128.95)
        var notes: [String] = []
        let lookups = DaemonLookups(doors: doors, gazetteer: nil, info: { notes.append($0) })
        let busan = Destination(name: "부산", center: Coordinate(latitude: 35.05, longitude: 128.95))
        #expect(try lookups.doors(for: busan).doors.count == 1)
        let seoul = Destination(name: "시청", center: Coordinate(latitude: 37.5663, longitude: 126.9779))
        #expect(throws: LookupError.self) { try lookups.doors(for: seoul) }

        try importRegion("시청", 37.5663, 126.9779)
        #expect(
            try lookups.doors(for: seoul).doors.map(\.coordinate) == [
                Coordinate(latitude: 37.5662, longitude: 126.9779)
            ])
        #expect(notes == ["door index \(doors): its files changed; opened again"], "\(notes)")
        #expect(try lookups.doors(for: busan).doors.count == 1, "unchanged files: not opened again")
        #expect(notes.count == 1)

        // Imported again, the building moved 300 m north: the new file answers.
        try importRegion("시청2", 37.5690, 126.9779)
        let moved = Destination(name: "시청", center: Coordinate(latitude: 37.5690, longitude: 126.9779))
        #expect(
            try lookups.doors(for: moved).doors.map(\.coordinate) == [
                Coordinate(latitude: 37.5689, longitude: 126.9779)
            ])
    }

    /// The set the start-up check opened answers the first lookup while its files are as they
    /// were (no second open: nothing said); a region imported between the check and the first
    /// lookup opens them again, as any change does later.
    @Test func theSetOpenedAtStartIsUsedUntilItsFilesChange() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let doors = dir.path + "/doors"
        func importRegion(_ name: String, _ lat: Double, _ lon: Double) throws {
            try Self.importRegion(name, [(lat, lon, name)], dir: dir.path, doors: doors)
        }
        try importRegion("부산", 35.05, 128.95)
        #expect(FileManager.default.createFile(atPath: doors + "/notes.db", contents: Data()))
        let busan = Destination(name: "부산", center: Coordinate(latitude: 35.05, longitude: 128.95))
        let seoul = Destination(name: "시청", center: Coordinate(latitude: 37.5663, longitude: 126.9779))

        var said: [String] = []
        let unchanged = DaemonLookups(
            doors: doors, gazetteer: nil, opened: try DaemonLookups.open(doors: doors),
            warn: { said.append($0) },
            info: { said.append($0) })
        #expect(try unchanged.doors(for: busan).doors.count == 1)
        #expect(said.isEmpty, "opened again: \(said)")

        let atStart = try DaemonLookups.open(doors: doors)
        try importRegion("시청", 37.5663, 126.9779)
        let changed = DaemonLookups(
            doors: doors, gazetteer: nil, opened: atStart, warn: { said.append($0) },
            info: { said.append($0) })
        #expect(try changed.doors(for: seoul).doors.count == 1)
        #expect(said.contains("door index \(doors): its files changed; opened again"), "\(said)")
    }

    /// A gazetteer replaced in place (a new build renamed over it) is closed by the daemon's
    /// periodic check, said once, and opened again at its next use: its old file is no longer
    /// held, deleted (before: the first file opened was held until a restart).
    @Test func aGazetteerReplacedInPlaceIsClosedByTheCheck() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let path = dir.path + "/gazetteer.sqlite"
        let source = GazetteerDaemonTests.repo + "/artifacts/gazetteer/gazetteer.sqlite"
        try FileManager.default.copyItem(atPath: source, toPath: path)
        var notes: [String] = []
        let lookups = DaemonLookups(doors: nil, gazetteer: path, info: { notes.append($0) })
        let helsinki = Coordinate(latitude: 60.1699, longitude: 24.9384)
        let before = try lookups.place(at: helsinki)
        lookups.letGoOfReplacedFiles()
        #expect(notes.isEmpty, "unchanged: \(notes)")
        try FileManager.default.copyItem(atPath: source, toPath: path + ".new")
        #expect(rename(path + ".new", path) == 0)
        lookups.letGoOfReplacedFiles()
        #expect(
            notes == ["gazetteer \(path): its file changed; closed, opened again at its next use"], "\(notes)"
        )
        #expect(!DaemonStartupTests.openFiles(getpid()).contains(path + " (deleted)"))
        #expect(try lookups.place(at: helsinki) == before)
    }

    /// `go` with a Korean address as people paste it finds the building by its street and
    /// number, and the answer says which shorter form found it (before: "no place called").
    @Test func aPastedKoreanAddressIsFoundAndSaidSo() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let doors = dir.path + "/doors"
        let xml = squareBuildingsXML([
            SquareBuilding(
                lat: 37.5663, lon: 126.9779,
                tags: [
                    "building": "public", "name": "서울특별시청", "addr:street": "세종대로", "addr:housenumber": "110",
                ])
        ])
        try xml.write(toFile: dir.path + "/seoul.osm", atomically: true, encoding: .utf8)
        let imported = try runCapturing(
            try BuiltExecutable.pathfinder().path,
            ["doors", "import", dir.path + "/seoul.osm", "--out", doors + "/seoul.db"])
        try #require(imported.status == 0, "\(imported.text)")
        let lookups = DaemonLookups(doors: doors, gazetteer: nil)
        let near = Coordinate(latitude: 37.5651, longitude: 126.9770)
        let answer = try lookups.destination(for: "서울특별시 중구 세종대로 110 (태평로1가)", near: near, far: false)
        #expect(answer.chosen.destination.name == "서울특별시청")
        #expect(answer.matchedQuery == "세종대로 110")
        let asWritten = try lookups.destination(for: "세종대로 110", near: near, far: false)
        #expect(asWritten.matchedQuery == nil)
        #expect(throws: LookupError.self) {
            try lookups.destination(for: "해군 작전 사령부", near: near, far: false)
        }
    }

    /// Without a fix, an address held by five buildings of a complex in one city (lower OSM
    /// ids) and by one in a city 330 km away is refused, naming both cities' buildings, though
    /// the first four matches by id are all in the first city; the reply offers them. With a
    /// fix in either city, its own. Before (with only the first matches looked at): the
    /// complex was chosen, unsaid.
    @Test func anAddressOfManyBuildingsInOneCityAndOneFarIsRefusedWithoutAFix() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let tags = ["building": "apartments", "addr:street": "시청로", "addr:housenumber": "1"]
        let busan = (0..<5).map { SquareBuilding(lat: 35.10 + Double($0) * 0.0005, lon: 129.03, tags: tags) }
        let xml = squareBuildingsXML(busan + [SquareBuilding(lat: 37.5700, lon: 126.9800, tags: tags)])
        try xml.write(toFile: dir.path + "/k.osm", atomically: true, encoding: .utf8)
        let imported = try runCapturing(
            try BuiltExecutable.pathfinder().path,
            ["doors", "import", dir.path + "/k.osm", "--out", dir.path + "/k.db"])
        try #require(imported.status == 0, "\(imported.text)")
        let lookups = DaemonLookups(doors: dir.path + "/k.db", gazetteer: nil)
        do {
            let answer = try lookups.destination(for: "시청로 1", near: nil, far: false)
            Issue.record("chosen without a fix: \(answer.chosen)")
        } catch {
            #expect(error.description.contains("more than 50 km apart"), "\(error)")
            #expect(error.description.contains("(37.57,126.98)"), "\(error)")
            let osm = error.alternatives.compactMap { $0.objectValue?["osm"]?.stringValue }
            #expect(osm.first == "way/1" && osm.contains("way/6"), "\(osm)")
        }
        let seoul = try lookups.destination(
            for: "시청로 1", near: Coordinate(latitude: 37.5701, longitude: 126.9800), far: false)
        #expect(seoul.chosen.osm == "way/6")
        let there = try lookups.destination(
            for: "시청로 1", near: Coordinate(latitude: 35.1001, longitude: 129.0300), far: false)
        #expect(there.chosen.osm == "way/1")
    }

    /// A shorter form that finds a place too far does not end the search: the next, shorter
    /// one finds the building within reach (before, in this stop: "found 부산 건물, 330 km away"
    /// for "서울 중구 중앙대로 10" by the walker's own 중앙대로 10).
    @Test func aFormFoundTooFarGivesWayToANearerOne() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let xml = squareBuildingsXML([
            SquareBuilding(
                lat: 35.10, lon: 129.03,
                tags: ["building": "yes", "name": "부산 건물", "addr:full": "중구 중앙대로 10"]),
            SquareBuilding(
                lat: 37.5700, lon: 126.9800,
                tags: ["building": "yes", "name": "서울 건물", "addr:street": "중앙대로", "addr:housenumber": "10"]),
        ])
        try xml.write(toFile: dir.path + "/k.osm", atomically: true, encoding: .utf8)
        let imported = try runCapturing(
            try BuiltExecutable.pathfinder().path,
            ["doors", "import", dir.path + "/k.osm", "--out", dir.path + "/k.db"])
        try #require(imported.status == 0, "\(imported.text)")
        let lookups = DaemonLookups(doors: dir.path + "/k.db", gazetteer: nil)
        let answer = try lookups.destination(
            for: "서울 중구 중앙대로 10", near: Coordinate(latitude: 37.5690, longitude: 126.9800), far: false)
        #expect(answer.chosen.destination.name == "서울 건물")
        #expect(answer.matchedQuery == "중앙대로 10")
    }

    /// `go` with an address of the bundled Helsinki index as a family member sends it: a house
    /// number it does not hold is no other house (before: "Mannerheimintie 1" walked to Marski
    /// by Scandic, Mannerheimintie 10, unsaid); a house letter, a flat or a postcode and city
    /// after the number find the building by the street and number, and the answer says so
    /// (before: "no place called").
    @Test func anAddressWithAHouseNumberGoesToThatHouseOrSaysWhichFormFoundIt() throws {
        let repo = GazetteerDaemonTests.repo
        let lookups = DaemonLookups(
            doors: repo + "/artifacts/doors/helsinki.db",
            gazetteer: repo + "/artifacts/gazetteer/gazetteer.sqlite")
        let corner = Coordinate(latitude: 60.1699, longitude: 24.9384)
        for fix in [nil, corner] {
            do {
                let answer = try lookups.destination(for: "Mannerheimintie 1", near: fix, far: false)
                #expect(
                    !["relation/5608", "way/58023634"].contains(answer.chosen.osm ?? ""),
                    "\(String(describing: answer.chosen.address))")
            } catch {
                #expect(error.nothingFound, "\(error)")
            }
            // A letter the index lacks is no other letter's house (before: Keskuskatu 1b, 2a).
            // Keskuskatu 1a and 3b are in it (address points inside Kirjatalo and its neighbour).
            // Nor a range sharing only an end with the lot 3-5, Fasaanilinna (audit 15).
            for (query, wrong) in [
                ("Keskuskatu 1D", "way/34079466"), ("Kaisaniemenkatu 2 C", "way/135980458"),
                ("Keskuskatu 3 C", "way/34079465"), ("Iso Roobertinkatu 1-3", "way/123554599"),
            ] {
                do {
                    let answer = try lookups.destination(for: query, near: fix, far: false)
                    #expect(answer.chosen.source != "doors", "\(query): \(answer.chosen.osm ?? "")")
                    #expect(answer.chosen.osm != wrong, "\(query)")
                } catch {
                    #expect(error.nothingFound, "\(query): \(error)")
                }
            }
            for (query, form, osm) in [
                ("Mannerheimintie 5A", "Mannerheimintie 5", "way/224711434"),
                ("Mannerheimintie 5 A 12", "Mannerheimintie 5", "way/224711434"),
                ("Kaivokatu 10, 00100 Helsinki", "Kaivokatu 10", "way/23648033"),
            ] {
                let answer = try lookups.destination(for: query, near: fix, far: false)
                #expect(answer.chosen.osm == osm, "\(query)")
                #expect(answer.matchedQuery == form, "\(query)")
            }
            let lettered = try lookups.destination(for: "Mannerheimintie 13 A", near: fix, far: false)
            #expect(lettered.chosen.osm == "way/58023634" && lettered.matchedQuery == nil)
        }
    }

    /// `go Stockmann` in the bundled Helsinki index walks to the department store whose own
    /// name it is, with a fix nearer Kirjatalo (which holds a shop of that name) or none, and
    /// for the typo "Stockman"; a shop's name alone still walks to the building holding it.
    /// Before: "목적지는 Kirjatalo".
    @Test func goToANameGoesToTheBuildingOfThatNameBeforeAShopOfIt() throws {
        let repo = GazetteerDaemonTests.repo
        let lookups = DaemonLookups(
            doors: repo + "/artifacts/doors/helsinki.db",
            gazetteer: repo + "/artifacts/gazetteer/gazetteer.sqlite")
        // East of both: Kirjatalo ≈ 353 m, Stockmann ≈ 435 m.
        let east = Coordinate(latitude: 60.1680, longitude: 24.9500)
        for query in ["Stockmann", "Stockman"] {
            for fix in [nil, east] {
                let answer = try lookups.destination(for: query, near: fix, far: false)
                #expect(answer.chosen.destination.name == "Stockmann", "\(query) \(String(describing: fix))")
                #expect(answer.chosen.osm == "way/122595241", "\(query)")
                #expect(answer.alternatives.first?.osm == "way/34079467", "\(query)")
            }
        }
        let shop = try lookups.destination(for: "Akateeminen Kirjakauppa", near: east, far: false)
        #expect(shop.chosen.destination.name == "Kirjatalo" && shop.chosen.osm == "way/34079467")
    }

    /// The same order where the fix's own region has no such name and the matches come from
    /// another region's index, and without a fix (every index, merged): before, the building
    /// holding the shop came first there too, by its distance or its id.
    @Test func goToANameFromAnotherRegionKeepsTheBuildingOfThatNameFirst() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let doors = dir.path + "/doors"
        try FileManager.default.createDirectory(atPath: doors, withIntermediateDirectories: true)
        try Self.importRegion("here", [(60.1700, 24.9400, "Asema")], dir: dir.path, doors: doors)
        // Way 1 (the lower id, the nearer) holds a shop named Stockmann; way 2 is Stockmann.
        let xml = squareBuildingsXML([
            SquareBuilding(lat: 60.1750, lon: 24.9400, tags: ["building": "retail", "name": "Kirjatalo"]),
            SquareBuilding(lat: 60.1760, lon: 24.9400, tags: ["building": "retail", "name": "Stockmann"]),
        ])
        let shop =
            #" <node id="9001" lat="60.1750000" lon="24.9400000"><tag k="name" v="Stockmann"/><tag k="shop" v="books"/></node>"#
        let withShop = xml.replacingOccurrences(of: " <way id=\"1\">", with: shop + "\n <way id=\"1\">")
        #expect(withShop != xml)
        try withShop.write(toFile: dir.path + "/there.osm", atomically: true, encoding: .utf8)
        let imported = try runCapturing(
            try BuiltExecutable.pathfinder().path,
            ["doors", "import", dir.path + "/there.osm", "--out", doors + "/there.db"])
        try #require(imported.status == 0, "\(imported.text)")
        let lookups = DaemonLookups(doors: doors, gazetteer: nil)
        for fix in [Coordinate(latitude: 60.1700, longitude: 24.9400), nil] {
            let answer = try lookups.destination(for: "Stockmann", near: fix, far: false)
            #expect(answer.chosen.destination.name == "Stockmann", "\(String(describing: fix))")
            #expect(
                answer.alternatives.map(\.destination.name) == ["Kirjatalo"], "\(String(describing: fix))")
        }
    }

    /// `go Alepa` with a fix walks to the building holding an Alepa shop 300 m away, not to
    /// the building named Alepa 2 km away: a match only by a shop inside counts
    /// `BuildingMatch.insideSlackMetres` (250 m) further, no more; so a near-tie still goes to
    /// the building of that name (Stockmann 505 m before a shop named so 500 m away). The
    /// same in another region's index beyond reach (60.3 km + 250 m before 62 km). Without a
    /// fix, the building of that name. Before: the building 2 km away (own name first at any
    /// distance), the walker sent across the city.
    @Test func goToAChainNameGoesToItsShopNearbyBeforeABuildingOfThatNameFar() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let doors = dir.path + "/doors"
        try FileManager.default.createDirectory(atPath: doors, withIntermediateDirectories: true)
        let fix = Coordinate(latitude: 60.1700, longitude: 24.9400)
        /// Buildings at (metres, bearing) from the fix, named so or holding a shop of the name.
        func region(_ name: String, _ buildings: [(Double, Double, String, shop: Bool)]) throws {
            var xml = squareBuildingsXML(
                buildings.enumerated().map { k, b in
                    let at = fix.offset(metres: b.0, bearing: b.1)
                    return SquareBuilding(
                        lat: at.latitude, lon: at.longitude,
                        tags: ["building": "yes", "name": b.shop ? "Talo \(k + 1)" : b.2])
                })
            for (k, b) in buildings.enumerated() where b.shop {
                let at = fix.offset(metres: b.0, bearing: b.1)
                let lat = String(format: "%.7f", at.latitude)
                let lon = String(format: "%.7f", at.longitude)
                let node =
                    #" <node id="\#(9001 + k)" lat="\#(lat)" lon="\#(lon)"><tag k="name" v="\#(b.2)"/><tag k="shop" v="supermarket"/></node>"#
                xml = xml.replacingOccurrences(of: " <way id=\"1\">", with: node + "\n <way id=\"1\">")
            }
            try xml.write(toFile: "\(dir.path)/\(name).osm", atomically: true, encoding: .utf8)
            let imported = try runCapturing(
                try BuiltExecutable.pathfinder().path,
                ["doors", "import", "\(dir.path)/\(name).osm", "--out", "\(doors)/\(name).db"])
            try #require(imported.status == 0, "\(imported.text)")
        }
        try region(
            "here",
            [
                (2_000, 0, "Alepa", false), (300, 90, "Alepa", true), (505, 180, "Stockmann", false),
                (500, 270, "Stockmann", true),
            ])
        try region("there", [(62_000, 0, "Prisma", false), (60_300, 10, "Prisma", true)])
        let lookups = DaemonLookups(doors: doors, gazetteer: nil)
        func order(_ query: String, _ fix: Coordinate?) throws -> [String] {
            let answer = try lookups.destination(for: query, near: fix, far: true)
            return ([answer.chosen] + answer.alternatives).map { "\($0.destination.name) \($0.osm ?? "")" }
        }
        #expect(try order("Alepa", fix) == ["Talo 2 way/2", "Alepa way/1"])
        let alepa = try lookups.destination(for: "Alepa", near: fix, far: false)
        #expect(abs((alepa.chosen.metres ?? 0) - 300) < 5, "\(alepa.chosen)")
        #expect(try order("Stockmann", fix) == ["Stockmann way/3", "Talo 4 way/4"])
        #expect(try order("Prisma", fix) == ["Talo 2 way/2", "Prisma way/1"])
        #expect(try order("Alepa", nil) == ["Alepa way/1", "Talo 2 way/2"])
        #expect(try order("Prisma", nil) == ["Prisma way/1", "Talo 2 way/2"])
    }

    /// Two regions side by side, the walker inside north's box 155 m from south's: `go` asks
    /// every index whose box is within reach (``DaemonLookups/farMetres``) as one, nearest
    /// first within a quality. Before: north's index (the one nearest the fix) came first, so
    /// its 한빛 약국 3.4 km away was chosen over south's 170 m away, and for "한빛" north's
    /// far building came before south's near one.
    @Test func indexesWithinReachAreAskedAsOne() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let doors = dir.path + "/doors"
        try Self.importRegion(
            "north",
            [(37.5700, 127.0000, "북쪽 끝 건물"), (37.5705, 127.0005, "한빛 약국 본점"), (37.6000, 127.0300, "한빛 약국")],
            dir: dir.path, doors: doors)
        try Self.importRegion(
            "south", [(37.5690, 127.0005, "한빛 약국"), (37.5400, 126.9800, "남쪽 건물")], dir: dir.path, doors: doors
        )
        let lookups = DaemonLookups(doors: doors, gazetteer: nil)
        let walker = Coordinate(latitude: 37.5705, longitude: 127.0005)
        let exact = try lookups.destination(for: "한빛 약국", near: walker, far: false)
        #expect(exact.chosen.osm == "way/1" && abs((exact.chosen.metres ?? 0) - 167) < 5, "\(exact.chosen)")
        #expect(exact.alternatives.map(\.osm) == ["way/3", "way/2"])
        let start = try lookups.destination(for: "한빛", near: walker, far: false)
        #expect(
            ([start.chosen] + start.alternatives).map { "\($0.destination.name) \($0.osm ?? "")" } == [
                "한빛 약국 본점 way/2", "한빛 약국 way/1", "한빛 약국 way/3",
            ])
    }

    /// Overlapping indexes, within reach (two copies of the walker's region) and beyond it
    /// (two copies of a region 63 km off): `go`'s choice and alternatives name each building
    /// once, by its OSM id. Before: 한빛 약국 way/1 was chosen and offered again as the first
    /// alternative, 본점 twice after it, and the far 지점 not offered.
    @Test func overlappingIndexesOfferEachBuildingOnce() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let doors = dir.path + "/doors"
        try Self.importRegion(
            "near", [(37.5690, 127.0005, "한빛 약국"), (37.5705, 127.0005, "한빛 약국 본점")], dir: dir.path,
            doors: doors)
        try Self.importRegion(
            "far", [(37.0, 127.0, "먼 건물"), (37.0, 127.001, "또 먼 건물"), (37.0, 127.002, "한빛 약국 지점")],
            dir: dir.path, doors: doors)
        for name in ["near", "far"] {
            try FileManager.default.copyItem(
                atPath: "\(doors)/\(name).db", toPath: "\(doors)/\(name)-copy.db")
        }
        let lookups = DaemonLookups(doors: doors, gazetteer: nil)
        let answer = try lookups.destination(
            for: "한빛 약국", near: Coordinate(latitude: 37.5700, longitude: 127.0005), far: false)
        #expect(
            ([answer.chosen] + answer.alternatives).map { "\($0.destination.name) \($0.osm ?? "")" } == [
                "한빛 약국 way/1", "한빛 약국 본점 way/2", "한빛 약국 지점 way/3",
            ])
    }

    /// The destination's doors for the last stretch, the destination 26 m west of a building
    /// only the east region's index holds, outside that index's box (which starts at the
    /// building's west wall) and inside the west region's, whose buildings are 200 m off or
    /// more. An index whose box comes within reach is asked too: the east building's main
    /// door. Before: the west index alone (the only box holding the point): no building, no
    /// door, so the walk went to the centre.
    @Test func theLastStretchAsksAnIndexWhoseBoxIsBesideThePoint() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let doors = dir.path + "/doors"
        try Self.importRegion(
            "west", [(37.4980, 126.9980, "서쪽 건물"), (37.5050, 127.0050, "서쪽 북동 건물")], dir: dir.path,
            doors: doors)
        try Self.importRegion(
            "east", [(37.5000, 127.0004, "동쪽 건물"), (37.5200, 127.0300, "동쪽 먼 건물")], dir: dir.path,
            doors: doors)
        let lookups = DaemonLookups(doors: doors, gazetteer: nil)
        let found = try lookups.doors(
            for: Destination(name: "동쪽 건물", center: Coordinate(latitude: 37.5000, longitude: 127.0000)))
        #expect(found.doors.map(\.coordinate) == [Coordinate(latitude: 37.4999, longitude: 127.0004)])
        #expect(found.remembered != nil, "the east building is found beside the point, not only its doors")
        // Nothing within reach of a point in neither box: still outside the indexes.
        #expect(throws: LookupError.self) {
            try lookups.doors(
                for: Destination(name: "멀리", center: Coordinate(latitude: 37.45, longitude: 127.0)))
        }
    }
}
