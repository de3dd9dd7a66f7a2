import Foundation
import Geo
import SQLite
import Testing

@testable import Gazetteer

@Suite("Search over the committed gazetteer")
struct SearchTests {
    @Test func iataCodeLeadsWithTheAirport() throws {
        let hits = try Artifacts.open().search("LAX", limit: 5)
        let first = try #require(hits.first)
        #expect(first.kind == "airport")
        #expect(first.id == "LAX")
        #expect(first.name == "Los Angeles International Airport")
        #expect(first.ancestry == ["California", "United States", "North America"])
    }

    @Test func diacriticsAndCaseDoNotMatter() throws {
        for query in ["sao paulo", "SÃO PAULO", "São-Paulo"] {
            let hits = try Artifacts.open().search(query, limit: 3)
            #expect(hits.first?.kind == "city" && hits.first?.id == "3448439", "query \(query)")
            #expect(hits.first?.name == "São Paulo")
            #expect(hits.contains { $0.kind == "region" && $0.id == "BR.27" }, "the state follows")
        }
    }

    @Test func sanPutsBigCitiesBeforeSmallOnes() throws {
        let hits = try Artifacts.open().search("san", limit: 40)
        let cities = hits.filter { $0.kind == "city" }
        #expect(cities.count >= 10)
        // Among display-name prefix matches the order is by population: look it up.
        let db = try Artifacts.open()
        let populations = try cities.map { hit -> Int64 in
            let s = try db.connection.prepare("SELECT population FROM city WHERE geonameid = ?")
            try s.bind([.int(Int64(hit.id)!)])
            _ = try s.step()
            return s.int(0)
        }
        let prefixed = zip(cities, populations).filter {
            $0.0.name.lowercased().hasPrefix("san") && $0.0.name.lowercased() != "san"
        }
        #expect(prefixed.count >= 5)
        #expect(prefixed.map(\.1) == prefixed.map(\.1).sorted(by: >), "\(prefixed.map { ($0.0.name, $0.1) })")
        #expect(prefixed.first.map { $0.1 > 1_000_000 } == true)
    }

    @Test func hangulFindsHelsinkiThroughAlternateNames() throws {
        let hits = try Artifacts.open().search("헬싱키", limit: 3)
        #expect(hits.first?.id == "658225")
        #expect(hits.first?.name == "Helsinki")
    }

    /// A hit says whether the query was the whole of a name or code, so the daemon can put
    /// a place named exactly before a door index's partial match.
    @Test(arguments: [
        ("헬싱키", "658225", true), ("HEL", "HEL", true), ("helsinki", "658225", true),
        ("Helsin", "658225", false),
    ])
    func aHitSaysWhetherItsNameOrCodeWasMatchedWhole(query: String, id: String, exact: Bool) throws {
        let first = try #require(try Artifacts.open().search(query, limit: 3).first)
        #expect(first.id == id && first.exact == exact, "\(query): \(first)")
    }

    /// A code is matched only as written, in ASCII letters: "Åbo" (Turku's Swedish name) folds
    /// to "abo", and Aboisso Airport (ABO, Ivory Coast) came first; "Été" found Metema Airport
    /// (ETE). Typed as a code ("ABO", "abo", full-width "ＡＢＯ") it still leads.
    @Test func aCodeIsMatchedOnlyAsWrittenInASCII() throws {
        let db = try Artifacts.open()
        let abo = try db.search("Åbo", limit: 10)
        #expect(abo.first?.id == "633679" && abo.first?.exact == true, "\(abo.map(\.name))")
        #expect(!abo.contains { $0.id == "ABO" }, "\(abo.map(\.name))")
        let decomposed = "Åbo".decomposedStringWithCanonicalMapping
        #expect(try db.search(decomposed, limit: 1).first?.id == "633679")
        #expect(try !db.search("Été", limit: 10).contains { $0.id == "ETE" })
        for code in ["ABO", "abo", " ABO ", "ＡＢＯ"] {
            let first = try #require(try db.search(code, limit: 2).first, "\(code)")
            #expect(first.id == "ABO" && first.exact, "\(code): \(first)")
        }
        #expect(try db.search("ETE", limit: 1).first?.id == "ETE")
    }

    @Test func hangulNamesAreKeptForKoreanPrompts() throws {
        let db = try Artifacts.open()
        let hangul = try db.connection.scalarInt(
            "SELECT count(*) FROM name JOIN place ON place.id = name.place WHERE place.kind = 'city' AND place.key = '1835848' AND name.hangul = 1"
        )
        #expect(hangul == 1, "Seoul keeps its Hangul name")
    }

    @Test func fullTextSyntaxIsInert() throws {
        let db = try Artifacts.open()
        #expect(try db.search("helsinki\")(*", limit: 3).first?.name == "Helsinki")
        #expect(
            try db.search("\"helsinki\" OR NEAR(", limit: 3).allSatisfy { $0.name != "" },
            "no FTS5 syntax error")
        #expect(try db.search("***", limit: 3).isEmpty)
        #expect(try db.search("zzqxqzz", limit: 3).isEmpty)
    }

    /// 1 338 regions and 8 countries have no city in the compact build, so no point: search
    /// printed them with `"lat":null,"lon":null` (the contract's lat/lon are WGS84 degrees).
    /// One whose boundary the gazetteer holds is placed inside it; one with neither a city nor a
    /// boundary is not offered.
    @Test func aPlaceWithoutACityIsPlacedInsideItsBoundary() throws {
        let db = try Artifacts.open()
        let hit = try #require(try db.search("Canillo", limit: 1).first)
        #expect(hit.kind == "region" && hit.id == "AD.02", "\(hit)")
        let lat = try #require(hit.lat, "\(hit.json)")
        let lon = try #require(hit.lon, "\(hit.json)")
        #expect(!hit.json.contains("null"), "\(hit.json)")
        // `where` at that point names Canillo: the two commands agree.
        let there = try Artifacts.withGeocoder { try $0.locate(Coordinate(latitude: lat, longitude: lon)) }
        #expect(there.region?.id == "AD.02" && there.country?.id == "AD", "\(there)")
        // Redonda (AG.09) has no city and no polygon: nothing says where it is.
        #expect(try db.search("Redonda", limit: 50).allSatisfy { $0.id != "AG.09" })
        // Antarctica has a polygon but no city of 15 000.
        let antarctica = try #require(try db.search("Antarctica", limit: 5).first { $0.id == "AQ" })
        #expect(antarctica.lat.map { $0 < -60 } == true, "\(antarctica.json)")
    }

    /// Every place without a stored point: its boundary's point is inside that boundary, and
    /// one with no boundary gets none (and so is never a search result).
    @Test func everyPlaceWithoutAPointGetsOneInsideItsBoundaryOrNone() throws {
        let db = try Artifacts.open()
        var shapes: [String: [Polygon]] = [:]
        for b in try db.boundaries() {
            let key = b.isRegion ? b.region.map { "region:" + $0 } : "country:" + b.country
            if let key { shapes[key, default: []] += b.shape.polygons }
        }
        var placed = 0
        var unplaced = 0
        var elsewhere: [String] = []
        let unplacedRows = try db.connection.prepare(
            "SELECT kind, key FROM place WHERE lat IS NULL ORDER BY id")
        try unplacedRows.forEach { row in
            let kind = row.text(0) ?? "", key = row.text(1) ?? ""
            let point = try db.boundaryPoint(kind: kind, key: key)
            if let polygons = shapes[kind + ":" + key] {
                let point = try #require(point, "\(kind) \(key) has a boundary but no point")
                #expect(
                    MultiPolygon(polygons).contains(point), "\(kind) \(key): \(point) outside its boundary")
                #expect(abs(point.latitude) <= 90 && abs(point.longitude) <= 180, "\(kind) \(key): \(point)")
                let there = try Artifacts.withGeocoder { try $0.locate(point) }
                if (kind == "region" ? there.region?.id : there.country?.id) != key {
                    elsewhere.append(
                        "\(kind) \(key) → \(there.country?.id ?? "-") \(there.region?.id ?? "-")")
                }
                placed += 1
            } else {
                #expect(point == nil, "\(kind) \(key) has no boundary, yet \(String(describing: point))")
                unplaced += 1
            }
        }
        #expect(placed == 762 && unplaced == 584, "\(placed) placed, \(unplaced) not")
        #expect(elsewhere.isEmpty, "\(elsewhere.count): \(elsewhere)")
    }

    /// Leaving out the places without a point does not shorten an answer that has more.
    @Test func theLimitCountsOnlyPlacesWithAPoint() throws {
        let db = try Artifacts.open()
        for query in ["saint", "san", "north", "a", "is"] {
            let hits = try db.search(query, limit: 100)
            #expect(hits.count == 100, "\(query): \(hits.count)")
            #expect(hits.allSatisfy { $0.lat != nil && $0.lon != nil }, "\(query)")
        }
    }

    @Test func everyKindIsSearchable() throws {
        let db = try Artifacts.open()
        #expect(try db.search("europe", limit: 1).first?.kind == "continent")
        #expect(try db.search("finland", limit: 1).first?.kind == "country")
        #expect(try db.search("uusimaa", limit: 1).first?.id == "FI.01")
    }
}

@Suite("Folding")
struct FoldTests {
    @Test(arguments: [
        ("São Paulo", "sao paulo"), ("Zürich", "zurich"), ("Łódź", "lodz"), ("  St. John's ", "st john s"),
        ("헬싱키", "헬싱키"), ("Ålesund", "alesund"),
    ])
    func folds(_ input: String, _ expected: String) {
        #expect(Fold.fold(input) == expected)
    }

    @Test func matchExpressionQuotesEveryToken() {
        #expect(Fold.matchExpression("sao paulo") == "\"sao\"* \"paulo\"*")
        #expect(Fold.matchExpression("a\"b") == "\"a\"* \"b\"*")
        #expect(Fold.matchExpression(" -*( ") == nil)
    }
}

/// Airports weigh as a share of the city they serve (issue #14 item 9): "san" used to list
/// five airports and San (Mali) but not San Diego or San Antonio, whose airports outranked them.
@Suite("Search: airports against the cities they serve")
struct AirportRankingTests {
    func position(_ kind: String, _ id: String, in hits: [SearchHit]) -> Int? {
        hits.firstIndex { $0.kind == kind && $0.id == id }
    }

    @Test(arguments: [
        // Prefixes, so city and airport are in the same tier and only their weight decides.
        ("san anto", "4726206", "SAT"), ("san fran", "5391959", "SFO"), ("san die", "5391811", "SAN"),
        ("los ang", "5368361", "LAX"), ("frankf", "2925533", "FRA"),
    ])
    func aLargeAirportRanksBelowTheCityItServes(query: String, city: String, airport: String) throws {
        let hits = try Artifacts.open().search(query, limit: 30)
        let cityAt = try #require(position("city", city, in: hits), "\(query): no city \(city)")
        let airportAt = try #require(
            position("airport", airport, in: hits), "\(query): no airport \(airport)")
        #expect(cityAt < airportAt, "\(query): \(hits.map(\.name))")
    }

    @Test func aShortPrefixSurfacesTheBigCitiesBeforeTheirAirports() throws {
        let hits = try Artifacts.open().search("san", limit: 10)
        // The exact matches keep their place: the code SAN, then the town of San (Mali).
        #expect(hits.prefix(2).map(\.id) == ["SAN", "2451778"])
        for (name, id) in [("San Antonio", "4726206"), ("San Diego", "5391811"), ("Santiago", "3871336")] {
            #expect(position("city", id, in: hits) != nil, "\(name) missing from \(hits.map(\.name))")
        }
        #expect(hits.dropFirst().allSatisfy { $0.kind != "airport" }, "\(hits.map(\.name))")
    }

    /// A large airport sits among the cities about half its own city's size: San Antonio
    /// International (San Antonio: 1.5 million) after San Francisco (0.8 million), before
    /// Santo André (0.66 million).
    @Test func aLargeAirportRanksNearCitiesOfSimilarSize() throws {
        let hits = try Artifacts.open().search("san", limit: 60)
        let airport = try #require(position("airport", "SAT", in: hits), "\(hits.map(\.name))")
        let bigger = try #require(position("city", "5391959", in: hits), "San Francisco")
        let smaller = try #require(position("city", "3449701", in: hits), "Santo André")
        #expect(bigger < airport && airport < smaller, "\(hits.map(\.name))")
    }

    @Test func anIATACodeStillLeadsWithItsAirport() throws {
        for code in ["SFO", "SAT", "LAX"] {
            #expect(try Artifacts.open().search(code, limit: 3).first?.id == code)
        }
    }
}
