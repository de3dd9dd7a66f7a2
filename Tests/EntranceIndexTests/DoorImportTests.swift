import Arrival
import Foundation
import Geo
import OSM
import SQLite
import Testing

@testable import EntranceIndex

@Suite("Importing OpenStreetMap into the door index")
struct DoorImportTests {
    @Test func helsinkiExtractMatchesOsmiumsCounts() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pbf = try Support.fixture("Helsinki.osm.pbf")
        let db = dir.appendingPathComponent("helsinki.db").path
        let summary = try DoorImporter.importFile(pbf, to: db)

        // osmium's own answer, without referenced objects (-R): only the tagged elements.
        let entrancesOSM = dir.appendingPathComponent("entrances.osm").path
        let buildingsOSM = dir.appendingPathComponent("buildings.osm").path
        _ = try Support.osmium(["tags-filter", pbf, "n/entrance", "-R", "-o", entrancesOSM, "--overwrite"])
        _ = try Support.osmium([
            "tags-filter", pbf, "w/building", "r/building", "-R", "-o", buildingsOSM, "--overwrite",
        ])
        let entrances = try Support.count("nodes", in: Support.osmium(["fileinfo", "-e", entrancesOSM]))
        let buildingInfo = try Support.osmium(["fileinfo", "-e", buildingsOSM])
        let ways = try Support.count("ways", in: buildingInfo)
        let relations = try Support.count("relations", in: buildingInfo)

        #expect(entrances == 325)  // the figure the data README gives for this extract
        #expect(summary.entrances == entrances)
        #expect(summary.buildingWays == ways)
        #expect(summary.buildingRelations == relations)

        let index = try DoorIndex(path: db)
        let counts = try index.counts()
        #expect(counts.entrances == entrances)
        #expect(counts.buildings == ways + relations)
        // Every building has a cell in the spatial index unless none of its nodes is in the
        // extract; every entrance has one.
        let raw = try Connection(path: db, mode: .readOnly(immutable: true))
        #expect(
            try raw.scalarInt("SELECT count(*) FROM buildings WHERE cell IS NOT NULL")
                == Int64(ways + relations - summary.withoutOutline))
        #expect(
            try raw.scalarInt("SELECT count(*) FROM entrances WHERE cell IS NOT NULL") == Int64(entrances))
        // The data README: 263 entrances lie on one of the 433 building *ways*.
        #expect(
            try raw.scalarInt(
                "SELECT count(DISTINCT o.entrance) FROM outline_entrances o JOIN buildings b ON b.id = o.building WHERE b.kind = 'way'"
            ) == 263)
        // No temporary file is left beside the index.
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".tmp-") }
                .isEmpty)
    }

    /// Every row of every table, in a fixed order, as text.
    static func dump(_ path: String) throws -> [String] {
        let db = try Connection(path: path, mode: .readOnly(immutable: true))
        var rows: [String] = []
        for sql in [
            "SELECT id, lat, lon, tags, cell FROM entrances ORDER BY id",
            "SELECT id, kind, osm_id, building, name, addr, levels, level, centroid_lat, centroid_lon, area, hex(outline), cell FROM buildings ORDER BY id",
            "SELECT rowid, names, addresses FROM building_search ORDER BY rowid",
            "SELECT token, building FROM building_whole ORDER BY token, building",
            "SELECT token, building FROM places_whole ORDER BY token, building",
            "SELECT building, entrance FROM outline_entrances ORDER BY building, entrance",
            // How it was made (the fold of its search text too), not from which file.
            "SELECT key, value FROM meta WHERE key <> 'source' ORDER BY key",
        ] {
            try db.prepare(sql).forEach { row in
                rows.append((0..<row.columnCount).map { row.text($0) ?? "NULL" }.joined(separator: "|"))
            }
        }
        return rows
    }

    @Test func overpassJSONAndOSMXMLOfTheSameDataGiveTheSameIndex() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fromXML = dir.appendingPathComponent("xml.db").path
        let fromJSON = dir.appendingPathComponent("json.db").path
        let a = try DoorImporter.importFile(try Support.fixture("station-and-block.osm"), to: fromXML)
        let b = try DoorImporter.importFile(try Support.fixture("station-and-block.json"), to: fromJSON)
        #expect(a == b)
        // Tagged building=*: the station and the two blocks; relation 4198's member ways
        // (outer 88777738, inner 19993862) are untagged, so only the relation counts.
        #expect(a.buildingWays == 3 && a.buildingRelations == 1)
        let rows = try Self.dump(fromXML)
        #expect(rows.count > 100)
        #expect(rows == (try Self.dump(fromJSON)))
    }

    /// Overpass XML from `out geom;` (fixture `station-and-block-out-geom.osm`: the ways'
    /// `<nd>`s carry their places, untagged nodes and the relation's member ways are not
    /// listed) gives the index the plain XML of the same data gives, row for row (before: the
    /// ways' outlines were only their listed doors, the relation had none).
    @Test func overpassXMLFromOutGeomGivesTheIndexOfThePlainXML() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fromPlain = dir.appendingPathComponent("plain.db").path
        let fromGeometry = dir.appendingPathComponent("geom.db").path
        let a = try DoorImporter.importFile(try Support.fixture("station-and-block.osm"), to: fromPlain)
        let b = try DoorImporter.importFile(
            try Support.fixture("station-and-block-out-geom.osm"), to: fromGeometry)
        #expect(a == b)
        #expect(b.withoutOutline == 0 && b.buildingWays == 3 && b.buildingRelations == 1)
        #expect(try Self.dump(fromGeometry) == (try Self.dump(fromPlain)))
    }

    /// Overpass JSON of relation 4198 from `out geom;`: the member ways are not listed, only
    /// their geometry in the relation (fixture `relation-out-geom.json`). Its outline is the one
    /// the fixture listing every way gives, courtyard and all, and its staircase door is on it
    /// (before: no outline, "without nodes in the extract", and a point inside had no building).
    @Test func aRelationGivenWithMemberGeometryHasItsOutline() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fromGeometry = dir.appendingPathComponent("geom.db").path
        let fromWays = dir.appendingPathComponent("ways.db").path
        let summary = try DoorImporter.importFile(
            try Support.fixture("relation-out-geom.json"), to: fromGeometry)
        _ = try DoorImporter.importFile(try Support.fixture("station-and-block.json"), to: fromWays)
        #expect(summary.buildingRelations == 1 && summary.buildingWays == 0 && summary.withoutOutline == 0)
        #expect(summary.entrances == 1 && summary.entrancesOnOutlines == 1)
        func relation(_ path: String) throws -> [String] {
            let db = try Connection(path: path, mode: .readOnly(immutable: true))
            var rows: [String] = []
            try db.prepare(
                """
                SELECT b.osm_id, b.levels, b.centroid_lat, b.centroid_lon, b.area, hex(b.outline), b.cell,
                    o.entrance
                FROM buildings b LEFT JOIN outline_entrances o ON o.building = b.id
                WHERE b.kind = 'relation' AND b.osm_id = 4198
                """
            ).forEach { row in
                rows.append((0..<row.columnCount).map { row.text($0) ?? "NULL" }.joined(separator: "|"))
            }
            return rows
        }
        let rows = try relation(fromGeometry)
        #expect(rows.count == 1 && rows[0].hasSuffix("|1548521571"), "\(rows)")
        #expect(rows == (try relation(fromWays)))
        let index = try DoorIndex(path: fromGeometry)
        let building = try #require(try index.building(at: Coordinate(latitude: 60.1782, longitude: 24.9492)))
        #expect(building.kind == .relation && building.id == 4198)
        #expect(building.outline.rings.map(\.role) == [.outer, .inner])
        let doors = try index.doors(near: Coordinate(latitude: 60.1782, longitude: 24.9492)).doors
        #expect(doors.map(\.coordinate) == [Coordinate(latitude: 60.1781131, longitude: 24.9489883)])
    }

    @Test func truncatedPBFFailsCleanlyAndLeavesNoFile() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let whole = try Data(contentsOf: URL(fileURLWithPath: try Support.fixture("Helsinki.osm.pbf")))
        let cut = dir.appendingPathComponent("cut.osm.pbf")
        try whole.prefix(whole.count / 2).write(to: cut)
        let out = dir.appendingPathComponent("out.db").path
        #expect {
            _ = try DoorImporter.importFile(cut.path, to: out)
        } throws: { error in
            guard case .osmiumFailed(let path, let message)? = error as? DoorIndexError else { return false }
            return path == cut.path && !message.isEmpty && (error as! DoorIndexError).isBadInput
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["cut.osm.pbf"])
    }

    @Test func truncatedXMLFailsNamingTheElementAndKeepsTheOldIndex() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let xml = try String(contentsOfFile: try Support.fixture("station-and-block.osm"), encoding: .utf8)
        let out = dir.appendingPathComponent("doors.db").path
        _ = try DoorImporter.importFile(try Support.fixture("station-and-block.osm"), to: out)
        let before = try Data(contentsOf: URL(fileURLWithPath: out))
        // Cut inside the station way: its <way> is open when the file ends.
        let cutAt = try #require(xml.range(of: "<nd ref=\"1371515225\"/>")).upperBound
        let cut = dir.appendingPathComponent("cut.osm")
        try String(xml[..<cutAt]).write(to: cut, atomically: true, encoding: .utf8)
        #expect {
            _ = try DoorImporter.importFile(cut.path, to: out)
        } throws: { error in
            guard case .badInput(let e)? = error as? DoorIndexError else { return false }
            return e.path == cut.path && e.element == "way 122595198" && e.line != nil
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == before)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["cut.osm", "doors.db"])
    }

    @Test func badOverpassJSONNamesTheElement() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bad = dir.appendingPathComponent("bad.json")
        try
            #"{"elements": [{"type": "node", "id": 1, "lat": 60.1, "lon": 24.9}, {"type": "node", "id": 2, "lat": 95, "lon": 24.9}]}"#
            .write(to: bad, atomically: true, encoding: .utf8)
        #expect {
            _ = try DoorImporter.importFile(bad.path, to: dir.appendingPathComponent("x.db").path)
        } throws: { error in
            guard case .badInput(let e)? = error as? DoorIndexError else { return false }
            return e.element == "elements[1] node 2" && e.reason.contains("out of range")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["bad.json"])
    }

    @Test func openingSomethingElseSaysItIsNotAnIndex() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(throws: DoorIndexError.notAnIndex(path: dir.path + "/none.db", reason: "no such file")) {
            _ = try DoorIndex(path: dir.path + "/none.db")
        }
        let other = dir.appendingPathComponent("other.db").path
        try Connection(path: other).execute("CREATE TABLE t(x)")
        #expect {
            _ = try DoorIndex(path: other)
        } throws: { error in
            guard case .notAnIndex(let path, _)? = error as? DoorIndexError else { return false }
            return path == other
        }
    }

    /// Both routes through osmium make the same index from real data (Helsinki: 67
    /// multipolygon buildings, untagged member ways among them): the low-memory one reads
    /// every way and keeps what it needs, the default has `tags-filter` choose first.
    @Test func theLowMemoryRouteMakesTheSameIndex() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let filtered = dir.appendingPathComponent("filtered.db").path
        let lowMemory = dir.appendingPathComponent("low.db").path
        var lines: [String] = []
        let a = try DoorImporter.importFile(
            try Support.fixture("Helsinki.osm.pbf"), to: filtered, lowMemory: false)
        let b = try DoorImporter.importFile(
            try Support.fixture("Helsinki.osm.pbf"), to: lowMemory, lowMemory: true
        ) {
            lines.append($0)
        }
        #expect(a == b)
        #expect(b.buildingRelations == 67)
        #expect(try Self.dump(filtered) == (try Self.dump(lowMemory)))
        #expect(lines.first?.contains("low memory") == true, "\(lines)")
    }

    /// Past their memory limit (a country), the whole-name tokens wait in the scratch table
    /// and are sorted by SQLite: the same index as when they are sorted in memory, the
    /// tokens of the shops and offices inside (placed at the end) included.
    @Test func wholeNamesPastTheMemoryLimitMakeTheSameIndex() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // About 60 tokens: the rest of Helsinki's thousands go to the scratch table.
        let (inMemory, spilled) = try Self.helsinkiTwice(in: dir, wholeTokensLimit: 2_000)
        // The buildings' own tokens and their places' (kept apart, `places_whole`).
        let db = try Connection(path: inMemory, mode: .readOnly(immutable: true))
        let own = try db.scalarInt("SELECT count(*) FROM building_whole") ?? 0
        let places = try db.scalarInt("SELECT count(*) FROM places_whole") ?? 0
        #expect(own > 300 && places > 1_000)
        #expect(try Self.dump(inMemory) == (try Self.dump(spilled)))
    }

    /// The word index made on a thread and database of its own from the rows kept in memory,
    /// then copied in, is the one SQL makes from the table (past the rows' memory limit: a
    /// country): the same words for the same buildings, those whose shops moved to a smaller
    /// building included (their text is mended in it; without that this fails).
    @Test func theWordIndexMadeBesideIsTheOneMadeFromTheTable() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (beside, fromTable) = try Self.helsinkiTwice(in: dir, wordRowsLimit: 0)
        #expect(try Self.dump(beside) == (try Self.dump(fromTable)))
        let words = try Self.wordIndex(beside)
        #expect(words.count > 2_000)
        #expect(words == (try Self.wordIndex(fromTable)))
        // The word index's own database is gone.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["a.db", "b.db"])
    }

    /// The word index's own thread failing (its database cannot be made) is the import's
    /// failure, said when the writer waits for it, and leaves nothing behind.
    @Test func aWordIndexThatCannotBeMadeIsAnError() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let rows = WordIndexRows()
        rows.add(row: 1, names: "kiosk", addresses: "street 1")
        let path = dir.appendingPathComponent("missing/words.db").path
        let job = WordIndexJob(rows, path: path)
        #expect(throws: SQLiteError.self) { try job.wait() }
        // Asked again (a second wait, then the discard on the way out): the same error, no hang.
        #expect(throws: SQLiteError.self) { try job.wait() }
        job.discard()
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    /// A write into a folder that is not there, told not to make it (`plan --osm`'s temporary
    /// folder, which another thread's signal handler may have removed), fails and makes
    /// nothing; by default the folder is made (`--out ~/doors/x.db` on a fresh account).
    @Test func aFolderNotThereIsMadeOnlyWhenAsked() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let data = try Support.readPBF(try Support.fixture("Helsinki.osm.pbf"))
        let gone = dir.appendingPathComponent("gone/doors.db").path
        #expect(throws: DoorIndexError.self) {
            try DoorImporter.write(data, to: gone, source: "Helsinki.osm.pbf", makingFolder: false)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
        _ = try DoorImporter.write(data, to: gone, source: "Helsinki.osm.pbf")
        #expect(FileManager.default.fileExists(atPath: gone))
    }

    /// The Helsinki fixture imported into `dir` twice, as the import does (`a.db`) and with
    /// the memory limits given (`b.db`): the same summary, shops inside placed.
    static func helsinkiTwice(
        in dir: URL, wholeTokensLimit: Int = WholeTokens.defaultLimit,
        wordRowsLimit: Int = WordIndexRows.defaultLimit
    ) throws -> (String, String) {
        let data = try Support.readPBF(try Support.fixture("Helsinki.osm.pbf"))
        let (a, b) = (dir.appendingPathComponent("a.db").path, dir.appendingPathComponent("b.db").path)
        let first = try DoorImporter.write(data, to: a, source: "Helsinki.osm.pbf")
        let second = try DoorImporter.write(
            data, to: b, source: "Helsinki.osm.pbf", wholeTokensLimit: wholeTokensLimit,
            wordRowsLimit: wordRowsLimit)
        #expect(first == second && first.placesInside > 0)
        return (a, b)
    }

    /// Every word of the word index with the buildings holding it (FTS5's vocabulary), once
    /// FTS5's integrity check of the index against the `buildings` table passed.
    static func wordIndex(_ path: String) throws -> [String] {
        let db = try Connection(path: path)
        try db.execute("INSERT INTO building_search(building_search) VALUES ('integrity-check')")
        try db.execute("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, building_search, instance)")
        var rows: [String] = []
        try db.prepare("SELECT term, doc FROM temp.vocab ORDER BY term, doc").forEach {
            rows.append("\($0.text(0) ?? "NULL") \($0.int(1))")
        }
        return rows
    }

    /// A building's row id is its OSM id (schema 4): an id beyond ±2⁴¹ cannot be one, and
    /// the import says which element, leaving no index behind.
    @Test func anOSMIDBeyondTheRowIDRangeIsRefusedByName() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("x.db").path
        let id: Int64 = 1 << 41
        let corner = Coordinate(latitude: 60.17, longitude: 24.94)
        let square = [corner, corner.offset(metres: 20, bearing: 90), corner.offset(metres: 20, bearing: 0)]
        let data = OSMData(
            nodes: square.enumerated().map {
                OSMNode(id: Int64($0.offset + 1), coordinate: $0.element, tags: [:])
            },
            ways: [OSMWay(id: id, nodeIDs: [1, 2, 3, 1], tags: ["building": "yes"])])
        #expect {
            _ = try DoorImporter.write(data, to: out, source: "big.osm")
        } throws: { error in
            guard case .badInput(let e)? = error as? DoorIndexError else { return false }
            return e.path == "big.osm" && e.element == "way \(id)" && e.reason.contains("beyond")
        }
        #expect(!FileManager.default.fileExists(atPath: out))
        // One less is stored.
        var fits = data
        fits.ways[0].id = id - 1
        #expect(try DoorImporter.write(fits, to: out, source: "big.osm").buildingWays == 1)
    }

    /// The route is low-memory below 1.5 GB available, from `/proc/meminfo`'s text.
    @Test func theRouteFollowsTheMemoryAvailable() {
        let kB = { (n: Int) in "MemTotal:  4000000 kB\nMemFree: 100 kB\nMemAvailable:  \(n) kB\n" }
        #expect(OsmiumStream.Route.automatic(meminfo: kB(900_000)) == .lowMemory)
        #expect(OsmiumStream.Route.automatic(meminfo: kB(3_500_000)) == .filtered)
        #expect(OsmiumStream.Route.automatic(meminfo: "MemTotal: 1 kB\n") == .filtered)
    }

    /// osmium runs with short queues and glibc handing memory back, and on a small machine
    /// with two pool threads for `tags-filter`'s first pass, unless the user chose a number.
    @Test func osmiumsEnvironmentFollowsTheMachine() {
        let small = OsmiumStream.environment(["PATH": "/usr/bin"], cores: 2)
        #expect(small["PATH"] == "/usr/bin" && small["OSMIUM_POOL_THREADS"] == "2")
        #expect(small["OSMIUM_MAX_INPUT_QUEUE_SIZE"] == "2" && small["MALLOC_TRIM_THRESHOLD_"] == "1048576")
        // libosmium's own default (cores less 2) already gives two or more.
        #expect(OsmiumStream.environment([:], cores: 4)["OSMIUM_POOL_THREADS"] == nil)
        #expect(
            OsmiumStream.environment(["OSMIUM_POOL_THREADS": "1"], cores: 2)["OSMIUM_POOL_THREADS"] == "1")
    }

    /// The committed `artifacts/doors/helsinki.db` must be what today's importer makes of the
    /// fixture, so a schema or ranking-input change cannot leave a stale artifact behind.
    @Test func bundledArtifactIsAFreshImportOfTheFixture() throws {
        let artifact = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../artifacts/doors/helsinki.db").standardizedFileURL.path
        #expect(
            FileManager.default.fileExists(atPath: artifact),
            "missing; rebuild: pathfinder doors import Tests/EntranceIndexTests/Fixtures/Helsinki.osm.pbf --out \(artifact)"
        )
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fresh = dir.appendingPathComponent("fresh.db").path
        _ = try DoorImporter.importFile(try Support.fixture("Helsinki.osm.pbf"), to: fresh)
        #expect(
            try Self.dump(artifact) == (try Self.dump(fresh)),
            "stale artifact: rebuild it (see artifacts/doors/README.md)")
    }

    @Test func progressNamesEachStage() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var lines: [String] = []
        _ = try DoorImporter.importFile(
            try Support.fixture("Helsinki.osm.pbf"), to: dir.appendingPathComponent("x.db").path
        ) { lines.append($0) }
        #expect(
            lines.first?.hasPrefix("filtering") == true && lines.first?.contains("Helsinki.osm.pbf") == true)
        #expect(lines.contains("reading osmium's output"))
        #expect(lines.last == "analyzing")
    }

    /// 24 000 buildings: more than the old importer could read (osmium's OSM XML of it is
    /// over libxml2's 10 MB single-chunk limit, and the whole file sat in memory).
    @Test func aGeneratedCityOf24000BuildingsImportsFromPBFAndFromXML() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let city = GridCity(origin: Coordinate(latitude: 37.55, longitude: 126.95), buildings: 24_000)
        let xml = dir.appendingPathComponent("city.osm").path
        let pbf = try city.write(xml: xml)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: xml)[.size] as? Int)
        #expect(size > 10_000_000)
        var lines: [String] = []
        let fromPBF = try DoorImporter.importFile(pbf, to: dir.appendingPathComponent("pbf.db").path) {
            lines.append($0)
        }
        #expect(fromPBF.buildingWays == 24_000 && fromPBF.buildingRelations == 0)
        #expect(fromPBF.entrances == 4_800 && fromPBF.entrancesOnOutlines == 4_800)
        #expect(lines.last == "analyzing")
        #expect(lines.contains { $0.hasSuffix("elements read") || $0.contains("elements read in") })
        let fromXML = try DoorImporter.importFile(xml, to: dir.appendingPathComponent("xml.db").path)
        #expect(fromXML == fromPBF)
        #expect(
            try Self.dump(dir.appendingPathComponent("pbf.db").path)
                == Self.dump(dir.appendingPathComponent("xml.db").path))

        let index = try DoorIndex(path: dir.appendingPathComponent("pbf.db").path)
        let result = try index.doors(near: city.centre(12_345))
        #expect(result.building?.id == 12_346)
        #expect(
            result.building?.address == ["street": city.street(12_345), "housenumber": city.number(12_345)])
        let found = try #require(try index.search("\(city.street(12_345)) \(city.number(12_345))").first)
        #expect(found.osm == "way/12346" && found.quality == .exact)
        #expect(index.bounds?.contains(city.centre(0)) == true)
        #expect(index.bounds?.contains(city.centre(23_999)) == true)
    }

    /// A building relation whose outer ring is split over two untagged ways, with a
    /// courtyard, read from `.osm.pbf`: the member ways wait until the relation comes.
    @Test func aMultipolygonBuildingFromPBF() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var city = GridCity(origin: Coordinate(latitude: 60.2, longitude: 25.0), buildings: 4)
        let sw = Coordinate(latitude: 60.201, longitude: 25.0)
        let p = [
            sw, sw.offset(metres: 60, bearing: 90),
            sw.offset(metres: 60, bearing: 90).offset(metres: 60, bearing: 0),
            sw.offset(metres: 60, bearing: 0),
        ]
        let yard = sw.offset(metres: 20, bearing: 0).offset(metres: 20, bearing: 90)
        let q = [
            yard, yard.offset(metres: 20, bearing: 90),
            yard.offset(metres: 20, bearing: 90).offset(metres: 20, bearing: 0),
            yard.offset(metres: 20, bearing: 0),
        ]
        let door = sw.offset(metres: 30, bearing: 90)
        for (k, c) in p.enumerated() { city.extraNodes += GridCity.node(2_000_000_000 + Int64(k), c, [:]) }
        city.extraNodes += GridCity.node(2_000_000_004, door, ["entrance": "main", "name": "Pääovi"])
        for (k, c) in q.enumerated() { city.extraNodes += GridCity.node(2_000_000_010 + Int64(k), c, [:]) }
        // Outer: south edge with the door, then the rest; inner: the courtyard.
        city.extraWays += GridCity.way(2_000_000_100, [2_000_000_000, 2_000_000_004, 2_000_000_001], [:])
        city.extraWays += GridCity.way(
            2_000_000_101, [2_000_000_001, 2_000_000_002, 2_000_000_003, 2_000_000_000], [:])
        city.extraWays += GridCity.way(
            2_000_000_102, [2_000_000_010, 2_000_000_011, 2_000_000_012, 2_000_000_013, 2_000_000_010], [:])
        city.extraRelations += """
              <relation id="7"><member type="way" ref="2000000100" role="outer"/>\
            <member type="way" ref="2000000101" role="outer"/><member type="way" ref="2000000102" role="inner"/>\
            <tag k="building" v="university"/><tag k="name" v="Kortteli"/><tag k="type" v="multipolygon"/></relation>

            """
        let pbf = try city.write(xml: dir.appendingPathComponent("mp.osm").path)
        let db = dir.appendingPathComponent("mp.db").path
        let summary = try DoorImporter.importFile(pbf, to: db)
        #expect(summary.buildingWays == 4 && summary.buildingRelations == 1)
        #expect(summary.entrances == 2 && summary.entrancesOnOutlines == 2)
        let index = try DoorIndex(path: db)
        let wing = sw.offset(metres: 10, bearing: 0).offset(metres: 10, bearing: 90)
        let building = try #require(try index.building(at: wing))
        #expect(building.kind == .relation && building.id == 7 && building.name == "Kortteli")
        #expect(building.outline.rings.map(\.role) == [.outer, .inner])
        #expect(building.outline.rings[0].points.count == 5)
        // The courtyard is outside the building.
        #expect(try index.building(at: yard.offset(metres: 10, bearing: 45)) == nil)
        let doors = try index.doors(near: wing).doors
        #expect(doors.count == 1 && doors[0].coordinate.distance(to: door) < 0.01)
        // The door's name finds the building.
        #expect(try index.search("pääovi").first?.osm == "relation/7")
    }

    @Test func outlineBlobRoundTripsAtOSMPrecision() throws {
        let outline = BuildingOutline(rings: [
            .init(
                role: .outer,
                points: [
                    Coordinate(latitude: 60.1713772, longitude: 24.9424451),
                    Coordinate(latitude: -33.9, longitude: 151.2),
                    Coordinate(latitude: 0.0000001, longitude: -179.9999999),
                ]),
            .init(role: .inner, points: [Coordinate(latitude: 1, longitude: 2)]),
        ])
        #expect(BuildingOutline(blob: outline.blob) == outline)
        #expect(BuildingOutline(blob: Array(outline.blob.dropLast())) == nil)
    }

    @Test func multipolygonPiecesJoinIntoRings() {
        // Two halves of one ring, the second drawn backwards, and a closed ring.
        let rings = BuildingAssembly.joinRings([[1, 2, 3], [1, 5, 4, 3], [7, 8, 9, 7]])
        #expect(rings == [[1, 2, 3, 4, 5, 1], [7, 8, 9, 7]])
    }

    /// The head of compressed XML tells how `doors import` advises converting it: Overpass's
    /// (by its generator, or a `<nd>` with its place) decompressed; history (a deleted
    /// element, an element followed by its next version as the API's history call gives it,
    /// `visible` in osmium's XML) into `.osh.pbf`; anything else, JOSM's `visible='true'`, a
    /// copy of an element and a head cut inside a tag among them, into `.osm.pbf`.
    @Test(arguments: [
        (
            #"<osm version="0.6" generator="Overpass API 0.7.62"><node id="1" lat="1" lon="2"/>"#,
            CompressedXML.overpass
        ),
        (
            #"<osm version="0.6"><node id="1" lat="1" lon="2"/><way id="2"><nd ref="1" lat="1" lon="2"/>"#,
            .overpass
        ),
        (
            #"<osm version="0.6" generator="OpenStreetMap server"><node id="7" visible="true" version="1" lat="1" lon="2"/><node id="7" visible="true" version="2" lat="1" lon="3"/>"#,
            .history
        ),
        (#"<osm version="0.6"><node id="7" version="3" visible="false"/>"#, .history),
        (
            #"<osm version="0.6" generator="osmium/1.15.0"><node id="1" version="1" visible="true" lat="1" lon="2"/>"#,
            .history
        ),
        (#"<osm version="0.6" generator="osmium/1.15.0"><node id="1" version="1" lat="1" lon="2"/>"#, .plain),
        (
            "<osm version='0.6' generator='JOSM'><node id='7' visible='true' version='1' lat='1' lon='2'/><node id='8' visible='true' version='1' lat='1' lon='2'/><way id='7' visible='true'><nd ref='7'/>",
            .plain
        ),
        (#"<osm version="0.6"><node id="7" version="1" lat="1" lon="2"/><node id="7" version="2"#, .plain),
        (
            #"<osm version="0.6"><node id="7" version="1" lat="1" lon="2"/><node id="7" version="1" lat="1" lon="2"/>"#,
            .plain
        ),
    ])
    func compressedXMLIsToldApartByItsHead(head: String, kind: CompressedXML) {
        #expect(CompressedXML.kind(of: Data(head.utf8)) == kind, "\(head)")
    }
}
