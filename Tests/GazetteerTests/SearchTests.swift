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
