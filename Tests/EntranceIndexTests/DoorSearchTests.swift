import Foundation
import Geo
import OSM
import SQLite
import TestSupport
import Testing

@testable import EntranceIndex

@Suite("Searching the door index by name and address")
struct DoorSearchTests {
    static let origin = Coordinate(latitude: 45.7640, longitude: 4.8357)
    static let far = origin.offset(metres: 5_000, bearing: 45)

    /// A small grid with hand-made buildings: a French quay address, a Korean road address, a
    /// bakery inside a building, a door with a ref, and two courthouses 5 km apart.
    static func city() -> GridCity {
        var city = GridCity(origin: origin, buildings: 25)
        let base = origin.offset(metres: 400, bearing: 0)
        city.add(
            building: 1_000_000_000, at: base,
            tags: ["building": "yes", "addr:street": "Quai Jean-Charles Rey", "addr:housenumber": "10"])
        city.add(
            building: 1_000_000_010, at: base.offset(metres: 40, bearing: 90),
            tags: ["building": "office", "addr:street": "세종대로", "addr:housenumber": "110"])
        city.add(
            building: 1_000_000_020, at: base.offset(metres: 80, bearing: 90),
            tags: ["building": "retail"])
        city.extraNodes += GridCity.node(
            1_000_000_029, base.offset(metres: 80, bearing: 90).offset(metres: 10, bearing: 45),
            ["shop": "bakery", "name": "Boulangerie Lumière"])
        city.add(
            building: 1_000_000_030, at: base.offset(metres: 120, bearing: 90),
            tags: ["building": "apartments"], door: ["entrance": "staircase", "ref": "B7"])
        city.add(
            building: 1_000_000_040, at: base.offset(metres: 40, bearing: 0),
            tags: ["building": "public", "name": "Palais de Justice"])
        city.add(
            building: 1_000_000_050, at: base.offset(metres: 80, bearing: 0),
            tags: ["building": "public", "name": "Palais de Justice Annexe"])
        city.add(
            building: 1_000_000_060, at: far, tags: ["building": "public", "name": "Palais-de-Justice"])
        city.add(
            building: 1_000_000_070, at: base.offset(metres: 160, bearing: 90),
            tags: ["building": "yes", "addr:street": "5th Avenue", "addr:housenumber": "10"])
        city.add(
            building: 1_000_000_080, at: base.offset(metres: 200, bearing: 90),
            tags: ["building": "public", "name": "서울특별시청"])
        return city
    }

    static func index(_ dir: URL) throws -> DoorIndex {
        let xml = dir.appendingPathComponent("city.osm").path
        let pbf = try city().write(xml: xml)
        let db = dir.appendingPathComponent("city.db").path
        let summary = try DoorImporter.importFile(pbf, to: db)
        #expect(summary.placesInside == 1)
        return try DoorIndex(path: db)
    }

    @Test func addressInEitherOrderFolded() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let index = try Self.index(dir)
        for query in ["10 Quai Jean-Charles Rey", "quai jean charles rey 10", "QUAI JEAN-CHARLES REY, 10"] {
            let first = try #require(try index.search(query).first, "\(query)")
            #expect(first.osm == "way/1000000000", "\(query)")
            #expect(first.quality == .exact)
            #expect(first.address == "Quai Jean-Charles Rey 10")
            #expect(first.metres == nil)
        }
        // The start of an address is a prefix match.
        #expect(try index.search("quai jean").first?.quality == .prefix)
        #expect(try index.search("Nowhere Street 99").isEmpty)
    }

    /// Addresses are stored with the number last; a query that starts with the number is
    /// turned around, whole or as the start of the street.
    @Test func aQueryStartingWithTheHouseNumberIsTurnedAround() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let index = try Self.index(dir)
        let expected: [(String, String, BuildingMatch.Quality)] = [
            ("10 quai jean", "way/1000000000", .prefix),
            ("10 Quai J", "way/1000000000", .prefix),
            ("110 세종대", "way/1000000010", .prefix),
            // A street whose name starts with a digit: the number is the first word only.
            ("10 5th Avenue", "way/1000000070", .exact),
            ("10 5th av", "way/1000000070", .prefix),
            ("5th avenue 10", "way/1000000070", .exact),
        ]
        for (query, osm, quality) in expected {
            let first = try #require(try index.search(query).first, "\(query)")
            #expect(first.osm == osm, "\(query)")
            #expect(first.quality == quality, "\(query)")
        }
        // The wrong number is not the start of that address.
        #expect(try index.search("11 quai jean").first?.quality != .prefix)
        // One order stored.
        var tokens: [String] = []
        try index.db.prepare(
            """
            SELECT token FROM building_whole WHERE building =
                (SELECT id FROM buildings WHERE kind = 'way' AND osm_id = 1000000000)
            """
        ).forEach { tokens.append($0.text(0) ?? "") }
        #expect(tokens == ["quai_jean_charles_rey_10"])
    }

    @Test func numberLastSplitsEveryLeadingRunOfNumbers() {
        let forms = SearchText.numberLast(["10", "5th", "avenue"])
        #expect(forms.map(\.street) == [["5th", "avenue"], ["avenue"]])
        #expect(forms.map(\.number) == [["10"], ["10", "5th"]])
        #expect(SearchText.numberLast(["quai", "10"]).isEmpty)
        #expect(SearchText.numberLast(["10"]).isEmpty)
        #expect(SearchText.numberLast(["10", "12"]).map(\.street) == [["12"]])
    }

    @Test func koreanRoadAddressWithOrWithoutTheSpace() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let index = try Self.index(dir)
        for query in ["세종대로 110", "세종대로110", "110 세종대로"] {
            let first = try #require(try index.search(query).first, "\(query)")
            #expect(first.osm == "way/1000000010", "\(query)")
            #expect(first.quality == .exact, "\(query)")
            #expect(first.address == "세종대로 110")
        }
    }

    /// Two Hangul syllables inside a name find it: "시청" (city hall) in "서울특별시청", the
    /// example docs/doors.md gives (before, a word inside a name needed three letters, and
    /// most Korean place words are two syllables).
    @Test func twoHangulSyllablesInsideANameFindIt() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let index = try Self.index(dir)
        let first = try #require(try index.search("시청").first)
        #expect(first.osm == "way/1000000080" && first.quality == .within)
        // Two Latin letters stay too few to read every row for.
        #expect(try index.search("ai").isEmpty)  // in "Quai" and "Palais"
    }

    /// A query of several words found only inside words ("iltavuorenpenger 10 kes" in
    /// "siltavuorenpenger 10 keskus") finds the buildings reading every row finds: the search
    /// inside words reads only the rows holding its inner words and its last word's start
    /// (`SearchText.withinTerms`), which every such row holds. Runs of the bundled Helsinki
    /// index's own names and addresses, cut inside their first and last words, near a point and
    /// not.
    @Test func wordsFoundInsideWordsAreThoseEveryRowGives() throws {
        let db = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../artifacts/doors/helsinki.db").standardizedFileURL.path
        let index = try DoorIndex(path: db)
        let sql = try Connection(path: db, mode: .readOnly(immutable: true))
        var texts: [String] = []
        try sql.prepare("SELECT names, addresses FROM building_search ORDER BY rowid").forEach { row in
            for column in [0, 1] {
                texts += (row.text(column) ?? "").components(separatedBy: SearchText.separator)
                    .flatMap { $0.components(separatedBy: SearchText.placesSeparator) }
            }
        }
        var asked = 0
        for text in texts.enumerated().filter({ $0.offset % 3 == 0 }).map(\.element) where asked < 60 {
            let words = text.split(separator: " ").map(String.init)
            guard words.count >= 2, words[0].count >= 3, let last = words.last, last.count >= 2 else {
                continue
            }
            let query =
                ([String(words[0].dropFirst())] + words.dropFirst().dropLast() + [String(last.dropLast())])
                .joined(separator: " ")
            guard SearchText.houseNumber(query.split(separator: " ").map(String.init)) == nil else {
                continue
            }
            var every: Set<Int64> = []
            try sql.prepare(
                "SELECT rowid FROM building_search WHERE instr(names, ?1) > 0 OR instr(addresses, ?1) > 0"
            ).forEach([.text(query)]) { every.insert($0.int(0)) }
            for near in [nil, Coordinate(latitude: 60.1699, longitude: 24.9384)] {
                let found = try index.search(query, near: near, limit: every.count + 5)
                guard found.allSatisfy({ $0.quality == .within }) else { continue }
                asked += 1
                #expect(Set(found.map(\.row)) == every, "\(query) near \(String(describing: near))")
            }
        }
        #expect(asked == 60)
    }

    @Test func aShopInsideFindsItsBuildingAndADoorRefFindsItsBuilding() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let index = try Self.index(dir)
        let bakery = try #require(try index.search("boulangerie lumiere").first)
        #expect(bakery.osm == "way/1000000020")
        #expect(bakery.building.name == nil)
        let door = try #require(try index.search("B7").first)
        #expect(door.osm == "way/1000000030")
        #expect(door.doors == 1)
    }

    /// Helsinki's case: "Kirjatalo" (the lower id, the nearer) holds shops named "Stockmann"
    /// and "Stockmann Helsinki Outlet"; the building whose own name is "Stockmann" (alt_name
    /// "Stockmann Helsinki Centre") comes first at every match kind, near or not: whole,
    /// start, all words, inside a word. Before, both were equal and Kirjatalo led by its id
    /// or its distance. A query only a shop matches still finds the building holding it.
    @Test func aBuildingsOwnNameRanksAboveTheNameOfAShopInsideIt() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var city = GridCity(origin: Self.origin, buildings: 4)
        let kirjatalo = Self.origin.offset(metres: 300, bearing: 0)
        let stockmann = kirjatalo.offset(metres: 60, bearing: 270)
        city.add(building: 1_000_000_100, at: kirjatalo, tags: ["building": "retail", "name": "Kirjatalo"])
        for (id, name) in [(1_000_000_105, "Stockmann"), (1_000_000_106, "Stockmann Helsinki Outlet")] {
            city.extraNodes += GridCity.node(
                Int64(id), kirjatalo.offset(metres: 10, bearing: 45), ["shop": "books", "name": name])
        }
        city.add(
            building: 1_000_000_110, at: stockmann,
            tags: [
                "building": "retail", "name": "Stockmann", "alt_name": "Stockmann Helsinki Centre",
                "addr:street": "Aleksanterinkatu", "addr:housenumber": "52",
            ])
        let xml = dir.appendingPathComponent("city.osm").path
        let db = dir.appendingPathComponent("city.db").path
        #expect(try DoorImporter.importFile(try city.write(xml: xml), to: db).placesInside == 2)
        let index = try DoorIndex(path: db)
        // East of Kirjatalo: it is the nearer.
        let east = kirjatalo.offset(metres: 200, bearing: 90)
        for (query, quality) in [
            ("Stockmann", BuildingMatch.Quality.exact), ("Stockman", .prefix), ("helsinki stockmann", .words),
            ("ockman", .within),
        ] {
            for near in [nil, east] {
                let found = try index.search(query, near: near)
                #expect(
                    found.map(\.osm) == ["way/1000000110", "way/1000000100"],
                    "\(query) \(String(describing: near))")
                #expect(found.map(\.quality) == [quality, quality], "\(query)")
                #expect(found.map(\.inside) == [false, true], "\(query)")
            }
        }
        #expect(try index.search("Stockmann", near: east).map { $0.metres! < 250 } == [false, true])
        // Only a shop's name: its building, inside.
        for query in ["Stockmann Helsinki Outlet", "outlet"] {
            let found = try index.search(query)
            #expect(found.map(\.osm) == ["way/1000000100"], "\(query)")
            #expect(found.first?.inside == true, "\(query)")
        }
        // The building's own address is its own.
        #expect(try index.search("Aleksanterinkatu 52").map(\.inside) == [false])
    }

    /// With a point, a building matched only by a place inside counts as
    /// ``BuildingMatch/insideSlackMetres`` (250 m) further away than it is: a chain's shop 300 m
    /// away comes before a building of that name 2 km away, and a building of that name 505 m
    /// away before one holding such a shop 500 m away; own 600 m before inside 400 m (650),
    /// inside 400 m (650) before own 700 m. In one index and merged across two (own in one,
    /// inside in the other); without a point, own first. Before: own first whatever the
    /// distances, so `go Alepa` crossed the city past the Alepa 300 m away.
    @Test(arguments: [false, true])
    func aPlaceInsideCountsAsTheSlackFurtherAway(twoIndexes: Bool) throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let here = Self.origin.offset(metres: 3_000, bearing: 180)
        // Query, the own building's metres, the inside one's, whether inside comes first.
        let pairs: [(String, Double, Double, Bool)] = [
            ("Alepa", 2_000, 300, true), ("Stockmann", 505, 500, false), ("Kesko", 600, 400, false),
            ("Prisma", 700, 400, true),
        ]
        var own = GridCity(origin: Self.far, buildings: 1)
        var inside = GridCity(origin: Self.far.offset(metres: 500, bearing: 0), buildings: 1)
        func southWest(_ metres: Double, _ bearing: Double) -> Coordinate {
            // The centroid of a 20 m square is 10 m north and east of its south-west corner.
            here.offset(metres: metres, bearing: bearing).offset(metres: 10, bearing: 180)
                .offset(metres: 10, bearing: 270)
        }
        for (k, (name, ownMetres, insideMetres, _)) in pairs.enumerated() {
            let id = Int64(1_000_002_000 + 100 * k)
            own.add(
                building: id, at: southWest(ownMetres, Double(90 * k)),
                tags: ["building": "retail", "name": name])
            inside.add(
                building: id + 10, at: southWest(insideMetres, Double(90 * k + 45)),
                tags: ["building": "yes", "name": "Talo \(k)"])
            inside.extraNodes += GridCity.node(
                id + 19, here.offset(metres: insideMetres, bearing: Double(90 * k + 45)),
                ["shop": "supermarket", "name": name])
        }
        if !twoIndexes {
            own.extraNodes += inside.extraNodes
            own.extraWays += inside.extraWays
        }
        let folder = dir.appendingPathComponent("doors").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (name, city) in twoIndexes ? [("own", own), ("inside", inside)] : [("all", own)] {
            let pbf = try city.write(xml: dir.appendingPathComponent("\(name).osm").path)
            let summary = try DoorImporter.importFile(pbf, to: folder + "/\(name).db")
            #expect(summary.placesInside == (name == "own" ? 0 : pairs.count))
        }
        let indexes = try DoorIndexes(path: folder)
        for (k, (name, ownMetres, insideMetres, insideFirst)) in pairs.enumerated() {
            let ownOSM = "way/\(1_000_002_000 + 100 * k)"
            let insideOSM = "way/\(1_000_002_000 + 100 * k + 10)"
            let found = try indexes.search(name, near: here)
            if !twoIndexes {
                // The index's own order, not only the merge's.
                let one = try DoorIndex(path: folder + "/all.db").search(name, near: here)
                #expect(one.map(\.osm) == found.map(\.osm), "\(name)")
            }
            #expect(
                found.map(\.osm) == (insideFirst ? [insideOSM, ownOSM] : [ownOSM, insideOSM]), "\(name)")
            #expect(found.map(\.inside) == (insideFirst ? [true, false] : [false, true]), "\(name)")
            #expect(found.map(\.quality) == [.exact, .exact], "\(name)")
            let metres = found.map { $0.metres ?? -1 }
            let expected = insideFirst ? [insideMetres, ownMetres] : [ownMetres, insideMetres]
            #expect(zip(metres, expected).allSatisfy { abs($0 - $1) < 1 }, "\(name): \(metres)")
            // The first alone is the same: every candidate of the quality is measured.
            #expect(try indexes.search(name, near: here, limit: 1).map(\.osm) == [found[0].osm], "\(name)")
            // Without a point: own first.
            #expect(try indexes.search(name).map(\.osm) == [ownOSM, insideOSM], "\(name)")
        }
    }

    /// More buildings match than `DoorIndex.searchCandidates` (a chain's name in a country's
    /// index): with a point, the one there is found at every step (a whole name, its start,
    /// a word, part of a word), though the others all have lower OSM ids. Before: each step
    /// read the first 2 000 by id, and the one at the walker's feet was never looked at
    /// (`go GS25` refused as "328 km away").
    @Test func withAPointTheNearestOfMoreMatchesThanTheCapIsFound() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let busan = Coordinate(latitude: 35.10, longitude: 129.00)
        let seoul = Coordinate(latitude: 37.5661, longitude: 126.9776)
        var buildings: [SquareBuilding] = []
        for name in ["GS25", "Pizza Palace"] {
            for i in 0...DoorIndex.searchCandidates {
                let at = busan.offset(metres: Double(i / 50) * 60, bearing: 0)
                    .offset(metres: Double(i % 50) * 60 + (name == "GS25" ? 0 : 30), bearing: 90)
                buildings.append(
                    SquareBuilding(
                        lat: at.latitude, lon: at.longitude, tags: ["building": "yes", "name": name]))
            }
        }
        let pizza = seoul.offset(metres: 100, bearing: 90)
        buildings.append(
            SquareBuilding(
                lat: seoul.latitude, lon: seoul.longitude, tags: ["building": "yes", "name": "GS25"]))
        buildings.append(
            SquareBuilding(
                lat: pizza.latitude, lon: pizza.longitude, tags: ["building": "yes", "name": "Pizza Palace"]))
        let xml = dir.appendingPathComponent("chain.osm").path
        try squareBuildingsXML(buildings).write(toFile: xml, atomically: true, encoding: .utf8)
        let db = dir.appendingPathComponent("chain.db").path
        _ = try DoorImporter.importFile(xml, to: db)
        let index = try DoorIndex(path: db)
        let near = buildings.count - 1
        for (query, osm, quality) in [
            ("GS25", "way/\(near)", BuildingMatch.Quality.exact), ("GS2", "way/\(near)", .prefix),
            ("Palace", "way/\(near + 1)", .words), ("alac", "way/\(near + 1)", .within),
        ] {
            let found = try index.search(query, near: seoul, limit: 2)
            #expect(found.first?.osm == osm, "\(query): \(found.map { "\($0.osm) \($0.metres ?? -1)" })")
            #expect(found.first?.quality == quality, "\(query)")
            #expect((found.first?.metres ?? .infinity) < 150, "\(query)")
            // The second is the nearest of the others, in Busan (≈ 320 km).
            #expect(found.count == 2 && (found.last?.metres ?? 0) > 300_000, "\(query)")
        }
        // Without a point, as before: the first by OSM id.
        #expect(try index.search("GS25", limit: 1).first?.osm == "way/1")
    }

    /// The street's name in another language, as OSM tags it on the building (bilingual
    /// Helsinki: Espan lava, way/22462850, `addr:street` Eteläesplanadi, `addr:street:sv`
    /// Södra Esplanaden), finds it as its whole address, in either order, in a fresh import of
    /// the fixture and in the bundled index; the address shown stays `addr:street`'s. Before:
    /// "0 buildings match" for the Swedish form.
    @Test func aStreetsNameInAnotherLanguageFindsTheBuilding() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fresh = dir.appendingPathComponent("helsinki.db").path
        _ = try DoorImporter.importFile(try Support.fixture("Helsinki.osm.pbf"), to: fresh)
        let bundled = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../artifacts/doors/helsinki.db").standardizedFileURL.path
        for db in [fresh, bundled] {
            let index = try DoorIndex(path: db)
            for query in [
                "Södra Esplanaden 1", "sodra esplanaden 1", "1 Södra Esplanaden", "Eteläesplanadi 1",
            ] {
                let found = try index.search(query, limit: 1).first
                #expect(found?.osm == "way/22462850", "\(db): \(query)")
                #expect(found?.quality == .exact, "\(db): \(query)")
                #expect(found?.address == "Eteläesplanadi 1", "\(db): \(query)")
            }
        }
    }

    @Test func nearOrdersEqualMatchesByDistanceButNeverAboveABetterMatch() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let index = try Self.index(dir)
        let annexe = Self.origin.offset(metres: 400 + 80 + 10, bearing: 0).offset(metres: 10, bearing: 90)
        // Standing in the annexe: both exact courthouses come first (the near one, then the
        // far one), the annexe (a prefix match) after them although it is nearest.
        let fromAnnexe = try index.search("Palais de Justice", near: annexe)
        #expect(fromAnnexe.map(\.osm) == ["way/1000000040", "way/1000000060", "way/1000000050"])
        #expect(fromAnnexe.map(\.quality) == [.exact, .exact, .prefix])
        #expect(fromAnnexe[2].metres == 0)
        #expect(fromAnnexe[0].metres! < 100 && fromAnnexe[1].metres! > 4_000)
        // Near the far one, the far one leads.
        let fromFar = try index.search("palais de justice", near: Self.far, limit: 2)
        #expect(fromFar.map(\.osm) == ["way/1000000060", "way/1000000040"])
    }
}

@Suite("Folding for the door index's search")
struct SearchTextTests {
    /// Street and place names in other languages (`addr:street:LANG`, `addr:place:LANG`, LANG
    /// a BCP 47 tag) are addresses too, each once; other subkeys (`addr:street:type`, US
    /// TIGER's `addr:street:name`) are not.
    @Test func anAddressInEachLanguageOSMGives() {
        let tags = [
            "addr:street": "Rauhankatu", "addr:street:fi": "Rauhankatu", "addr:street:sv": "Fredsgatan",
            "addr:place:sv": "Sveaborg", "addr:street:type": "Street", "addr:street:name": "Peace",
            "addr:street:ko-Latn": "Pyeonghwa-ro", "addr:housenumber": "19",
        ]
        #expect(
            SearchText.addresses(tags) == [
                "rauhankatu 19", "sveaborg 19", "pyeonghwa ro 19", "fredsgatan 19",
            ])
    }

    @Test(
        "plain ASCII and Hangul fold as the gazetteer's Fold does, without Foundation",
        arguments: [
            "Quai Jean-Charles Rey, 10", "  Siltavuorenpenger   10 A ", "O'Brien St.", "B7", "", "!!!",
            "Rue du Faubourg-Saint-Honoré", "세종대로", "세종대로110", " 세종대로23길, 5-1 ", "110세종", "A동 B7호",
            "서울특별시 중구 세종대로 110 (태평로1가)", "ㄱ나", "한글 ①", "Ｓ세종",
        ])
    func quickPath(text: String) {
        // The slow path, for comparison: Fold.fold, then Hangul and digits apart.
        var slow = ""
        var previous: Character?
        for ch in Fold.fold(text) {
            let hangul = { (c: Character) in
                c.unicodeScalars.first.map { (0xAC00...0xD7A3).contains($0.value) } ?? false
            }
            if let p = previous, (hangul(p) && ch.isNumber) || (p.isNumber && hangul(ch)) { slow += " " }
            slow.append(ch)
            previous = ch
        }
        let simple = text.unicodeScalars.allSatisfy { $0.isASCII || (0xAC00...0xD7A3).contains($0.value) }
        #expect((SearchText.quickFold(text) != nil) == simple)
        #expect(SearchText.normalize(text) == slow)
        if let quick = SearchText.quickFold(text) { #expect(quick == slow) }
    }

    @Test func wholeTokensJoinEachAlternativesWords() {
        #expect(
            SearchText.wholeTokens("building 0 ; hall ; 세종대로 1 길 1 ; 1 세종대로 1 길")
                == ["building_0", "hall", "세종대로_1_길_1", "1_세종대로_1_길"])
        #expect(SearchText.wholeTokens("main st 5") == ["main_st_5"])
        #expect(SearchText.wholeTokens("").isEmpty)
        #expect(SearchText.wholeTokens(["", "main st 5", "hall"]) == ["main_st_5", "hall"])
    }

    /// Full-width ASCII (U+FF01…U+FF5E) and the ideographic space fold as their ASCII forms;
    /// Hangul, and other compatibility forms, as before: not NFKC, which would join the
    /// compatibility jamo "ㄱㅏ" into the syllable "가".
    @Test func fullWidthASCIIFoldsAsASCII() {
        #expect(Fold.fold("ＳＥＯＵＬ　Ｃｉｔｙ－Ｈａｌｌ １１０") == "seoul city hall 110")
        #expect(SearchText.normalize("세종대로１１０") == "세종대로 110")
        #expect(SearchText.normalize("무교로\u{3000}１２－３") == "무교로 12 3")
        #expect(Fold.fold("ㄱㅏ 가") == "ㄱㅏ 가")
        #expect(Fold.fold("한글 ①") == "한글 ①")
        #expect(
            SearchText.addressForms("서울특별시，중구，세종대로 １１０ （태평로1가）")
                == ["서울특별시 중구 세종대로 110", "중구 세종대로 110", "세종대로 110"])
    }

    /// An index made before full-width ASCII was folded kept "ＧＳ２５" and "１１０" in its search
    /// text: a full-width query that finds nothing narrowed is asked as the index was made, so
    /// those names are still found as written (before: by no query, not even themselves, until
    /// imported again), and its ASCII addresses by full-width queries (before that, folded as
    /// the index was made, "무교로 １２" found nothing). One made now is found by both forms.
    @Test func anIndexMadeBeforeTheFullWidthFoldIsSearchedAsItWasMade() throws {
        let old = try DoorIndex(path: try Support.fixture("fullwidth-before-narrow.db"))
        for query in ["ＧＳ２５", "세종대로 １１０", "편의점"] {
            #expect(try old.search(query).map(\.osm) == ["way/10"], "\(query)")
        }
        for query in ["무교로 １２", "무교로 12", "무교빌딩"] {
            #expect(try old.search(query).map(\.osm) == ["way/20"], "\(query)")
        }
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fresh = dir.appendingPathComponent("fresh.db").path
        _ = try DoorImporter.importFile(try Support.fixture("fullwidth.osm"), to: fresh)
        let now = try DoorIndex(path: fresh)
        for query in ["ＧＳ２５", "GS25", "세종대로 １１０", "세종대로 110", "편의점"] {
            #expect(try now.search(query).map(\.osm) == ["way/10"], "\(query)")
        }
    }

    @Test func hangulAndDigitsApart() {
        #expect(SearchText.normalize("세종대로110") == "세종대로 110")
        #expect(SearchText.normalize("세종대로23길 5") == "세종대로 23 길 5")
        #expect(SearchText.normalize("B7") == "b7")
    }
}

@Suite("Several door indexes, one a region")
struct DoorIndexesTests {
    /// Two grid cities, in Helsinki and in Seoul, as two index files in one directory.
    static func directory(_ dir: URL) throws -> (path: String, helsinki: GridCity, seoul: GridCity) {
        let regions = dir.appendingPathComponent("doors")
        try FileManager.default.createDirectory(at: regions, withIntermediateDirectories: true)
        let helsinki = GridCity(origin: Coordinate(latitude: 60.17, longitude: 24.94), buildings: 16)
        let seoul = GridCity(origin: Coordinate(latitude: 37.566, longitude: 126.978), buildings: 16)
        for (name, city) in [("helsinki", helsinki), ("seoul", seoul)] {
            let pbf = try city.write(xml: dir.appendingPathComponent("\(name).osm").path)
            _ = try DoorImporter.importFile(pbf, to: regions.appendingPathComponent("\(name).db").path)
        }
        return (regions.path, helsinki, seoul)
    }

    @Test func eachPointGoesToTheIndexCoveringIt() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (path, helsinki, seoul) = try Self.directory(dir)
        let indexes = try DoorIndexes(path: path)
        #expect(
            indexes.indexes.map { URL(fileURLWithPath: $0.path).lastPathComponent } == [
                "helsinki.db", "seoul.db",
            ])
        let inSeoul = try indexes.doors(near: seoul.centre(5))
        #expect(inSeoul.building?.id == 6)
        #expect(try indexes.index(at: seoul.centre(5)).path.hasSuffix("seoul.db"))
        #expect(try indexes.index(at: helsinki.centre(5)).path.hasSuffix("helsinki.db"))
        // The same address exists in both cities: the search goes to the one nearest the walker.
        let found = try #require(try indexes.search("Grid Street 2 2", near: seoul.centre(0)).first)
        #expect(found.index.hasSuffix("seoul.db") && found.osm == "way/6")
        let fromHelsinki = try #require(try indexes.search("Grid Street 2 2", near: helsinki.centre(0)).first)
        #expect(fromHelsinki.index.hasSuffix("helsinki.db"))
        // Without a point, both, exact matches first.
        let both = try indexes.search("Grid Street 2 2").prefix(2)
        #expect(both.map(\.quality) == [.exact, .exact] && both.map(\.osm) == ["way/6", "way/6"])
        #expect(Set(both.map(\.index)).count == 2)
    }

    /// Busan's and Gyeongsangnam-do's extracts, as the audit made them: Busan's box (two
    /// buildings, south-west and north-east) lies inside Gyeongnam's and holds 김해 건물, which
    /// only Gyeongnam's index has.
    static func overlapping(_ dir: URL) throws -> String {
        let regions = dir.appendingPathComponent("regions")
        try FileManager.default.createDirectory(at: regions, withIntermediateDirectories: true)
        let extracts = [
            "busan": [
                SquareBuilding(lat: 35.05, lon: 128.95, tags: ["building": "yes", "name": "부산 남서"]),
                SquareBuilding(lat: 35.30, lon: 129.25, tags: ["building": "yes", "name": "부산 북동"]),
            ],
            "gyeongnam": [
                SquareBuilding(lat: 35.28, lon: 128.97, tags: ["building": "yes", "name": "김해 건물"]),
                SquareBuilding(lat: 34.80, lon: 127.80, tags: ["building": "yes", "name": "진주 쪽"]),
            ],
        ]
        for (name, buildings) in extracts {
            let osm = dir.appendingPathComponent("\(name).osm").path
            try Data(squareBuildingsXML(buildings).utf8).write(to: URL(fileURLWithPath: osm))
            _ = try DoorImporter.importFile(osm, to: regions.appendingPathComponent("\(name).db").path)
        }
        return regions.path
    }

    /// Before: the smallest box holding the point answered alone — Busan's, which has no
    /// building near 35.28, 128.97 — so `doors(near:)` said "no building" for 김해 건물 and
    /// its door, which Gyeongnam's index has; replay's `nearest(to:)` chose Busan's too.
    @Test func overlappingBoxesAnswerFromTheIndexWithTheBuilding() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let indexes = try DoorIndexes(path: try Self.overlapping(dir))
        let gimhae = Coordinate(latitude: 35.28, longitude: 128.97)
        #expect(
            indexes.holding(gimhae).map { URL(fileURLWithPath: $0.path).lastPathComponent } == [
                "busan.db", "gyeongnam.db",
            ])
        let found = try indexes.doors(near: gimhae)
        #expect(found.building?.name == "김해 건물" && found.doors.count == 1)
        #expect(try indexes.index(at: gimhae).path.hasSuffix("gyeongnam.db"))
        #expect(try indexes.nearest(to: gimhae)?.path.hasSuffix("gyeongnam.db") == true)
        // 30 m south of its wall: the nearest outline, still only in Gyeongnam's.
        let south = gimhae.offset(metres: 41, bearing: 180)
        #expect(try indexes.doors(near: south).building?.name == "김해 건물")
        // Busan's own building still comes from Busan's, the smaller box.
        let busan = Coordinate(latitude: 35.05, longitude: 128.95)
        #expect(try indexes.index(at: busan).path.hasSuffix("busan.db"))
        #expect(try indexes.doors(near: busan).building?.name == "부산 남서")
        // With no building in either, the smallest box, and outside both still "outside".
        #expect(
            try indexes.index(at: Coordinate(latitude: 35.2, longitude: 129.1)).path.hasSuffix("busan.db"))
        #expect(throws: OutsideDoorIndex.self) {
            _ = try indexes.doors(near: Coordinate(latitude: 37.5, longitude: 127))
        }
    }

    /// With no building near, the index chosen is one with a usable entrance near: the smaller
    /// box holding only an emergency exit 55 m away gives no door, the larger one a main door
    /// 78 m away (before: the smaller was chosen for its exit, and the walker got no door).
    @Test func overlappingBoxesWithoutBuildingsAnswerWithAUsableDoor() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let regions = dir.appendingPathComponent("regions")
        try FileManager.default.createDirectory(at: regions, withIntermediateDirectories: true)
        func node(_ id: Int, _ lat: Double, _ lon: Double, _ entrance: String) -> String {
            #"<node id="\#(id)" lat="\#(lat)" lon="\#(lon)"><tag k="entrance" v="\#(entrance)"/></node>"#
        }
        for (name, nodes) in [
            ("a_small", [node(1, 35.2005, 129.1, "emergency"), node(2, 35.199, 129.099, "emergency")]),
            (
                "b_large",
                [node(3, 35.2007, 129.1, "main"), node(4, 35.0, 128.9, "main"), node(5, 35.4, 129.3, "main")]
            ),
        ] {
            let osm = dir.appendingPathComponent("\(name).osm").path
            try Data(
                ("<?xml version=\"1.0\"?>\n<osm version=\"0.6\">\n" + nodes.joined(separator: "\n")
                    + "\n</osm>\n").utf8
            )
            .write(to: URL(fileURLWithPath: osm))
            _ = try DoorImporter.importFile(osm, to: regions.appendingPathComponent("\(name).db").path)
        }
        let indexes = try DoorIndexes(path: regions.path)
        let point = Coordinate(latitude: 35.2, longitude: 129.1)
        #expect(indexes.holding(point).count == 2)
        let found = try indexes.doors(near: point)
        #expect(found.building == nil && found.doors.count == 1, "\(found)")
    }

    /// A stray `*.db` beside the indexes (notes, a zero-byte file, an index of an older
    /// schema) is skipped, named with why, and the others answer. Before: `DoorIndexes` threw
    /// on the first, and every lookup in the directory failed (exit 2).
    @Test func aStrayDatabaseInTheDirectoryIsSkippedAndNamed() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (path, _, seoul) = try Self.directory(dir)
        try Connection(path: path + "/notes.db", mode: .readWrite).execute("CREATE TABLE x(a)")
        #expect(FileManager.default.createFile(atPath: path + "/empty.db", contents: Data()))
        try Connection(path: path + "/old.db", mode: .readWrite).execute(
            "CREATE TABLE meta(key TEXT, value TEXT); INSERT INTO meta VALUES ('version', '3')")
        let indexes = try DoorIndexes(path: path)
        #expect(
            indexes.indexes.map { URL(fileURLWithPath: $0.path).lastPathComponent } == [
                "helsinki.db", "seoul.db",
            ])
        #expect(try indexes.doors(near: seoul.centre(5)).building?.id == 6)
        let said = indexes.skipped.map(\.description)
        #expect(said.count == 3, "\(said)")
        #expect(said[0].hasPrefix("\(path)/empty.db: not a door index: no meta table"), "\(said)")
        #expect(said[1].hasPrefix("\(path)/notes.db: not a door index: no meta table"), "\(said)")
        #expect(
            said[2] == "\(path)/old.db: not a door index: version 3, expected 4: import it again", "\(said)")
        // Only stray files: no index, each named.
        let stray = dir.appendingPathComponent("stray").path
        try FileManager.default.createDirectory(atPath: stray, withIntermediateDirectories: true)
        for name in ["empty.db", "old.db"] {
            try FileManager.default.copyItem(atPath: path + "/" + name, toPath: stray + "/" + name)
        }
        #expect {
            _ = try DoorIndexes(path: stray)
        } throws: { error in
            let text = "\(error)"
            return text.hasPrefix("\(stray): not a door index: none of its *.db files is a door index (")
                && text.contains("\(stray)/empty.db: not a door index: no meta table")
                && text.contains("\(stray)/old.db: not a door index: version 3")
        }
    }

    /// Without `--near`, ties across indexes break as within one: the closer in length to
    /// the query, then the OSM id. Before: by file name, so a.db's way 2 came before b.db's
    /// way 1, and a.db's "Old Tower Annex" before b.db's "Big Tower".
    @Test func tiesAcrossIndexesBreakAsWithinOne() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let regions = dir.appendingPathComponent("regions")
        func named(_ name: String, _ lat: Double) -> SquareBuilding {
            SquareBuilding(lat: lat, lon: 127, tags: ["building": "yes", "name": name])
        }
        for (file, buildings) in [
            ("a", [named("Filler", 37.50), named("Twin", 37.501), named("Old Tower Annex", 37.502)]),
            ("b", [named("Twin", 37.60), named("Big Tower", 37.601)]),
        ] {
            let osm = dir.appendingPathComponent("\(file).osm").path
            try Data(squareBuildingsXML(buildings).utf8).write(to: URL(fileURLWithPath: osm))
            _ = try DoorImporter.importFile(osm, to: regions.appendingPathComponent("\(file).db").path)
        }
        let indexes = try DoorIndexes(path: regions.path)
        let twins = try indexes.search("twin")
        #expect(
            twins.map { "\(URL(fileURLWithPath: $0.index).lastPathComponent) \($0.osm)" } == [
                "b.db way/1", "a.db way/2",
            ])
        let towers = try indexes.search("tower")
        #expect(towers.map(\.quality) == [.words, .words])
        #expect(towers.map(\.building.name) == ["Big Tower", "Old Tower Annex"])
    }

    @Test func aPointOutsideEveryIndexSaysWhatTheyCover() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (path, _, _) = try Self.directory(dir)
        let paris = Coordinate(latitude: 48.8566, longitude: 2.3522)
        #expect {
            _ = try DoorIndexes(path: path).doors(near: paris)
        } throws: { error in
            let text = "\(error)"
            return text.hasPrefix("outside the door indexes (they cover 60.1700..60.17")
                && text.contains(", 24.9400..24.94") && text.contains("; 37.5660..37.56")
        }
        let one = try DoorIndexes(path: path + "/seoul.db")
        #expect {
            _ = try one.doors(near: paris)
        } throws: { error in
            "\(error)".hasPrefix("outside the door index (it covers 37.5660..")
        }
        // An empty directory is no index.
        let empty = dir.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        #expect(throws: DoorIndexError.notAnIndex(path: empty.path, reason: "a directory with no *.db file"))
        {
            _ = try DoorIndexes(path: empty.path)
        }
    }
    /// A building with neither name nor address is called by the entrance address the query
    /// names: one whose words are all the query's, else one holding all the query's words
    /// ("Vuorikatu 19 A" for "vuorikatu 19"); none for a query naming no entrance (before,
    /// audit 14, the first entrance by id: "Cafe Vuori" was called "Kaisaniemenkatu 8").
    @Test func aNamelessBuildingIsCalledByTheEntranceAddressTheQueryNames() {
        func door(_ id: Int64, _ street: String, _ number: String) -> OSMNode {
            OSMNode(
                id: id, coordinate: Coordinate(latitude: 60.17, longitude: 24.95),
                tags: ["entrance": "yes", "addr:street": street, "addr:housenumber": number])
        }
        let doors = [door(1, "Kaisaniemenkatu", "8"), door(2, "Vuorikatu", "19 A")]
        #expect(DoorIndex.entranceAddress(doors, words: ["vuorikatu", "19"]) == "Vuorikatu 19 A")
        #expect(DoorIndex.entranceAddress(doors, words: ["kaisaniemenkatu", "8"]) == "Kaisaniemenkatu 8")
        #expect(DoorIndex.entranceAddress(doors, words: ["cafe", "vuori"]) == nil)
    }
}
