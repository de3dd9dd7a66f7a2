import Arrival
import Foundation
import Geo
import TestSupport
import Testing

@testable import PathfinderCLI

@Suite("pathfinder doors import / near")
struct DoorsCommandTests {

    func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "doors-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func importThenNearPrintsRankedDoorsOneALine() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let json = try #require(
            Bundle.module.path(forResource: "station-and-block", ofType: "json", inDirectory: "Fixtures"))
        let db = dir.appendingPathComponent("x.db").path
        let (importCode, _, importErr) = await runPathfinder(["doors", "import", json, "--out", db])
        #expect(importCode == 0, "\(importErr)")
        #expect(importErr.contains("3 ways, 1 relations"))

        let (code, out, err) = await runPathfinder(["doors", "near", "60.1712", "24.9413", "--db", db])
        #expect(code == 0, "\(err)")
        #expect(err.contains("way 122595198 \"Helsingin päärautatieasema\" contains the point"))
        let doors = try out.split(separator: "\n").map {
            try JSONDecoder().decode(Door.self, from: Data($0.utf8))
        }
        #expect(doors.count == 26)
        #expect(doors.first?.coordinate == Coordinate(latitude: 60.170747, longitude: 24.9414453))
        #expect(doors.allSatisfy { $0.source == .osm })
        // Each line is exactly the CONTRACT's Door encoding, keys sorted.
        #expect(out.hasPrefix("{\"lat\":60.170747,\"lon\":24.9414453,\"source\":\"osm\"}\n"))
    }

    /// Overpass JSON (and OSM XML) saved with a UTF-8 byte-order mark was refused, exit 2;
    /// it imports as without the mark.
    @Test func importReadsAFileWithAByteOrderMark() async throws {
        let dir = try Scratch()
        let json = try #require(
            Bundle.module.path(forResource: "station-and-block", ofType: "json", inDirectory: "Fixtures"))
        for (name, source) in [("bom.json", json), ("bom.osm", try fixture("siltavuorenpenger-block.osm"))] {
            let marked = dir.file(name)
            try (Data([0xEF, 0xBB, 0xBF]) + Data(contentsOf: URL(fileURLWithPath: source)))
                .write(to: URL(fileURLWithPath: marked))
            let (plain, _, plainErr) = await runPathfinder([
                "doors", "import", source, "--out", dir.file(name + ".plain.db"),
            ])
            let (code, _, err) = await runPathfinder([
                "doors", "import", marked, "--out", dir.file(name + ".db"),
            ])
            #expect(plain == 0 && code == 0, "\(err)")
            // The same summary: every entrance and building read.
            #expect(
                err.replacingOccurrences(of: name + ".db", with: "")
                    == plainErr.replacingOccurrences(of: name + ".plain.db", with: ""), "\(err)")
        }
    }

    /// A failed download (a web server's error page saved under the extract's name) is said to
    /// be a web page, to download again, exit 2, nothing written. Before (audit 12, A12-8): "a
    /// DOCTYPE (document type definition) … its entities could expand without end".
    @Test(arguments: [
        "<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>\n",
        "\u{FEFF}\r\n  <!doctype HTML PUBLIC \"-//W3C//DTD HTML 4.01//EN\">\n<HTML><body>Gone</body></HTML>\n",
        "\n<html>\n<head><title>502 Bad Gateway</title></head>\n</html>\n",
        // XHTML error pages (IIS, Tomcat, proxies) begin with an XML declaration; some saved
        // pages with a comment (audit 13, A13-1: before, the DOCTYPE refusal or "root element
        // is <html>").
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Strict//EN\" \"http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd\">\n<html xmlns=\"http://www.w3.org/1999/xhtml\"><body>404</body></html>\n",
        "<?xml version=\"1.0\"?>\n<html><body>502</body></html>\n",
        "<!-- saved from url=(0040)https://download.example.org/korea.pbf -->\n<html><body>Not Found</body></html>\n",
    ])
    func importOfAWebPageSaysItIsOneNotOSMData(_ page: String) throws {
        try importsAsAWebPage(Data(page.utf8))
    }

    /// A web page saved in UTF-16 (a byte-order mark first) is one too (audit 13, A13-1: before,
    /// it went to osmium, "PBF error: invalid BlobHeader size").
    @Test(arguments: [true, false])
    func importOfAWebPageInUTF16SaysItIsOne(littleEndian: Bool) throws {
        let page = "<!DOCTYPE html>\n<html><body>Not Found</body></html>\n"
        let units = page.utf16.flatMap {
            littleEndian ? [UInt8($0 & 0xFF), UInt8($0 >> 8)] : [UInt8($0 >> 8), UInt8($0 & 0xFF)]
        }
        try importsAsAWebPage(Data((littleEndian ? [0xFF, 0xFE] : [0xFE, 0xFF]) + units))
    }

    /// OSM XML whose comment before `<osm>` names a web page is still OSM XML.
    @Test func osmXMLWithACommentBeforeItsRootImports() throws {
        let dir = try Scratch()
        let path = try dir.write(
            "commented.osm",
            "<?xml version=\"1.0\"?>\n<!-- not <html>: an extract -->\n<osm version=\"0.6\"><node id=\"1\" lat=\"60.17\" lon=\"24.94\"><tag k=\"entrance\" v=\"main\"/></node></osm>\n"
        )
        let r = try BinaryTests.run(
            executable: try BinaryTests.binary(), ["doors", "import", path, "--out", dir.file("c.db")])
        #expect(r.code == 0, "\(r.err)")
        #expect(!r.err.contains("web page"), "\(r.err)")
    }

    /// `doors import` of `bytes` saved as an extract: exit 2, said to be a web page, nothing written.
    func importsAsAWebPage(_ bytes: Data) throws {
        let dir = try Scratch()
        let path = dir.file("south-korea-latest.osm.pbf")
        try bytes.write(to: URL(fileURLWithPath: path))
        let r = try BinaryTests.run(
            executable: try BinaryTests.binary(), ["doors", "import", path, "--out", dir.file("korea.db")])
        #expect(r.code == 2, "\(r.err)")
        #expect(
            r.err.contains(
                "\(path): a web page (HTML), not OSM data (a failed download?): download it again"),
            "\(r.err)")
        #expect(!r.err.contains("DOCTYPE"), "\(r.err)")
        #expect(dir.entries == ["south-korea-latest.osm.pbf"])
    }

    /// Overpass XML saved from `out geom;` (each way's `<nd>` with its place, a relation's
    /// member ways as points inside it, untagged nodes not listed) imports, and the binary
    /// finds in it the buildings and doors it finds in the plain XML of the same data (before:
    /// the station's outline was its doors alone, and relation 4198 had none, "without nodes").
    @Test func overpassXMLFromOutGeomFindsTheDoorsOfThePlainXML() throws {
        let dir = try Scratch()
        let fixtures = DemoTests.repo + "/Tests/EntranceIndexTests/Fixtures/"
        let binary = try BinaryTests.binary()
        var answers: [[String]] = []
        for name in ["station-and-block.osm", "station-and-block-out-geom.osm"] {
            let db = dir.file(name + ".db")
            let imported = try BinaryTests.run(
                executable: binary, ["doors", "import", fixtures + name, "--out", db])
            #expect(imported.code == 0, "\(imported.err)")
            #expect(imported.err.contains("3 ways, 1 relations"), "\(imported.err)")
            #expect(imported.err.contains("0 without nodes in the extract"), "\(imported.err)")
            var said: [String] = []
            for argv in [
                ["doors", "search", "Helsingin päärautatieasema"],
                ["doors", "near", "60.1712", "24.9413"],
                ["doors", "near", "60.1782", "24.9492"],
                ["doors", "near", "60.1775", "24.9480"],
            ] {
                let r = try BinaryTests.run(executable: binary, argv + ["--db", db])
                #expect(r.code == 0, "\(name) \(argv): \(r.err)")
                said.append(r.out + r.err.replacingOccurrences(of: db, with: "DB"))
            }
            answers.append(said)
        }
        #expect(answers[1] == answers[0])
        #expect(
            answers[1][1].contains(
                "building way 122595198 \"Helsingin päärautatieasema\" contains the point; 26 doors"),
            "\(answers[1][1])")
        #expect(
            answers[1][2].contains("building relation 4198 contains the point; 1 doors"), "\(answers[1][2])")
    }

    @Test func searchPrintsOneBuildingALineAndNearOutsideTheIndexExits1() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let json = try #require(
            Bundle.module.path(forResource: "station-and-block", ofType: "json", inDirectory: "Fixtures"))
        let db = dir.appendingPathComponent("x.db").path
        #expect(await runPathfinder(["doors", "import", json, "--out", db]).0 == 0)

        let (code, out, err) = await runPathfinder([
            "doors", "search", "päärautatieasema", "helsingin", "--db", db,
        ])
        #expect(code == 0, "\(err)")
        let line = try #require(out.split(separator: "\n").first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["osm"] as? String == "way/122595198")
        #expect(object["name"] as? String == "Helsingin päärautatieasema")
        #expect(object["doors"] as? Int == 26)
        #expect(object["metres"] == nil)

        let (nearCode, nearOut, _) = await runPathfinder([
            "doors", "search", "Helsingin päärautatieasema", "--near", "60.1712", "24.9413", "--limit", "1",
            "--db", db,
        ])
        #expect(nearCode == 0)
        #expect(nearOut.split(separator: "\n").count == 1)
        #expect(nearOut.contains("\"metres\":0"), "\(nearOut)")

        let (outsideCode, outsideOut, outsideErr) = await runPathfinder([
            "doors", "near", "37.5665", "126.978", "--db", db,
        ])
        #expect(outsideCode == 1)
        #expect(outsideOut.isEmpty)
        #expect(
            outsideErr.contains("pathfinder doors near: outside the door index (it covers 60.1"),
            "\(outsideErr)")
    }

    /// The audit's case in the bundled index, through the binary and its default index:
    /// "Stockmann" is first the department store whose own name it is (way/122595241, 7
    /// doors), then Kirjatalo (way/34079467), which holds a shop of that name; so with a point
    /// Kirjatalo is nearer to, and for the typo "Stockman". Before, Kirjatalo came first (the
    /// lower id, or the nearer). A name only a shop inside has still finds its building.
    @Test func aBuildingsOwnNameComesBeforeAShopOfThatNameInAnother() throws {
        let binary = try BinaryTests.binary()
        let stockmann = "way/122595241"
        let kirjatalo = "way/34079467"
        func osm(_ argv: [String]) throws -> [String] {
            let r = try BinaryTests.run(executable: binary, ["doors", "search"] + argv)
            #expect(r.code == 0, "\(argv): \(r.err)")
            return try r.out.split(separator: "\n").map { line in
                let object = try #require(
                    try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                return try #require(object["osm"] as? String)
            }
        }
        // East of both: Kirjatalo ≈ 353 m, Stockmann ≈ 435 m.
        let east = ["--near", "60.1680", "24.9500"]
        for query in ["Stockmann", "Stockman", "stockm"] {
            #expect(try osm([query]) == [stockmann, kirjatalo], "\(query)")
            #expect(try osm([query] + east) == [stockmann, kirjatalo], "\(query)")
        }
        let near = try BinaryTests.run(executable: binary, ["doors", "search", "Stockmann"] + east)
        #expect(near.out.contains(#""metres":435.1"#) && near.out.contains(#""metres":352.8"#), "\(near.out)")
        #expect(try osm(["Akateeminen Kirjakauppa"]) == [kirjatalo])
        #expect(try osm(["Akateeminen Kirjakauppa"] + east) == [kirjatalo])
    }

    /// `doors search Alepa --near` with the building named Alepa 2 km away in one region's
    /// index and a building holding an Alepa shop 300 m away in another's: the shop's building
    /// first (a match only inside counts 250 m further: 550 m < 2 km); without --near, the
    /// building of that name. Before: the building 2 km away first at any distance.
    @Test func searchNearAPointPutsAChainsShopNearbyBeforeABuildingOfThatNameFar() throws {
        let dir = try Scratch()
        let regions = dir.file("regions")
        let here = Coordinate(latitude: 60.1700, longitude: 24.9400)
        let own = here.offset(metres: 2_000, bearing: 0)
        let inside = here.offset(metres: 300, bearing: 90)
        let shop = String(
            format:
                #" <node id="9001" lat="%.7f" lon="%.7f"><tag k="name" v="Alepa"/><tag k="shop" v="supermarket"/></node>"#,
            inside.latitude, inside.longitude)
        for (name, xml) in [
            (
                "own",
                squareBuildingsXML([
                    SquareBuilding(
                        lat: own.latitude, lon: own.longitude, tags: ["building": "yes", "name": "Alepa"])
                ])
            ),
            (
                "inside",
                squareBuildingsXML([
                    SquareBuilding(
                        lat: inside.latitude, lon: inside.longitude,
                        tags: ["building": "yes", "name": "Talo"])
                ]).replacingOccurrences(of: " <way id=\"1\">", with: shop + "\n <way id=\"1\">")
            ),
        ] {
            let imported = try BinaryTests.run(
                executable: try BinaryTests.binary(),
                ["doors", "import", try dir.write("\(name).osm", xml), "--out", regions + "/\(name).db"])
            try #require(imported.code == 0, "\(imported.err)")
        }
        func names(_ argv: [String]) throws -> [String] {
            let r = try BinaryTests.run(
                executable: try BinaryTests.binary(), ["doors", "search", "Alepa", "--db", regions] + argv)
            #expect(r.code == 0, "\(r.err)")
            return try r.out.split(separator: "\n").map {
                let object = try #require(
                    try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
                return
                    "\(object["name"] as? String ?? "") \(Int((object["metres"] as? Double ?? -1).rounded()))"
            }
        }
        #expect(try names(["--near", "60.1700", "24.9400"]) == ["Talo 300", "Alepa 2000"])
        #expect(try names([]) == ["Alepa -1", "Talo -1"])
    }

    /// The bundled index stores "Siltavuorenpenger 10" with the number last; typed number
    /// first, whole or with the street cut short, the command still finds it.
    @Test(arguments: ["10 Siltavuorenpenger", "10 SILTAVUOREN", "Siltavuorenpenger 10"])
    func anAddressTypedNumberFirstIsFound(query: String) async throws {
        let (code, out, err) = await runPathfinder(["doors", "search", query, "--limit", "3"])
        #expect(code == 0, "\(err)")
        #expect(out.split(separator: "\n").count == 1, "\(out)")
        #expect(out.contains("\"address\":\"Siltavuorenpenger 10\""), "\(out)")
        #expect(out.contains("\"osm\":\"way/28903274\""), "\(out)")
    }

    /// The binary and its bundled index, with addresses as a family member sends them: a house
    /// number the index does not hold finds no other house ("Mannerheimintie 1", before its
    /// address point was read, found Mannerheimintie 10 and 13A as its start; "Unioninkatu 3"
    /// is not 33b or 34); a house letter apart finds the one tagged
    /// joined ("13 A", 13A); a letter, a staircase and flat, a range, a postcode and city after
    /// the number find the building by its street and number, said on stderr (before: "0
    /// buildings match" for each).
    /// A building with neither a name nor an address of its own, found by an address mapped as
    /// a point inside it, is called by that address as the query wrote it, a house letter
    /// stored after its number kept (audit 14's A14-5: before, `"address": null`); never by a
    /// shop's longer name holding the address, nor by a range holding the number (audit 16:
    /// "Galleria 4 kuus", "Uudenmaankatu 1 5").
    @Test func aNamelessBuildingIsCalledByTheAddressAsked() throws {
        let binary = try BinaryTests.binary()
        func first(_ query: String) throws -> [String: Any] {
            let r = try BinaryTests.run(executable: binary, ["doors", "search", query, "--limit", "1"])
            #expect(r.code == 0, "\(query): \(r.err)")
            let line = try #require(r.out.split(separator: "\n").first, "\(query): \(r.err)")
            return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        for (query, osm, address) in [
            ("Korkeavuorenkatu 41", "way/22498746", "Korkeavuorenkatu 41"),
            ("Pitkänsillanranta 17,", "relation/1681392", "Pitkänsillanranta 17"),
            ("Aleksanterinkatu 36", "way/123550792", "Aleksanterinkatu 36a"),
            ("Pohjoisesplanadi 15-17", "way/17426125", "Pohjoisesplanadi 15-17"),
            // A city before or after it, a letter written with the number first (audit 17).
            ("Helsinki, Aleksanterinkatu 21", "way/89532596", "Aleksanterinkatu 21"),
            ("Aleksanterinkatu 21, Helsinki", "way/89532596", "Aleksanterinkatu 21"),
            ("36A Aleksanterinkatu", "way/123550792", "Aleksanterinkatu 36A"),
        ] {
            let found = try first(query)
            #expect(found["osm"] as? String == osm, "\(query): \(found)")
            #expect(found["address"] as? String == address, "\(query): \(found)")
        }
        for (query, osm) in [
            ("Galleria 4", "relation/1689849"), ("Uudenmaankatu 1-3", "relation/1689680"),
            ("00130 Helsinki", "way/22463046"),
        ] {
            let found = try first(query)
            #expect(found["osm"] as? String == osm, "\(query): \(found)")
            #expect(found["address"] is NSNull, "\(query): \(found)")
        }
    }

    @Test func anAddressFindsItsHouseNumberAndNoOther() throws {
        let binary = try BinaryTests.binary()
        func search(_ query: String) throws -> (osm: [String], err: String) {
            let r = try BinaryTests.run(
                executable: binary, ["doors", "search", query, "--near", "60.1699", "24.9384"])
            #expect(r.code == 0, "\(query): \(r.err)")
            let osm = try r.out.split(separator: "\n").map { line in
                let object = try #require(
                    try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                return try #require(object["osm"] as? String)
            }
            return (osm, r.err)
        }
        // Nor the street of one of a building's addresses and the number of another: the
        // building at Vuorikatu 19 with a door at Kaisaniemenkatu 8 is not "Vuorikatu 8"; the
        // University's main building (Aleksanterinkatu 5, a door at Fabianinkatu 33) is not
        // "Aleksanterinkatu 33" (before, both found, and `go` walked there).
        // (Mannerheimintie 1 and 7 are in it, address points inside Stockmann and Seurahuone.)
        // Nor one address's street with another's number, a longer number, a shop's number or
        // another street of two words (audit 14: the block at Pohjoinen Makasiinikatu 2,
        // Eteläinen Makasiinikatu 1 and Unioninkatu 11; World Trade Center, Aleksanterinkatu 17
        // with a shop "1Store").
        for query in [
            "Unioninkatu 3", "Kaisaniemenkatu 1", "Vuorikatu 8", "Kaisaniemenkatu 19", "Aleksanterinkatu 33",
            "Fabianinkatu 5", "Unioninkatu 1", "Aleksanterinkatu 1", "Eteläinen Makasiinikatu 2",
            "Pohjoinen Makasiinikatu 1", "Korkeavuorenkatu 4", "Pitkänsillanranta 1",
            // The number first, as written abroad: "kaivokatu 7", which none holds (audit 15:
            // before, no address check at all: Seurahuone, Mannerheimintie 7 and Kaivokatu 12).
            "7 Kaivokatu", "19 Kaisaniemenkatu", "12 Kasarmikatu",
            // A range sharing only an end with the lot 3-5 (audit 15: before, Fasaanilinna).
            "Iso Roobertinkatu 1-3",
            // A building's name with a number that is not its address's.
            "Stockmann 5", "Lasipalatsi 23",
            // A street inside longer ones (Pohjoinen and Eteläinen Makasiinikatu; Läntinen and
            // Itäinen Teatterikuja), a number inside a shop's word ("G12 Galleria"): audit 16.
            "Makasiinikatu 2", "Teatterikuja 1", "2 Galleria",
        ] {
            let (osm, err) = try search(query)
            #expect(osm == [], "\(query)")
            #expect(err.contains("0 buildings match \"\(query)\""), "\(err)")
        }
        for query in ["Mannerheimintie 13 A", "Mannerheimintie 13a", "Mannerheimintie 13"] {
            #expect(try search(query).osm.first == "way/58023634", "\(query)")
        }
        #expect(try search("Mannerheimintie 22").osm.first == "way/8035238")
        #expect(try search("Kaisaniemenkatu 8").osm.first == "way/122872071")
        #expect(try search("Fabianinkatu 33").osm.first == "relation/1320784")
        #expect(try search("10 Kaivokatu").osm.first == "way/23648033")
        // A building's name and its address's number (audit 14's A14-7: before, nothing).
        #expect(try search("Stockmann 52").osm == ["way/122595241"])
        #expect(try search("Lasipalatsi 24").osm == ["way/8035238"])
        for query in ["Pohjoinen Makasiinikatu 2", "Unioninkatu 11", "Eteläinen Makasiinikatu 1"] {
            #expect(try search(query).osm == ["way/22462913"], "\(query)")
        }
        // An address mapped as a point inside a building (Stockmann's Mannerheimintie 1).
        #expect(try search("Mannerheimintie 1").osm == ["way/122595241"])
        for (query, form, building) in [
            ("Mannerheimintie 5A", "Mannerheimintie 5", "way/224711434"),
            ("Mannerheimintie 5 B", "Mannerheimintie 5", "way/224711434"),
            ("Mannerheimintie 5 A 12", "Mannerheimintie 5", "way/224711434"),
            ("Mannerheimintie 5-7", "Mannerheimintie 5", "way/224711434"),
            ("Kaivokatu 10, 00100 Helsinki", "Kaivokatu 10", "way/23648033"),
            ("Kaivokatu 10 Helsinki", "Kaivokatu 10", "way/23648033"),
            // The number first where a letter is stored after it (audit 15: before, nothing; the
            // street first found it): turned, as addresses are stored (36b and 2a, nearest).
            ("36 Aleksanterinkatu", "Aleksanterinkatu 36", "way/123550794"),
            ("2 Kaisaniemenkatu, 00100 Helsinki", "Kaisaniemenkatu 2", "way/135980458"),
            ("Helsinki, 36 Aleksanterinkatu", "Aleksanterinkatu 36", "way/123550794"),
            // A comma after the street, a letter after the number (audit 16: before, "5 A" was
            // tried as an address written number first, and found Alvar Aallon katu 5).
            ("Mannerheimintie, 5 A", "Mannerheimintie 5", "way/224711434"),
            // A range's end in a range holding all of the one written: the lot 1-5 (audit 16).
            ("Uudenmaankatu 1-3", "Uudenmaankatu 1", "relation/1689680"),
        ] {
            let (osm, err) = try search(query)
            #expect(osm.first == building, "\(query)")
            #expect(
                err.contains("nothing matches \"\(query)\"; \(osm.count) buildings match \"\(form)\""),
                "\(err)")
        }
    }

    /// A query longer than any name or address (a pasted page of numbers) is refused, exit 2,
    /// saying the limit: before, 20 KB took 4.5 s and 1.85 GB. One at the limit is searched.
    @Test func anOverlongQueryIsRefused() throws {
        let binary = try BinaryTests.binary()
        let long = String(repeating: "1 ", count: 100) + "k"
        let refused = try BinaryTests.run(executable: binary, ["doors", "search", long])
        #expect(refused.code == 2 && refused.out.isEmpty, "\(refused.err)")
        #expect(
            refused.err.contains(
                "pathfinder doors search: the query is 201 characters: at most 200 (a name or an address) are searched"
            ),
            "\(refused.err)")
        let atLimit = try BinaryTests.run(executable: binary, ["doors", "search", String(long.dropLast(2))])
        #expect(atLimit.code == 0, "\(atLimit.err)")
    }

    /// The contract lists `{"osm", "name", "address", "lat", "lon", "doors", "metres"}`, only
    /// `metres` conditional: a building without a name (or an address) left the key out; now
    /// it is `null`, as `where` writes what it does not know.
    @Test func searchWritesAnUnknownNameOrAddressAsNull() async throws {
        let dir = try Scratch()
        func square(_ id: Int, _ lat: Double) -> String {
            (0..<4).map { k in
                #"{"type": "node", "id": \#(id * 10 + k), "lat": \#(lat + (k / 2 == 0 ? 0 : 0.0002)), "lon": \#(24.95 + (k == 1 || k == 2 ? 0.0004 : 0))}"#
            }.joined(separator: ",\n")
        }
        let json = """
            {"elements": [
            \(square(1, 60.17)),
            \(square(2, 60.18)),
            {"type": "node", "id": 99, "lat": 60.17, "lon": 24.9502, "tags": {"entrance": "main"}},
            {"type": "way", "id": 1, "nodes": [10, 99, 11, 12, 13, 10],
             "tags": {"building": "yes", "addr:street": "Siltakatu", "addr:housenumber": "7"}},
            {"type": "way", "id": 2, "nodes": [20, 21, 22, 23, 20], "tags": {"building": "yes", "name": "Siltatalo"}}
            ]}
            """
        let db = dir.file("x.db")
        let imported = await runPathfinder(["doors", "import", try dir.write("x.json", json), "--out", db])
        try #require(imported.code == 0, "\(imported.err)")
        for (query, name, address) in [("Siltakatu 7", nil, "Siltakatu 7"), ("Siltatalo", "Siltatalo", nil)] {
            let (code, out, err) = await runPathfinder(["doors", "search", query, "--limit", "1", "--db", db])
            #expect(code == 0, "\(err)")
            let line = try #require(out.split(separator: "\n").first, "\(query): \(err)")
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(Set(object.keys) == ["osm", "name", "address", "lat", "lon", "doors"], "\(line)")
            #expect(object["name"] as? String == name && object["address"] as? String == address, "\(line)")
            #expect((name == nil ? object["name"] : object["address"]) is NSNull, "\(line)")
        }
        // The auditor's case in the bundled index: an apartment block with an address, no name.
        let (code, out, _) = await runPathfinder(["doors", "search", "Siltavuorenpenger 10", "--limit", "1"])
        #expect(code == 0)
        #expect(out.contains(#""name":null"#) && out.contains(#""osm":"way/28903274""#), "\(out)")
        // With --near, every key.
        let (nearCode, nearOut, _) = await runPathfinder([
            "doors", "search", "Siltakatu 7", "--near", "60.17", "24.95", "--limit", "1", "--db", db,
        ])
        #expect(nearCode == 0)
        #expect(
            nearOut.hasPrefix(#"{"address":"Siltakatu 7","doors":1,"#)
                && nearOut.contains(#""name":null,"osm":"way/1"}"#)
                && nearOut.contains(#""metres":"#), "\(nearOut)")
    }

    /// Two regional indexes in one directory, Busan's box inside Gyeongnam's: a point in
    /// both boxes where only Gyeongnam's index has a building. Before: "no building within
    /// 50 m" from Busan's (the smaller box), no doors.
    @Test func nearInOverlappingRegionsFindsTheBuildingInTheLargerOne() async throws {
        let dir = try Scratch()
        let regions = dir.file("regions")
        for (name, buildings) in [
            ("busan", [(35.05, 128.95, "부산 남서"), (35.30, 129.25, "부산 북동")]),
            ("gyeongnam", [(35.28, 128.97, "김해 건물"), (34.80, 127.80, "진주 쪽")]),
        ] {
            let xml = squareBuildingsXML(
                buildings.map {
                    SquareBuilding(lat: $0.0, lon: $0.1, tags: ["building": "yes", "name": $0.2])
                })
            let imported = await runPathfinder([
                "doors", "import", try dir.write("\(name).osm", xml), "--out", regions + "/\(name).db",
            ])
            try #require(imported.code == 0, "\(imported.err)")
        }
        let (code, out, err) = await runPathfinder(["doors", "near", "35.28", "128.97", "--db", regions])
        #expect(code == 0, "\(err)")
        #expect(err.contains("way 1 \"김해 건물\" contains the point"), "\(err)")
        #expect(out == "{\"lat\":35.2799,\"lon\":128.97,\"source\":\"osm\"}\n", "\(out)")
        let outside = await runPathfinder(["doors", "near", "37.5", "127", "--db", regions])
        #expect(outside.code == 1 && outside.err.contains("outside the door indexes"), "\(outside.err)")
    }

    /// Two regions side by side: the point is inside north's box, 155 m from south's. South's
    /// 한빛 약국 is 170 m away, north's 3.4 km; north has 한빛 약국 본점 at the point. `search
    /// --near` merges both indexes in one index's order: the whole name before its start,
    /// then the nearer. Before: north's index alone answered, and south's pharmacy was not
    /// found at all.
    @Test func searchNearAPointAsksEveryIndexAndMergesThem() throws {
        let dir = try Scratch()
        let regions = dir.file("regions")
        for (name, buildings) in [
            (
                "north",
                [
                    (37.5700, 127.0000, "북쪽 끝 건물"), (37.5705, 127.0005, "한빛 약국 본점"),
                    (37.6000, 127.0300, "한빛 약국"),
                ]
            ),
            ("south", [(37.5690, 127.0005, "한빛 약국"), (37.5400, 126.9800, "남쪽 건물")]),
        ] {
            let xml = squareBuildingsXML(
                buildings.map {
                    SquareBuilding(lat: $0.0, lon: $0.1, tags: ["building": "yes", "name": $0.2])
                })
            let imported = try BinaryTests.run(
                executable: try BinaryTests.binary(),
                ["doors", "import", try dir.write("\(name).osm", xml), "--out", regions + "/\(name).db"])
            try #require(imported.code == 0, "\(imported.err)")
        }
        let r = try BinaryTests.run(
            executable: try BinaryTests.binary(),
            ["doors", "search", "한빛 약국", "--near", "37.5705", "127.0005", "--db", regions])
        #expect(r.code == 0, "\(r.err)")
        let found = try r.out.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(found.map { $0["name"] as? String } == ["한빛 약국", "한빛 약국", "한빛 약국 본점"], "\(r.out)")
        // South's way 1, north's way 3, north's way 2.
        #expect(found.map { $0["osm"] as? String } == ["way/1", "way/3", "way/2"], "\(r.out)")
        let metres = found.compactMap { $0["metres"] as? Double }
        #expect(
            metres.count == 3 && abs(metres[0] - 167) < 5 && metres[1] > 3000 && metres[2] == 0, "\(r.out)")
        // --limit takes the first of the merged order.
        let one = try BinaryTests.run(
            executable: try BinaryTests.binary(),
            ["doors", "search", "한빛 약국", "--near", "37.5705", "127.0005", "--limit", "1", "--db", regions])
        #expect(
            one.code == 0 && one.out.split(separator: "\n").count == 1
                && one.out.contains("\"osm\":\"way/1\""), "\(one.out)")
    }

    /// Overlapping indexes (two copies of one, or a city's inside its province's) hold the same
    /// buildings: `search`, with `--near` and without, lists each building once (by its OSM
    /// id, where it ranks best), so `--limit 2` gives the two buildings. Before: "2 buildings
    /// match", way/1 twice, and 한빛 약국 본점 not listed.
    @Test func overlappingIndexesListEachBuildingOnce() throws {
        let dir = try Scratch()
        let binary = try BinaryTests.binary()
        let regions = dir.file("regions")
        let xml = squareBuildingsXML(
            [(37.5690, 127.0005, "한빛 약국"), (37.5705, 127.0005, "한빛 약국 본점"), (37.5400, 126.9800, "남쪽 건물")]
                .map { SquareBuilding(lat: $0.0, lon: $0.1, tags: ["building": "yes", "name": $0.2]) })
        let imported = try BinaryTests.run(
            executable: binary, ["doors", "import", try dir.write("r.osm", xml), "--out", regions + "/a.db"])
        try #require(imported.code == 0, "\(imported.err)")
        try FileManager.default.copyItem(atPath: regions + "/a.db", toPath: regions + "/b.db")
        for near in [["--near", "37.5690", "127.0005"], []] {
            let r = try BinaryTests.run(
                executable: binary, ["doors", "search", "한빛 약국", "--limit", "2", "--db", regions] + near)
            #expect(r.code == 0, "\(r.err)")
            let osm = try r.out.split(separator: "\n").map {
                try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])["osm"]
                    as? String
            }
            #expect(osm == ["way/1", "way/2"], "\(near): \(r.out)")
            #expect(r.err.hasSuffix("2 buildings match \"한빛 약국\"\n"), "\(r.err)")
        }
    }

    /// A Korean road address as people copy it — province and district first, commas, the
    /// neighbourhood in parentheses — finds the building tagged with only its street and
    /// number, and says it was found by the shorter form (before: "0 buildings match" for
    /// all). Words that name no region are never dropped, nor is anything from a query with
    /// no house number: "해군 작전 사령부" must not become the army's "작전 사령부" (a review found
    /// it did, for a moment).
    @Test func aKoreanAddressWithItsRegionFirstFindsTheBuilding() async throws {
        let dir = try Scratch()
        let xml = squareBuildingsXML([
            SquareBuilding(
                lat: 37.5663, lon: 126.9779,
                tags: [
                    "building": "public", "name": "서울특별시청", "addr:street": "세종대로", "addr:housenumber": "110",
                ]),
            SquareBuilding(
                lat: 37.5700, lon: 126.9779,
                tags: [
                    "building": "yes", "name": "육군 작전 사령부", "addr:street": "국방로", "addr:housenumber": "110",
                ]),
        ])
        let db = dir.file("seoul.db")
        let imported = await runPathfinder(["doors", "import", try dir.write("seoul.osm", xml), "--out", db])
        try #require(imported.code == 0, "\(imported.err)")
        for query in [
            "서울특별시 중구 세종대로 110", "서울 중구 세종대로 110", "서울특별시 세종대로 110", "대한민국 서울특별시 중구 세종대로 110",
            "서울특별시, 중구, 세종대로 110", "서울특별시 중구 세종대로 110 (태평로1가)",
        ] {
            let (code, out, err) = await runPathfinder(["doors", "search", query, "--limit", "1", "--db", db])
            #expect(code == 0, "\(err)")
            #expect(out.contains("\"name\":\"서울특별시청\""), "\(query): \(out)")
            #expect(err.contains("nothing matches \"\(query)\"; 1 buildings match \"세종대로 110\""), "\(err)")
        }
        // A word ending in 군, 시 or 구 before no road or region is no district: "해군 작전 사령부
        // 110" must not become "작전 사령부 110", the army's (a review found it did).
        for query in [
            "부산역 세종대로 110", "중구 세종대로", "해군 작전 사령부", "입구 작전 사령부", "해군 작전 사령부 110", "택시 작전 사령부 110",
        ] {
            let (_, out, err) = await runPathfinder(["doors", "search", query, "--db", db])
            #expect(out.isEmpty, "\(query): \(out)")
            #expect(err.contains("0 buildings match \"\(query)\""), "\(err)")
        }
    }

    /// Full-width ASCII as Korean IMEs and web pages write it — digits, Latin letters, a hyphen,
    /// commas, parentheses, the ideographic space (U+3000) — finds what its ASCII form finds, on
    /// the binary: `doors search` and the gazetteer's `search` (before: "0 buildings match
    /// "세종대로 １１０"" while "세종대로 110" found the city hall).
    @Test func fullWidthASCIIFindsWhatItsASCIIFormFinds() throws {
        let dir = try Scratch()
        let xml = squareBuildingsXML([
            SquareBuilding(
                lat: 37.5663, lon: 126.9779,
                tags: [
                    "building": "public", "name": "서울특별시청", "name:en": "Seoul City Hall",
                    "addr:street": "세종대로",
                    "addr:housenumber": "110",
                ]),
            SquareBuilding(
                lat: 37.5680, lon: 126.9790,
                tags: ["building": "yes", "name": "무교 빌딩", "addr:street": "무교로", "addr:housenumber": "12-3"]),
        ])
        let db = dir.file("seoul.db")
        let imported = try BinaryTests.run(
            executable: try BinaryTests.binary(),
            ["doors", "import", try dir.write("seoul.osm", xml), "--out", db])
        try #require(imported.code == 0, "\(imported.err)")
        for (query, name) in [
            ("세종대로 １１０", "서울특별시청"), ("세종대로１１０", "서울특별시청"), ("세종대로\u{3000}１１０", "서울특별시청"),
            ("ＳＥＯＵＬ ｃｉｔｙ Ｈａｌｌ", "서울특별시청"), ("１１０ 세종대로", "서울특별시청"), ("무교로 １２－３", "무교 빌딩"),
        ] {
            let r = try BinaryTests.run(
                executable: try BinaryTests.binary(), ["doors", "search", query, "--limit", "1", "--db", db])
            #expect(r.code == 0 && r.out.contains("\"name\":\"\(name)\""), "\(query): \(r.out) \(r.err)")
            #expect(r.err.contains("1 buildings match \"\(query)\""), "\(r.err)")
        }
        // A pasted address in full-width punctuation drops its region words as the ASCII one does.
        let pasted = "서울특별시，중구，세종대로 １１０ （태평로1가）"
        let r = try BinaryTests.run(
            executable: try BinaryTests.binary(), ["doors", "search", pasted, "--db", db])
        #expect(r.code == 0 && r.out.contains("\"name\":\"서울특별시청\""), "\(r.out) \(r.err)")
        #expect(r.err.contains("nothing matches \"\(pasted)\"; 1 buildings match \"세종대로 110\""), "\(r.err)")
        // The gazetteer folds queries the same way (the bundled one).
        let city = try BinaryTests.run(
            executable: try BinaryTests.binary(), ["search", "Ｈｅｌｓｉｎｋｉ", "--limit", "1"])
        #expect(
            city.code == 0 && city.out.hasPrefix("{\"kind\":\"city\",\"id\":658225,"),
            "\(city.out) \(city.err)")
    }

    /// In a directory, the shorter forms are tried only when no index matches the query as
    /// written: "광주 중앙로 100" is Gwangju's building, never Daegu's 중앙로 100 found by "중앙로 100"
    /// in the index that held no 광주 (a review found Daegu's first, and the daemon walking there).
    @Test func aDirectoryDropsNoWordAnIndexMatched() async throws {
        let dir = try Scratch()
        let doors = dir.file("doors")
        for (name, lat, lon, building) in [
            ("gwangju", 35.15, 126.85, "광주 목표 빌딩"), ("daegu", 35.87, 128.60, "대구 틀린 빌딩"),
        ] {
            let xml = squareBuildingsXML([
                SquareBuilding(
                    lat: lat, lon: lon,
                    tags: [
                        "building": "yes", "name": building, "addr:street": "중앙로", "addr:housenumber": "100",
                    ])
            ])
            let imported = await runPathfinder([
                "doors", "import", try dir.write("\(name).osm", xml), "--out", "\(doors)/\(name).db",
            ])
            try #require(imported.code == 0, "\(imported.err)")
        }
        let (code, out, err) = await runPathfinder(["doors", "search", "광주 중앙로 100", "--db", doors])
        #expect(code == 0, "\(err)")
        let names = out.split(separator: "\n").map { String($0) }
        #expect(names.count == 1 && names[0].contains("광주 목표 빌딩"), "\(out)")
        #expect(err.contains("1 buildings match \"광주 중앙로 100\""), "\(err)")
    }

    /// A building with `name:ko` or `name:en` and no `name` has that name. Before: `"name":
    /// null` in a search (and "이름 없는 건물" in the daemon) for both, though the hotel's
    /// Korean name found it.
    @Test func aBuildingNamedOnlyInALanguageHasThatName() async throws {
        let dir = try Scratch()
        let xml = squareBuildingsXML([
            SquareBuilding(
                lat: 35.158, lon: 129.16,
                tags: [
                    "building": "hotel", "name:ko": "해운대 호텔", "name:en": "Haeundae Hotel",
                    "addr:street": "해운대해변로", "addr:housenumber": "12",
                ]),
            SquareBuilding(lat: 35.160, lon: 129.16, tags: ["building": "office", "name:en": "Test Tower"]),
            SquareBuilding(
                lat: 35.162, lon: 129.16,
                tags: [
                    "building": "yes", "name:ja": "東京ビル", "name:de": "Tokio-Haus", "name:etymology": "Tokyo",
                ]
            ),
            // Decomposed Hangul (NFD), as some OSM data holds it: shown and spoken composed.
            SquareBuilding(
                lat: 35.166, lon: 129.16,
                tags: [
                    "building": "yes", "name": "부산광역시청".decomposedStringWithCanonicalMapping,
                    "addr:street": "중앙대로".decomposedStringWithCanonicalMapping, "addr:housenumber": "1001",
                ]),
            // `name:old` is a former name, not a language (a review found it shown as the name).
            SquareBuilding(
                lat: 35.164, lon: 129.16,
                tags: ["building": "yes", "name:old": "Vanha", "addr:street": "옛길", "addr:housenumber": "1"]),
        ])
        let db = dir.file("x.db")
        let imported = await runPathfinder(["doors", "import", try dir.write("x.osm", xml), "--out", db])
        try #require(imported.code == 0, "\(imported.err)")
        for (query, name) in [("해운대", "해운대 호텔"), ("test tower", "Test Tower"), ("tokio", "Tokio-Haus")] {
            let (code, out, err) = await runPathfinder(["doors", "search", query, "--limit", "1", "--db", db])
            #expect(code == 0, "\(err)")
            #expect(out.contains(#""name":"\#(name)""#), "\(query): \(out)")
        }
        let near = await runPathfinder(["doors", "near", "35.158", "129.16", "--db", db])
        #expect(near.err.contains("way 1 \"해운대 호텔\" contains the point"), "\(near.err)")
        let old = await runPathfinder(["doors", "search", "옛길 1", "--limit", "1", "--db", db])
        #expect(old.out.contains(#""name":null"#), "\(old.out)")
        // Before: the name and address came out decomposed, as stored.
        let nfd = await runPathfinder(["doors", "search", "부산광역시청", "--limit", "1", "--db", db])
        // Bytes compared: Swift's strings compare decomposed and composed Hangul equal.
        let bytes = Data(nfd.out.utf8)
        for field in [#""name":"부산광역시청""#, #""address":"중앙대로 1001""#] {
            #expect(
                bytes.range(of: Data(field.precomposedStringWithCanonicalMapping.utf8)) != nil, "\(nfd.out)")
        }
    }

    /// A `building=no` area (a car park inside a block) is no building. Before: imported as
    /// one, it won `near` inside the block as the smaller outline: "주차장", 0 doors.
    @Test func aBuildingNoAreaIsNoBuilding() async throws {
        let dir = try Scratch()
        let xml = """
            <osm version="0.6">
             <node id="1" lat="37.5000" lon="127.0000"/><node id="2" lat="37.5000" lon="127.0010"/>
             <node id="3" lat="37.5008" lon="127.0010"/><node id="4" lat="37.5008" lon="127.0000"/>
             <node id="5" lat="37.5000" lon="127.0005"><tag k="entrance" v="main"/></node>
             <way id="1"><nd ref="1"/><nd ref="5"/><nd ref="2"/><nd ref="3"/><nd ref="4"/><nd ref="1"/>
              <tag k="building" v="yes"/><tag k="name" v="큰건물"/></way>
             <node id="11" lat="37.5003" lon="127.0003"/><node id="12" lat="37.5003" lon="127.0007"/>
             <node id="13" lat="37.5005" lon="127.0007"/><node id="14" lat="37.5005" lon="127.0003"/>
             <way id="2"><nd ref="11"/><nd ref="12"/><nd ref="13"/><nd ref="14"/><nd ref="11"/>
              <tag k="building" v="no"/><tag k="amenity" v="parking"/><tag k="name" v="주차장"/></way>
            </osm>
            """
        let db = dir.file("x.db")
        let imported = await runPathfinder(["doors", "import", try dir.write("x.osm", xml), "--out", db])
        try #require(imported.code == 0, "\(imported.err)")
        #expect(imported.err.contains("1 buildings (1 ways"), "\(imported.err)")
        let (code, out, err) = await runPathfinder(["doors", "near", "37.5004", "127.0005", "--db", db])
        #expect(code == 0, "\(err)")
        #expect(err.contains("way 1 \"큰건물\" contains the point; 1 doors"), "\(err)")
        #expect(out.split(separator: "\n").count == 1, "\(out)")
    }

    /// A stray `notes.db` in the doors directory: skipped with a warning naming it and why,
    /// and the index beside it answers. Before: exit 2, "notes.db: not a door index", for
    /// every lookup in the directory.
    @Test func aStrayDatabaseInTheDirectoryIsSkippedWithAWarning() async throws {
        let dir = try Scratch()
        let regions = dir.file("regions")
        let xml = squareBuildingsXML([
            SquareBuilding(lat: 35.28, lon: 128.97, tags: ["building": "yes", "name": "김해 건물"])
        ])
        let imported = await runPathfinder([
            "doors", "import", try dir.write("g.osm", xml), "--out", regions + "/gyeongnam.db",
        ])
        try #require(imported.code == 0, "\(imported.err)")
        #expect(FileManager.default.createFile(atPath: regions + "/notes.db", contents: Data()))
        let (code, out, err) = await runPathfinder(["doors", "near", "35.28", "128.97", "--db", regions])
        #expect(code == 0, "\(err)")
        #expect(out.split(separator: "\n").count == 1, "\(out)")
        #expect(
            err.hasPrefix(
                "pathfinder doors near: warning: skipped \(regions)/notes.db: not a door index: no meta table"
            ),
            "\(err)")
        let search = await runPathfinder(["doors", "search", "김해", "--db", regions])
        #expect(search.code == 0 && search.out.contains("김해 건물"), "\(search.err)")
        #expect(search.err.contains("warning: skipped \(regions)/notes.db"), "\(search.err)")
    }

    /// A door index in the doors directory not named `*.db` (`helsinki.sqlite`) is not read,
    /// as only `*.db` files are, but no longer silently: each lookup warns naming it and the
    /// name to give it, and a directory holding only such a file says so (before: "outside the
    /// door index", or "a directory with no *.db file", the file never named).
    @Test func anIndexNotNamedDBIsNamedWithTheReason() throws {
        let dir = try Scratch()
        let binary = try BinaryTests.binary()
        let regions = dir.file("regions")
        let xml = squareBuildingsXML([
            SquareBuilding(lat: 35.28, lon: 128.97, tags: ["building": "yes", "name": "김해 건물"])
        ])
        let source = try dir.write("g.osm", xml)
        for out in [regions + "/helsinki.sqlite", dir.file("only") + "/helsinki.sqlite"] {
            let imported = try BinaryTests.run(executable: binary, ["doors", "import", source, "--out", out])
            try #require(imported.code == 0, "\(imported.err)")
        }
        // The import's own temporary file is no index a user named: not said.
        _ = try dir.write("regions/gyeongnam.db.tmp-1-abcdef12", "")
        let imported = try BinaryTests.run(
            executable: binary, ["doors", "import", source, "--out", regions + "/gyeongnam.db"])
        try #require(imported.code == 0, "\(imported.err)")
        let near = try BinaryTests.run(
            executable: binary, ["doors", "near", "35.28", "128.97", "--db", regions])
        #expect(near.code == 0, "\(near.err)")
        #expect(
            near.err.hasPrefix(
                "pathfinder doors near: warning: skipped \(regions)/helsinki.sqlite: a door index, but only the *.db files of a directory are read: rename it helsinki.db to use it\n"
            ), "\(near.err)")
        #expect(!near.err.contains("tmp-"), "\(near.err)")
        let only = try BinaryTests.run(
            executable: binary, ["doors", "near", "35.28", "128.97", "--db", dir.file("only")])
        #expect(only.code == 2, "\(only.err)")
        #expect(
            only.err
                == "pathfinder doors near: \(dir.file("only"))/helsinki.sqlite: a door index, but only the *.db files of a directory are read: rename it helsinki.db to use it\n",
            "\(only.err)")
    }

    /// Copies kept beside an index (`gyeongnam.db.bak`, `gyeongnam.db~`: an index's name and
    /// more) are what reading only `*.db` leaves out on purpose: not warned about on every
    /// lookup, while `helsinki.sqlite` still is; a folder holding only such a copy is refused
    /// naming it and the index name it came from. Before: "rename it gyeongnam.db.db to use
    /// it" (and `gyeongnam-2.db` for the `~`) on every lookup, and as the refusal.
    @Test func copiesBesideAnIndexAreNotWarnedAbout() throws {
        let dir = try Scratch()
        let binary = try BinaryTests.binary()
        let regions = dir.file("regions")
        let source = try dir.write(
            "g.osm",
            squareBuildingsXML([
                SquareBuilding(lat: 35.28, lon: 128.97, tags: ["building": "yes", "name": "김해 건물"])
            ]))
        for out in [
            regions + "/gyeongnam.db", regions + "/helsinki.sqlite", dir.file("only") + "/gyeongnam.db",
        ] {
            let imported = try BinaryTests.run(executable: binary, ["doors", "import", source, "--out", out])
            try #require(imported.code == 0, "\(imported.err)")
        }
        for copy in [regions + "/gyeongnam.db.bak", regions + "/gyeongnam.db~"] {
            try FileManager.default.copyItem(atPath: regions + "/gyeongnam.db", toPath: copy)
        }
        try FileManager.default.moveItem(
            atPath: dir.file("only") + "/gyeongnam.db", toPath: dir.file("only") + "/gyeongnam.db.bak")
        for argv in [["doors", "near", "35.28", "128.97"], ["doors", "search", "김해"]] {
            let r = try BinaryTests.run(executable: binary, argv + ["--db", regions])
            #expect(r.code == 0, "\(r.err)")
            #expect(
                r.err.hasPrefix(
                    "pathfinder \(argv[0]) \(argv[1]): warning: skipped \(regions)/helsinki.sqlite: a door index, but only the *.db files of a directory are read: rename it helsinki.db to use it\n"
                ), "\(r.err)")
            #expect(!r.err.contains("gyeongnam.db.") && !r.err.contains("gyeongnam.db~"), "\(r.err)")
        }
        let only = try BinaryTests.run(
            executable: binary, ["doors", "search", "김해", "--db", dir.file("only")])
        #expect(only.code == 2, "\(only.err)")
        #expect(
            only.err
                == "pathfinder doors search: \(dir.file("only"))/gyeongnam.db.bak: a door index, but only the *.db files of a directory are read: rename it gyeongnam.db to use it\n",
            "\(only.err)")
        #expect(!only.err.contains(".db.db"), "\(only.err)")
    }

    /// `--out` an existing file that is no door index is refused, exit 2, naming it, and left
    /// as it was (before: silently replaced, exit 0); an index there is replaced. `--out` a
    /// symbolic link writes where it leads and keeps the link (before: the link was replaced
    /// by the index, and its target kept the old one).
    @Test func outReplacesOnlyAnIndexAndWritesThroughALink() async throws {
        let dir = try Scratch()
        let osm = try dir.write(
            "x.osm", squareBuildingsXML([SquareBuilding(lat: 37.5, lon: 127, tags: ["building": "yes"])]))
        let notes = try dir.write("notes.txt", "hello\n")
        let refused = await runPathfinder(["doors", "import", osm, "--out", notes])
        #expect(refused.code == 2, "\(refused.err)")
        #expect(
            refused.err.contains(
                "\(notes): not a door index: it is there and --out replaces only a door index"),
            "\(refused.err)")
        #expect(try String(contentsOfFile: notes, encoding: .utf8) == "hello\n")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["notes.txt", "x.osm"])

        let index = dir.file("x.db")
        for _ in 0..<2 {
            let imported = await runPathfinder(["doors", "import", osm, "--out", index])
            #expect(imported.code == 0, "\(imported.err)")
        }
        try FileManager.default.createDirectory(atPath: dir.file("real"), withIntermediateDirectories: true)
        for (link, target) in [("link.db", "real/seoul.db"), ("old.db", "x.db")] {
            try FileManager.default.createSymbolicLink(atPath: dir.file(link), withDestinationPath: target)
            let imported = await runPathfinder(["doors", "import", osm, "--out", dir.file(link)])
            #expect(imported.code == 0, "\(imported.err)")
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dir.file(link)) == target)
            let near = await runPathfinder(["doors", "near", "37.5", "127", "--db", dir.file(target)])
            #expect(near.code == 0 && near.out.split(separator: "\n").count == 1, "\(near.err)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.file("real")) == ["seoul.db"])
    }

    /// `--out` a symbolic link whose target's folder is not there is refused before any work,
    /// naming the link, where it leads and the folder that is missing, whole (before:
    /// "cannot follow the symbolic link: realpath ./nowhere: a symbolic link into a folder that
    /// is not there", the folder relative to who knows where).
    @Test func outALinkIntoAMissingFolderNamesTheFolder() async throws {
        let dir = try Scratch()
        let osm = try dir.write(
            "x.osm", squareBuildingsXML([SquareBuilding(lat: 37.5, lon: 127, tags: ["building": "yes"])]))
        let sub = dir.file("sub")
        try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: true)
        for (link, target, folder) in [
            (dir.file("sub/relative.db"), "../nowhere/seoul.db", dir.file("nowhere")),
            (dir.file("absolute.db"), dir.file("gone/deeper/seoul.db"), dir.file("gone/deeper")),
        ] {
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
            let result = await runPathfinder(["doors", "import", osm, "--out", link])
            #expect(result.code == 1, "\(result.err)")
            #expect(
                result.err
                    == "pathfinder doors import: \(link): a symbolic link to \(folder)/seoul.db, whose folder \(folder) is not there: make it, or give --out another place\n",
                "\(result.err)")
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
        }
        #expect(dir.entries == ["absolute.db", "sub", "x.osm"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: sub) == ["relative.db"])
    }

    /// `--out` through a regular file as if it were a folder, plainly or through a symbolic
    /// link, is refused before any work naming that file, exit 1 as the output's other places
    /// are (before: "SQLite error 14: … unable to open database file" after reading the input,
    /// or "cannot make the folder …: NSCocoaErrorDomain error 512"). Nothing is written.
    @Test func outThroughAFileNamesTheFile() async throws {
        let dir = try Scratch()
        let osm = try dir.write(
            "x.osm", squareBuildingsXML([SquareBuilding(lat: 37.5, lon: 127, tags: ["building": "yes"])]))
        let file = try dir.write("afile", "not a folder")
        try FileManager.default.createDirectory(atPath: dir.file("sub"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: dir.file("sub/link.db"), withDestinationPath: "../afile/z.db")
        try FileManager.default.createSymbolicLink(
            atPath: dir.file("sub/deeper.db"), withDestinationPath: "../afile/more/z.db")
        for (out, said) in [
            (dir.file("afile/z.db"), "\(dir.file("afile/z.db")): \(file) is a file, not a folder"),
            (dir.file("afile/more/z.db"), "\(dir.file("afile/more/z.db")): \(file) is a file, not a folder"),
            (
                dir.file("sub/link.db"),
                "\(dir.file("sub/link.db")): a symbolic link to \(file)/z.db, whose folder \(file) is a file, not a folder"
            ),
            (
                dir.file("sub/deeper.db"),
                "\(dir.file("sub/deeper.db")): a symbolic link to \(file)/more/z.db, whose folder \(file)/more is not a folder: \(file) is a file"
            ),
        ] {
            let result = await runPathfinder(["doors", "import", osm, "--out", out])
            #expect(result.code == 1, "\(out): \(result.err)")
            #expect(result.err.hasPrefix("pathfinder doors import: \(said)"), "\(result.err)")
            #expect(!result.err.contains("SQLite") && !result.err.contains("Domain"), "\(result.err)")
        }
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "not a folder")
        #expect(dir.entries == ["afile", "sub", "x.osm"])
    }

    /// `--near LAT LON` with a bad second value named the good first one (`--near "60.17" is
    /// not LAT LON`); the message names the value that is wrong.
    @Test(arguments: [
        (["60.17", "abc"], #""abc" is not a longitude"#, #""60.17" is not"#),
        (["abc", "24.9"], #""abc" is not a latitude"#, #""24.9" is not"#),
        (["91", "24.9"], #""91" is not a latitude"#, #""24.9" is not"#),
        (["60.17", "181"], #""181" is not a longitude"#, #""60.17" is not"#),
        (["60.17"], "--near needs LAT LON", "is not"),
    ])
    func nearNamesTheValueThatIsWrong(values: [String], message: String, notSaid: String) async {
        let (code, out, err) = await runPathfinder(
            ["doors", "search", "kaivokatu", "--near"] + values + ["--db", "x.db"])
        #expect(code == 2)
        #expect(out.isEmpty)
        #expect(err.contains(message), "\(err)")
        #expect(!err.contains(notSaid), "\(err)")
    }

    @Test(
        "usage errors exit 2 and say what is wrong",
        arguments: [
            (["doors"], "expected `import`, `near` or `search`"),
            (["doors", "import", "x.osm"], "--out is required"),
            (["doors", "near", "60.17"], "expected <LAT> <LON>, got 1"),
            (["doors", "near", "91", "24.9", "--db", "x.db"], "\"91 24.9\" is not LAT LON"),
            (
                ["doors", "near", "60", "24", "--radius", "-3", "--db", "x.db"],
                "--radius \"-3\" is not metres"
            ),
            (["doors", "near", "60", "24", "--out", "x.db"], "--out belongs to `doors import`"),
            (["doors", "search", "--db", "x.db"], "expected a QUERY"),
            (
                ["doors", "search", "x", "--limit", "0", "--db", "x.db"],
                "--limit \"0\" is not a whole number ≥ 1"
            ),
            (["doors", "near", "60", "24", "--limit", "3"], "--limit belongs to `doors search`"),
            (["doors", "search", "x", "--low-memory"], "--low-memory belongs to `doors import`"),
        ])
    func usageErrors(argv: [String], message: String) async {
        let (code, out, err) = await runPathfinder(argv)
        #expect(code == 2)
        #expect(out.isEmpty)
        #expect(err.contains(message), "\(err)")
    }

    @Test func badInputNamesTheFileAndLeavesNoDatabase() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bad = dir.appendingPathComponent("bad.osm")
        try "<osm><node id=\"1\" lat=\"x\" lon=\"2\"/></osm>".write(
            to: bad, atomically: true, encoding: .utf8)
        let db = dir.appendingPathComponent("x.db").path
        let (code, _, err) = await runPathfinder(["doors", "import", bad.path, "--out", db])
        #expect(code == 2)
        #expect(err.hasPrefix("pathfinder doors import: \(bad.path):1 (node 1)"), "\(err)")
        #expect(!FileManager.default.fileExists(atPath: db))

        let (nearCode, _, nearErr) = await runPathfinder(["doors", "near", "60", "24", "--db", bad.path])
        #expect(nearCode == 2)
        #expect(nearErr.contains("\(bad.path): not a door index"))
    }

    /// The README's own example writes to ~/doors/, which a fresh account lacks: the folder is
    /// made (before, "the directory … is not writable"). A temp file an interrupted import
    /// left beside the index is removed.
    @Test func aMissingFolderIsMadeAndAnInterruptedImportsTempFileRemoved() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let json = try #require(
            Bundle.module.path(forResource: "station-and-block", ofType: "json", inDirectory: "Fixtures"))
        let folder = dir.appendingPathComponent("doors/seoul").path
        let db = folder + "/x.db"
        let first = await runPathfinder(["doors", "import", json, "--out", db])
        #expect(first.0 == 0, "\(first.2)")
        #expect(FileManager.default.fileExists(atPath: db))
        let stale = db + ".tmp-2147483000-DEADBEEF"
        try Data("half an index".utf8).write(to: URL(fileURLWithPath: stale))
        let second = await runPathfinder(["doors", "import", json, "--out", db])
        #expect(second.0 == 0, "\(second.2)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["x.db"])
    }

    /// Ctrl-C (SIGINT) during an import: the half-written index goes with the process, which
    /// ends by the signal (before, `DB.tmp-*` stayed, a country's size each time).
    @Test func anInterruptedImportLeavesNoTempFile() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // 300 000 entrances: seconds of work, time to interrupt it.
        var xml = "<osm version=\"0.6\">\n"
        for i in 1...300_000 {
            let lat = 60 + Double(i % 997) / 10_000, lon = 24.9 + Double(i % 991) / 10_000
            xml += "<node id=\"\(i)\" lat=\"\(lat)\" lon=\"\(lon)\"><tag k=\"entrance\" v=\"main\"/></node>\n"
        }
        xml += "</osm>\n"
        let input = dir.appendingPathComponent("big.osm").path
        try Data(xml.utf8).write(to: URL(fileURLWithPath: input))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try BinaryTests.binary())
        process.arguments = ["doors", "import", input, "--out", dir.appendingPathComponent("x.db").path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        func temps() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("x.db.tmp-") }
        }
        let deadline = Date().addingTimeInterval(30)
        while try temps().isEmpty, process.isRunning, Date() < deadline { usleep(10_000) }
        try #require(process.isRunning, "the import ended before it could be interrupted")
        process.interrupt()
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGINT)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["big.osm"])
    }

    /// Mistakes said before any work, or in the input's terms, exit 2 (or 1 for the output's
    /// place) and leave the files as they were: --out the input itself (before: the extract
    /// was replaced by the index, exit 0), --out a folder (before: said after the whole
    /// import), an extract with nothing to index (before: an empty index, exit 0), or whose
    /// buildings have no nodes in it (before: an index covering nothing, exit 0), an element
    /// twice (before: SQLite's UNIQUE error, exit 1), compressed XML (before: "neither OSM XML
    /// nor Overpass JSON").
    @Test func mistakesAreSaidInTheInputsTerms() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        func write(_ name: String, _ text: String) throws -> String {
            let path = dir.appendingPathComponent(name).path
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            return path
        }
        let door = #"<node id="1" lat="60.17" lon="24.94"><tag k="entrance" v="main"/></node>"#
        let one = try write("one.osm", "<osm>\(door)</osm>")
        let same = await runPathfinder(["doors", "import", one, "--out", one])
        #expect(same.0 == 2 && same.2.contains("\(one): is also --out"), "\(same.2)")
        #expect(try String(contentsOfFile: one, encoding: .utf8) == "<osm>\(door)</osm>")

        let folder = dir.appendingPathComponent("folder").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let intoFolder = await runPathfinder(["doors", "import", one, "--out", folder])
        #expect(intoFolder.0 == 1 && intoFolder.2.contains("\(folder): is a directory"), "\(intoFolder.2)")

        let cases = [
            (
                try write("nothing.osm", #"<osm><node id="1" lat="60.1" lon="24.9"/></osm>"#),
                "no entrances and no buildings in it"
            ),
            (
                try write(
                    "nonodes.osm",
                    #"<osm><way id="1"><nd ref="1"/><nd ref="2"/><nd ref="3"/><nd ref="1"/><tag k="building" v="yes"/></way></osm>"#
                ),
                "no entrances and no buildings in it: nothing to index (1 buildings without nodes in the extract)"
            ),
            (try write("twice.osm", "<osm>\(door)\(door)</osm>"), "an OSM element appears twice"),
            (
                try write("packed.osm.bz2", "BZh91AY&SY"),
                "compressed (bzip2): convert it with `osmium cat \(dir.path)/packed.osm.bz2 -o \(dir.path)/packed.osm.pbf`"
            ),
        ]
        for (input, reason) in cases {
            let db = dir.appendingPathComponent("x.db").path
            let result = await runPathfinder(["doors", "import", input, "--out", db])
            #expect(result.0 == 2 && result.2.contains(reason), "\(input): \(result.2)")
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("x.db") }
                    .isEmpty)
        }
    }

    /// Each command that reads an OSM file, given one it does not read as it is (gzip, bzip2,
    /// `.osm.pbf`, PBF named `.osm`), either reads it or says what it is and advises a command
    /// whose output it does read: the advice, run, makes a file the command then takes. Before,
    /// `plan --osm x.osm.gz` advised a `.osm.pbf`, which `plan` refuses, and `doors import` of
    /// PBF named `.osm` (sniffed as PBF) had osmium read it as XML by its name and fail.
    @Test func everyCommandReadsOrAdvisesWhatItReads() async throws {
        let dir = try Scratch()
        // With the outline: `memory osm` stores a building's doors only.
        let source = try rautatieasemaWithOutline(in: dir)
        let xml = try String(contentsOfFile: source, encoding: .utf8)
        let gz = try dir.write("doors.osm.gz", "")
        let bz2 = try dir.write("doors.osm.bz2", "")
        let pbf = dir.file("doors.osm.pbf")
        let pbfNamedOSM = dir.file("pbf.osm")
        #expect(try run("sh", ["-c", "gzip -c '\(source)' > '\(gz)'"], install: "gzip") == 0)
        #expect(try run("sh", ["-c", "bzip2 -c '\(source)' > '\(bz2)'"], install: "bzip2") == 0)
        #expect(try run("osmium", ["cat", source, "-o", pbf], install: "osmium-tool") == 0)
        try FileManager.default.copyItem(atPath: pbf, toPath: pbfNamedOSM)
        #expect(xml.hasPrefix("<?xml"))

        let destination = try fixture("example/destination.json")
        let commands: [(name: String, argv: (String) -> [String])] = [
            ("plan", { ["plan", "--destination", destination, "--osm", $0] }),
            (
                "memory osm",
                {
                    [
                        "memory", "osm", "--file", dir.file("memory.json"), "--name", "Rautatieasema",
                        "--center", "60.1712,24.9413", "--osm", $0, "--now", "2026-12-04T10:00:00Z",
                    ]
                }
            ),
            ("replay", { ReplayDoorsTests.walk + ["--osm", $0] }),
            ("doors import", { ["doors", "import", $0, "--out", dir.file("doors.db")] }),
        ]
        var converted = 0
        for (name, argv) in commands {
            for input in [gz, bz2, pbf, pbfNamedOSM] {
                let first = await runPathfinder(argv(input))
                if name == "doors import" && (input == pbf || input == pbfNamedOSM) {
                    #expect(first.code == 0, "\(name) \(input): \(first.err)")
                    continue
                }
                #expect(first.code == 2, "\(name) \(input): \(first.err)")
                let parts = first.err.split(separator: "`", omittingEmptySubsequences: false)
                try #require(parts.count >= 3, "\(name) \(input): no advice in \(first.err)")
                converted += 1
                let advice = String(parts[1])
                #expect(!advice.hasPrefix("pathfinder"), "\(name): \(first.err)")
                // Its output: the word after `>` or `-o` (a plain path here), beside its input,
                // no file there yet (doors.osm.pbf is: the gzip's is another name).
                let output = try #require(
                    advice.components(separatedBy: advice.contains(" > ") ? " > " : " -o ").last)
                #expect(output.hasPrefix(dir.path + "/") && output != input, "\(advice)")
                try #require(!FileManager.default.fileExists(atPath: output), "\(advice) writes over a file")
                #expect(
                    try run("sh", ["-c", advice], install: "osmium-tool") == 0, "\(name): \(advice)")
                #expect(FileManager.default.fileExists(atPath: output), "\(advice) made nothing")
                let second = await runPathfinder(argv(output))
                #expect(second.code == 0, "\(name) after \(advice): \(second.err)")
                // The next command's advice names it again: osmium would not write over it.
                try FileManager.default.removeItem(atPath: output)
            }
        }
        #expect(converted == 4 * 3 + 2)
    }

    /// Advice followed as written, in the file's folder, step by step, ends in a file the
    /// command reads: its output is named after its input and is never that input (before:
    /// every advice wrote FILE.osm, so a gzip of PBF, decompressed as advised into FILE.osm, was
    /// told `osmium cat -F pbf FILE.osm -o FILE.osm`: "File exists"), and a name starting with
    /// `-` or holding spaces or `;` is one word the tool does not take for an option (before:
    /// `osmium cat -F pbf -fw.osm …`).
    @Test func adviceFollowedAsWrittenEndsInAFileTheCommandReads() throws {
        let dir = try Scratch()
        let source = try fixture("example/rautatieasema.osm")
        let destination = try fixture("example/destination.json")
        let binary = try BinaryTests.binary()
        let made = try dir.sh(
            """
            osmium cat '\(source)' -o doors.osm.pbf && gzip -c doors.osm.pbf > doors.osm.pbf.gz &&
            gzip -c doors.osm.pbf > FILE.osm.gz && cp doors.osm.pbf ./-fw.osm && cp doors.osm.pbf 'a b;c.osm.pbf' &&
            gzip -c '\(source)' > packed.osm.gz && bzip2 -c '\(source)' > bz2.osm.pbf &&
            cp doors.osm.pbf.gz whole.osm.pbf.gz && rm doors.osm.pbf
            """)
        try #require(made.code == 0, "osmium-tool, gzip and bzip2 are needed: \(made.err)")
        let commands: [(String, [String], (String) -> [String])] = [
            (
                "plan", ["doors.osm.pbf.gz", "FILE.osm.gz", "-fw.osm", "a b;c.osm.pbf"],
                { ["plan", "--destination", destination, "--osm", $0] }
            ),
            (
                "doors import", ["packed.osm.gz", "bz2.osm.pbf", "whole.osm.pbf.gz"],
                { ["doors", "import", $0, "--out", "x.db"] }
            ),
        ]
        for (name, inputs, argv) in commands {
            for start in inputs {
                var input = start
                var steps: [String] = []
                while steps.count < 3 {
                    let r = try BinaryTests.run(executable: binary, argv(input), directory: dir.path)
                    if r.code == 0 { break }
                    #expect(r.code == 2, "\(name) \(input): \(r.err)")
                    let parts = r.err.split(separator: "`", omittingEmptySubsequences: false)
                    try #require(parts.count >= 3, "\(name) \(input): no advice in \(r.err)")
                    let advice = String(parts[1])
                    steps.append(advice)
                    let ran = try dir.sh(advice)
                    try #require(ran.code == 0, "\(name) \(start): `\(advice)`: \(ran.err)")
                    // Its output, as the shell reads the word after `-o` or `>`.
                    let word = try #require(
                        advice.components(separatedBy: advice.contains(" > ") ? " > " : " -o ").last)
                    let output = try dir.sh("printf %s \(word)").out
                    #expect(output != input, "\(name): `\(advice)` writes over its input")
                    input = output
                }
                #expect(
                    steps.count == (name == "plan" && start.hasSuffix(".gz") ? 2 : 1), "\(steps)")
                let last = try BinaryTests.run(executable: binary, argv(input), directory: dir.path)
                #expect(last.code == 0, "\(name) \(start) after \(steps): \(last.err)")
            }
        }
    }

    /// A compressed file is advised by what it holds, not by its name: gzip or bzip2 of PBF or
    /// of Overpass JSON named `.osm.gz`/`.osm.bz2` is told to be decompressed into a name that
    /// says what it is, and the advice, run as written, makes a file `doors import` takes
    /// (before: `osmium cat x.osm.gz -o x.osm.pbf`, which osmium fails on, reading it as XML).
    @Test func aCompressedFileIsAdvisedByWhatItHolds() throws {
        let dir = try Scratch()
        let source = try fixture("example/rautatieasema.osm")
        let binary = try BinaryTests.binary()
        let json =
            #"{"elements": [{"type": "node", "id": 1, "lat": 60.17, "lon": 24.94, "tags": {"entrance": "main"}}]}"#
        let made = try dir.sh(
            """
            osmium cat '\(source)' -o doors.osm.pbf && gzip -c doors.osm.pbf > pbf.osm.gz &&
            bzip2 -c doors.osm.pbf > pbf.osm.bz2 && printf '%s' '\(json)' | gzip > json.osm.gz &&
            printf '%s' '\(json)' | bzip2 > json.osm.bz2 && rm doors.osm.pbf
            """)
        try #require(made.code == 0, "osmium-tool, gzip and bzip2 are needed: \(made.err)")
        for (input, made) in [
            ("pbf.osm.gz", "pbf.osm.pbf"), ("pbf.osm.bz2", "pbf.osm.pbf"), ("json.osm.gz", "json.json"),
            ("json.osm.bz2", "json.json"),
        ] {
            let first = try BinaryTests.run(
                executable: binary, ["doors", "import", input, "--out", "x.db"], directory: dir.path)
            #expect(first.code == 2, "\(input): \(first.err)")
            let parts = first.err.split(separator: "`", omittingEmptySubsequences: false)
            try #require(parts.count >= 3, "\(input): no advice in \(first.err)")
            let advice = String(parts[1])
            #expect(advice.hasSuffix(" > \(made)"), "\(input): \(advice)")
            let ran = try dir.sh(advice)
            #expect(ran.code == 0, "\(input): `\(advice)`: \(ran.err)")
            let second = try BinaryTests.run(
                executable: binary, ["doors", "import", made, "--out", "x.db"], directory: dir.path)
            #expect(second.code == 0, "\(input) after `\(advice)`: \(second.err)")
            try? FileManager.default.removeItem(atPath: dir.file(made))
        }
    }

    /// Overpass XML from `out geom;` compressed (`og.osm.gz`, `.osm.bz2`) is advised to be
    /// decompressed, which the XML reader reads with its outlines, and the advice run as written
    /// imports what the plain file does: the station, relation 4198 and the block's areas.
    /// Before: `osmium cat og.osm.gz -o og.osm.pbf`, which osmium failed on ("No element inside
    /// <member> allowed", a partial og.osm.pbf left), and with ways only "worked" but dropped
    /// the `<nd lat lon>` points (way 88777731's area 0 m², `near` at its centre 15 m away). Found
    /// by the `<nd lat=…>` too when the generator is not said. Compressed XML of any other kind
    /// (osmium's, as Geofabrik's `.osm.bz2`) is still advised `osmium cat` into PBF, which
    /// streams whatever its size.
    @Test func compressedOverpassOutGeomIsAdvisedToBeDecompressed() throws {
        let dir = try Scratch()
        let binary = try BinaryTests.binary()
        let outGeom = DemoTests.repo + "/Tests/EntranceIndexTests/Fixtures/station-and-block-out-geom.osm"
        // Ways only (no relation: osmium then "works"), and without the generator's name.
        let text = try String(contentsOfFile: outGeom, encoding: .utf8)
        let relation = try #require(text.range(of: "  <relation id=\"4198\">"))
        let end = try #require(text.range(of: "</relation>\n", range: relation.upperBound..<text.endIndex))
        _ = try dir.write(
            "ways.osm",
            String(text[..<relation.lowerBound]).replacingOccurrences(
                of: "generator=\"Overpass API 0.7.62.1 084b4234\"", with: "") + text[end.upperBound...])
        let made = try dir.sh(
            """
            gzip -c '\(outGeom)' > og.osm.gz && bzip2 -c '\(outGeom)' > og.osm.bz2 &&
            gzip -k ways.osm && osmium cat '\(try fixture("siltavuorenpenger-block.osm"))' -o plain.osm &&
            gzip plain.osm
            """)
        try #require(made.code == 0, "osmium-tool, gzip and bzip2 are needed: \(made.err)")
        func answers(_ input: String) throws -> [String] {
            let imported = try BinaryTests.run(
                executable: binary, ["doors", "import", input, "--out", "x.db"], directory: dir.path)
            #expect(imported.code == 0, "\(input): \(imported.err)")
            var said = [imported.err.replacingOccurrences(of: input, with: "INPUT")]
            for point in [["60.1712", "24.9413"], ["60.1782", "24.9492"], ["60.1774842", "24.9481335"]] {
                let r = try BinaryTests.run(
                    executable: binary, ["doors", "near"] + point + ["--db", "x.db"], directory: dir.path)
                said.append(r.out + r.err)
            }
            return said
        }
        for (input, plain) in [("og.osm.gz", outGeom), ("og.osm.bz2", outGeom), ("ways.osm.gz", "ways.osm")] {
            let first = try BinaryTests.run(
                executable: binary, ["doors", "import", input, "--out", "x.db"], directory: dir.path)
            #expect(first.code == 2, "\(input): \(first.err)")
            let parts = first.err.split(separator: "`", omittingEmptySubsequences: false)
            try #require(parts.count >= 3, "\(input): no advice in \(first.err)")
            let advice = String(parts[1])
            let tool = input.hasSuffix(".gz") ? "gunzip" : "bunzip2"
            let output = input.hasPrefix("og") ? "og.osm" : "ways-decompressed.osm"
            #expect(advice == "\(tool) -c \(input) > \(output)", "\(input): \(first.err)")
            let ran = try dir.sh(advice)
            try #require(ran.code == 0, "\(input): `\(advice)`: \(ran.err)")
            let said = try answers(output)
            #expect(said == (try answers(plain)), "\(input)")
            #expect(said[0].contains("0 without nodes in the extract"), "\(said[0])")
            #expect(said[3].contains("building way 88777731 0 m away"), "\(said[3])")
            try FileManager.default.removeItem(atPath: dir.file(output))
        }
        // osmium's own XML compressed: into PBF, as before.
        let plain = try BinaryTests.run(
            executable: binary, ["doors", "import", "plain.osm.gz", "--out", "x.db"], directory: dir.path)
        #expect(
            plain.code == 2 && plain.err.contains("`osmium cat plain.osm.gz -o plain.osm.pbf`"),
            "\(plain.err)")
    }

    /// An OSM history file, made by osmium from the Siltavuorenpenger block with one door
    /// changed (entrance=main, version 7) and one deleted (version 5), imports as it is now,
    /// as `osmium time-filter` makes it: the deleted door is no door, the changed one is read
    /// as changed. As `.osh.pbf` (before: "node 412237449: lat/lon 214.7483647,214.7483647 out of
    /// range", and a door changed without deletions "appears twice"), as XML `.osh`, and as
    /// `.osh.gz` through the advice given (before, it wrote a `.osm.pbf`, which lost the history).
    /// The advice keeps `.osh.pbf` when that name is taken (`taken-2.osh.pbf`; before:
    /// `taken.osh.osm.pbf`, unmarked, refused "lat/lon 214.7483647,214.7483647 out of range"),
    /// and for the history XML gzipped under a `.osm.gz` name (`xml.osm.gz`), known by its head
    /// (osmium writes `visible` only in history), writes `xml.osh.pbf` (before: `xml.osm.pbf`,
    /// refused so).
    @Test func aHistoryFileIsReadAsItIsNow() throws {
        let dir = try Scratch()
        let source = try fixture("siltavuorenpenger-block.osm")
        let binary = try BinaryTests.binary()
        _ = try dir.write(
            "change.osc",
            """
            <osmChange version="0.6" generator="test">
              <modify>
                <node id="410088130" version="7" timestamp="2020-01-01T00:00:00Z" changeset="1" uid="1" user="x" lat="60.1755178" lon="24.9516211">
                  <tag k="addr:unit" v="A"/><tag k="entrance" v="main"/><tag k="ref" v="A"/>
                </node>
              </modify>
              <delete>
                <node id="412237449" version="5" timestamp="2020-01-01T00:00:00Z" changeset="1" uid="1" user="x" lat="60.1747474" lon="24.9531693"/>
              </delete>
            </osmChange>
            """)
        let made = try dir.sh(
            """
            osmium apply-changes --with-history '\(source)' change.osc -o hist.osh.pbf &&
            osmium cat hist.osh.pbf -o hist.osh && gzip -c hist.osh > packed.osh.gz &&
            osmium time-filter hist.osh.pbf -o now.osm.pbf && gzip -c hist.osh > taken.osh.gz &&
            cp hist.osh.pbf taken.osh.pbf && gzip -c hist.osh > xml.osm.gz
            """)
        try #require(made.code == 0, "osmium-tool and gzip are needed: \(made.err)")
        func answers(_ input: String) throws -> [String] {
            var input = input
            var imported = try BinaryTests.run(
                executable: binary, ["doors", "import", input, "--out", "x.db"], directory: dir.path)
            if imported.code == 2, case let parts = imported.err.split(separator: "`"), parts.count >= 3 {
                let ran = try dir.sh(String(parts[1]))
                #expect(ran.code == 0, "\(input): `\(parts[1])`: \(ran.err)")
                input = String(parts[1]).components(separatedBy: " -o ").last ?? input
                imported = try BinaryTests.run(
                    executable: binary, ["doors", "import", input, "--out", "x.db"], directory: dir.path)
            }
            #expect(imported.code == 0, "\(input): \(imported.err)")
            var said = [imported.err.replacingOccurrences(of: input, with: "INPUT")]
            for point in [["60.1753", "24.9516"], ["60.1747474", "24.9531693"]] {
                let r = try BinaryTests.run(
                    executable: binary, ["doors", "near"] + point + ["--db", "x.db"], directory: dir.path)
                #expect(r.code == 0, "\(input) \(point): \(r.err)")
                said.append(r.out + r.err)
            }
            return said
        }
        let now = try answers("now.osm.pbf")
        #expect(!now[2].contains("\"lat\":60.1747474,\"lon\":24.9531693"), "\(now[2])")
        for input in ["hist.osh.pbf", "hist.osh", "packed.osh.gz", "taken.osh.gz", "xml.osm.gz"] {
            #expect(try answers(input) == now, "\(input)")
        }
        for (input, made) in [("taken.osh.gz", "taken-2.osh.pbf"), ("xml.osm.gz", "xml.osh.pbf")] {
            #expect(FileManager.default.fileExists(atPath: dir.file(made)), "\(input): \(dir.entries)")
        }
    }

    /// A history file converted by osmium under a plain name has lost its mark (`With history:
    /// no`) and, in XML, `visible`: a deleted node is then a version without a place. It is
    /// read by what it holds (`osmium fileinfo -e`: "Multiple versions of same object"), as it
    /// is now, like the `.osh.pbf` it came from: `osmium cat hist.osh.pbf -o lost.osm.pbf`
    /// (before: "an OSM element appears twice (overlapping extracts joined with `osmium
    /// cat`?)…", exit 2), `-o lost.osm` (before: `lat="" lon="" are not numbers`, exit 2);
    /// copied under such a name it kept its mark, and is read so, as before.
    @Test func aHistoryFileThatLostItsMarkIsReadByWhatItHolds() throws {
        let dir = try Scratch()
        let source = try fixture("siltavuorenpenger-block.osm")
        let binary = try BinaryTests.binary()
        _ = try dir.write(
            "change.osc",
            """
            <osmChange version="0.6" generator="test">
              <modify>
                <node id="410088130" version="7" timestamp="2020-01-01T00:00:00Z" changeset="1" uid="1" user="x" lat="60.1755178" lon="24.9516211">
                  <tag k="addr:unit" v="A"/><tag k="entrance" v="main"/><tag k="ref" v="A"/>
                </node>
              </modify>
              <delete>
                <node id="412237449" version="5" timestamp="2020-01-01T00:00:00Z" changeset="1" uid="1" user="x" lat="60.1747474" lon="24.9531693"/>
              </delete>
            </osmChange>
            """)
        let made = try dir.sh(
            """
            osmium apply-changes --with-history '\(source)' change.osc -o hist.osh.pbf &&
            osmium time-filter hist.osh.pbf -o now.osm.pbf && osmium cat hist.osh.pbf -o lost.osm.pbf &&
            osmium cat hist.osh.pbf -o lost.osm && cp hist.osh.pbf copied.osm.pbf &&
            osmium cat hist.osh.pbf -o hist.osh && cp hist.osh renamed.osm
            """)
        try #require(made.code == 0, "osmium-tool is needed: \(made.err)")
        let lost = try dir.sh(
            "osmium fileinfo -e -g header.with_history lost.osm.pbf; osmium fileinfo -e -g data.multiple_versions lost.osm.pbf"
        )
        try #require(lost.out == "no\nyes\n", "the mark is lost, the versions kept: \(lost.out)")
        func answers(_ input: String, _ options: [String] = []) throws -> [String] {
            let imported = try BinaryTests.run(
                executable: binary, ["doors", "import", input, "--out", "x.db"] + options, directory: dir.path
            )
            #expect(imported.code == 0, "\(input): \(imported.err)")
            var said = [imported.err.replacingOccurrences(of: input, with: "INPUT")]
            for point in [["60.1753", "24.9516"], ["60.1747474", "24.9531693"]] {
                let r = try BinaryTests.run(
                    executable: binary, ["doors", "near"] + point + ["--db", "x.db"], directory: dir.path)
                #expect(r.code == 0, "\(input) \(point): \(r.err)")
                said.append(r.out + r.err)
            }
            return said
        }
        let now = try answers("now.osm.pbf")
        #expect(!now[2].contains("\"lat\":60.1747474,\"lon\":24.9531693"), "\(now[2])")
        #expect(now[1].contains("\"label\":\"A\""), "\(now[1])")
        for input in ["lost.osm.pbf", "lost.osm", "copied.osm.pbf", "renamed.osm"] {
            #expect(try answers(input) == now, "\(input)")
        }
        #expect(try answers("lost.osm.pbf", ["--low-memory"]) == now)
        // `plan --osm` reads the XML so too: the deleted door is not planned.
        let destination = try dir.write(
            "dest.json", #"{"name": "D", "center": {"lat": 60.1747474, "lon": 24.9531693}}"#)
        let plan = try BinaryTests.run(
            executable: binary, ["plan", "--destination", destination, "--osm", "lost.osm", "--compact"],
            directory: dir.path)
        #expect(plan.code == 0, "\(plan.err)")
        #expect(!plan.out.contains("\"lat\":60.1747474,\"lon\":24.9531693"), "\(plan.out)")
        // A node without a place and no other version of it is no deleted version: refused.
        let alone = try dir.write(
            "alone.osm",
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <osm version="0.6">
             <node id="1" version="2"><tag k="entrance" v="main"/></node>
             <node id="2" version="1" lat="60.17" lon="24.94"><tag k="entrance" v="yes"/></node>
            </osm>
            """)
        let refused = try BinaryTests.run(
            executable: binary, ["doors", "import", alone, "--out", "alone.db"], directory: dir.path)
        #expect(refused.code == 2)
        #expect(
            refused.err.contains("alone.osm:3 (node 1): lat=\"\" lon=\"\" are not numbers"), "\(refused.err)")
    }

    /// An `osmium` first on PATH, in `dir/bin`, that logs its arguments (one line a run) to
    /// `dir/osmium.log` and runs the real one; the environment that puts it first.
    static func watchedOsmium(in dir: Scratch) throws -> [String: String] {
        let real = try dir.sh("command -v osmium")
        try #require(real.code == 0, "osmium-tool is needed: apt-get install osmium-tool")
        try FileManager.default.createDirectory(atPath: dir.file("bin"), withIntermediateDirectories: true)
        let wrapper = try dir.write(
            "bin/osmium",
            "#!/bin/sh\necho \"$*\" >> '\(dir.file("osmium.log"))'\nexec '\(real.out.trimmingCharacters(in: .whitespacesAndNewlines))' \"$@\"\n"
        )
        try #require(chmod(wrapper, 0o755) == 0)
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = dir.file("bin") + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        return environment
    }

    /// `doors import` runs the `osmium` found first on PATH (one built into /usr/local/bin, a
    /// wrapper). Before, PATH's folders were turned into text as arrays of characters
    /// (`["/", "u", …]/osmium`), none was ever found, and only /usr/bin/osmium was run.
    @Test func theOsmiumFirstOnPATHIsTheOneRun() throws {
        let dir = try Scratch()
        let environment = try Self.watchedOsmium(in: dir)
        let source = try fixture("siltavuorenpenger-block.osm")
        let made = try dir.sh("osmium cat '\(source)' -o block.osm.pbf")
        try #require(made.code == 0, "\(made.err)")
        let imported = try BinaryTests.run(
            executable: try BinaryTests.binary(), ["doors", "import", "block.osm.pbf", "--out", "x.db"],
            directory: dir.path, environment: environment)
        #expect(imported.code == 0, "\(imported.err)")
        let log = (try? String(contentsOfFile: dir.file("osmium.log"), encoding: .utf8)) ?? ""
        #expect(log.contains("fileinfo -F pbf -g header.with_history block.osm.pbf"), "not run: \(log)")
    }

    /// A plain `.osm.pbf` that fails for another reason than versions read as copies (nothing
    /// to index: a bench, no building or entrance) is said at once, not read whole a second
    /// time (`osmium fileinfo -e`) to look for versions; a converted history file, which fails
    /// as copies, still is, and is read as it is now. Watched through an `osmium` first on
    /// PATH. Before: "nothing to index" came only after `osmium fileinfo -F pbf -e -g
    /// data.multiple_versions` had read the whole file.
    @Test func onlyAFailureOfVersionsReadAsCopiesReadsTheWholeFileForThem() throws {
        let dir = try Scratch()
        let environment = try Self.watchedOsmium(in: dir)
        let source = try fixture("siltavuorenpenger-block.osm")
        _ = try dir.write(
            "bench.osm",
            #"<osm version="0.6"><node id="1" version="1" lat="60.1" lon="24.9"/><node id="2" version="1" lat="60.11" lon="24.9"><tag k="amenity" v="bench"/></node></osm>"#
        )
        _ = try dir.write(
            "change.osc",
            """
            <osmChange version="0.6" generator="test">
              <modify>
                <node id="410088130" version="7" timestamp="2020-01-01T00:00:00Z" changeset="1" uid="1" user="x" lat="60.1755178" lon="24.9516211">
                  <tag k="addr:unit" v="A"/><tag k="entrance" v="main"/><tag k="ref" v="A"/>
                </node>
              </modify>
              <delete>
                <node id="412237449" version="5" timestamp="2020-01-01T00:00:00Z" changeset="1" uid="1" user="x" lat="60.1747474" lon="24.9531693"/>
              </delete>
            </osmChange>
            """)
        let made = try dir.sh(
            """
            osmium cat bench.osm -o bench.osm.pbf &&
            osmium apply-changes --with-history '\(source)' change.osc -o hist.osh.pbf && osmium cat hist.osh.pbf -o lost.osm.pbf
            """)
        try #require(made.code == 0, "\(made.err)")
        func importing(
            _ input: String, _ options: [String] = []
        ) throws -> (code: Int32, err: String, wholeReads: Int) {
            try? FileManager.default.removeItem(atPath: dir.file("osmium.log"))
            let r = try BinaryTests.run(
                executable: try BinaryTests.binary(), ["doors", "import", input, "--out", "x.db"] + options,
                directory: dir.path, environment: environment)
            let log = (try? String(contentsOfFile: dir.file("osmium.log"), encoding: .utf8)) ?? ""
            let runs = log.split(separator: "\n")
            #expect(!runs.isEmpty, "no osmium ran: \(r.err)")
            return (r.code, r.err, runs.count { $0.hasPrefix("fileinfo") && $0.contains(" -e ") })
        }
        for options in [[], ["--low-memory"]] {
            let bench = try importing("bench.osm.pbf", options)
            #expect(bench.code == 2 && bench.err.contains("nothing to index"), "\(options): \(bench.err)")
            #expect(bench.wholeReads == 0, "\(options)")
            let lost = try importing("lost.osm.pbf", options)
            #expect(lost.code == 0, "\(options): \(lost.err)")
            #expect(lost.wholeReads == 1, "\(options)")
        }
    }

    @Test func artifactsAreFoundThroughTheEnvironmentOrAboveAStartDirectory() throws {
        #expect(
            try Artifacts.path(
                "doors/helsinki.db", environment: ["PATHFINDER_ARTIFACTS": "/opt/pf/artifacts"])
                == "/opt/pf/artifacts/doors/helsinki.db")
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let deep = dir.appendingPathComponent("a/.build/release")
        try FileManager.default.createDirectory(
            at: deep.appendingPathComponent("../artifacts"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent("a/artifacts"), withIntermediateDirectories: true)
        // SwiftPM's own .build/artifacts is skipped; the repository's artifacts/ is found.
        #expect(
            Artifacts.directory(above: deep)?.standardizedFileURL.path
                == dir.appendingPathComponent("a/artifacts").standardizedFileURL.path)
        #expect(Artifacts.directory(above: URL(fileURLWithPath: "/proc/self")) == nil)
    }
}
