import Foundation
import Geo
import TestSupport
import Testing

@testable import EntranceIndex

/// Addresses as a family member sends them: a house number that is not in the index, a house
/// letter written apart or joined, a staircase, flat or floor after the number, a postcode or
/// city with the address, a Korean address in decomposed Hangul or with its number joined to
/// the road (an audit found each finding another house or nothing).
@Suite("Searching the door index by house number")
struct HouseNumberSearchTests {
    static let origin = Coordinate(latitude: 60.1699, longitude: 24.9384)

    /// Buildings named after their addresses (ids 10⁹ + n): Finnish ones with a letter tagged
    /// joined ("13A") and apart ("15 B"), a range ("22-24"); Korean ones with a 부번 ("5-1")
    /// and a number that starts with another's digits (110, 1100).
    static let addresses: [(id: Int, street: String, number: String)] = [
        (1, "Mannerheimintie", "5"), (2, "Mannerheimintie", "10"), (3, "Mannerheimintie", "13A"),
        (4, "Mannerheimintie", "15 B"), (5, "Mannerheimintie", "22-24"), (6, "Kaivokatu", "10"),
        (7, "세종대로", "110"), (8, "세종대로", "1100"), (9, "세종대로23길", "5-1"), (10, "무교로", "12"),
        (11, "Kaivokatu", "1-5"),
    ]

    static func osm(_ n: Int) -> String { "way/\(1_000_000_000 + n)" }

    /// Expects each of `queries` to find nothing in `indexes`, with a point and without.
    static func expectNothing(
        _ queries: [String], in indexes: DoorIndexes, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        for query in queries {
            for near in [nil, origin] {
                #expect(
                    try indexes.search(query, near: near).map(\.osm) == [], "\(query)",
                    sourceLocation: sourceLocation)
            }
        }
    }

    static func index(_ dir: URL) throws -> (index: DoorIndex, path: String) {
        var city = GridCity(origin: origin, buildings: 4)
        for (k, address) in addresses.enumerated() {
            city.add(
                building: Int64(1_000_000_000 + address.id),
                at: origin.offset(metres: 300 + Double(k) * 40, bearing: 0),
                tags: ["building": "yes", "addr:street": address.street, "addr:housenumber": address.number])
        }
        let pbf = try city.write(xml: dir.appendingPathComponent("city.osm").path)
        let db = dir.appendingPathComponent("city.db").path
        _ = try DoorImporter.importFile(pbf, to: db)
        return (try DoorIndex(path: db), db)
    }

    /// A number is a whole word: "Mannerheimintie 1" is not the start of "Mannerheimintie 10",
    /// nor "세종대로 11" of "세종대로 110", nor (in Korean, 본번 and 부번) "세종대로23길 5" of
    /// "세종대로23길 5-1" (before: each found the longer one, and `go` walked there). A letter
    /// may follow ("13" finds "13A"), and a Finnish range is found by either end.
    @Test func aHouseNumberIsAWholeWord() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (index, path) = try Self.index(dir)
        let indexes = try DoorIndexes(path: path)
        for query in [
            "Mannerheimintie 1", "mannerheimintie 2", "세종대로 11", "세종대로 1", "세종대로23길 5", "세종대로23길 1",
        ] {
            #expect(try index.search(query).map(\.osm) == [], "\(query)")
            #expect(try indexes.search(query).map(\.osm) == [], "\(query)")
        }
        let found: [(String, Int)] = [
            ("Mannerheimintie 13", 3), ("Mannerheimintie 22", 5), ("Mannerheimintie 24", 5),
            ("mannerheimintie 22-24", 5), ("Mannerheimintie 10", 2), ("세종대로23길 5-1", 9), ("세종대로 23길 5-1", 9),
            ("24 Mannerheimintie", 5),
        ]
        for (query, n) in found {
            #expect(try index.search(query).map(\.osm) == [Self.osm(n)], "\(query)")
        }
        #expect(try index.search("세종대로 110").map(\.osm) == [Self.osm(7)])
        // A street alone still lists its houses.
        #expect(try index.search("Mannerheimintie").count == 5)
        // The word search keeps a number whole too: "1" is no longer any word starting with 1.
        #expect(SearchText.holdsNumber("mannerheimintie 13a", (["13"], false)))
        #expect(!SearchText.holdsNumber("mannerheimintie 10", (["1"], false)))
        #expect(!SearchText.holdsNumber("세종대로 23 길 5 1", (["5"], true)))
        #expect(!SearchText.holdsNumber("세종대로 23 길 5 1", (["1"], true)))
        #expect(SearchText.holdsNumber("세종대로 23 길 5 1", (["5", "1"], true)))
        #expect(SearchText.holdsNumber("mannerheimintie 22 24", (["24"], false)))
        #expect(!SearchText.holdsNumber("mannerheimintie 24 22", (["24"], false)))
    }

    /// "13 A", "13a" and "13A" are one house number, whichever OSM tags (before: "Mannerheimintie
    /// 13 A" found nothing where "13A" is tagged).
    @Test(arguments: [
        ("Mannerheimintie 13 A", 3), ("Mannerheimintie 13a", 3), ("MANNERHEIMINTIE 13A", 3),
        ("13 A Mannerheimintie", 3), ("Mannerheimintie 15B", 4), ("Mannerheimintie 15 b", 4),
    ])
    func aHouseLetterJoinedOrApartIsOneNumber(query: String, n: Int) throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (index, _) = try Self.index(dir)
        let first = try #require(try index.search(query).first, "\(query)")
        #expect(first.osm == Self.osm(n), "\(query)")
        #expect(first.quality == .exact, "\(query)")
    }

    /// What follows the house number — a staircase letter, a flat, a floor, a unit, a
    /// postcode, a city — and a range typed where one number is tagged: found by the shorter
    /// form that ends at the number, named in `matchedQuery` (before: nothing). A Korean
    /// postcode first, a region in decomposed Hangul (NFD, as macOS copies text), a road and
    /// its number joined after the region words: the same.
    @Test(arguments: [
        ("Mannerheimintie 5A", "Mannerheimintie 5", 1), ("Mannerheimintie 5 B", "Mannerheimintie 5", 1),
        ("Mannerheimintie 5 A 12", "Mannerheimintie 5", 1),
        ("Mannerheimintie 13 A 12", "Mannerheimintie 13 A", 3),
        ("Mannerheimintie 5-7", "Mannerheimintie 5", 1), ("Mannerheimintie 3-5", "Mannerheimintie 5", 1),
        ("Kaivokatu 10, 00100 Helsinki", "Kaivokatu 10", 6), ("Kaivokatu 10, Helsinki", "Kaivokatu 10", 6),
        ("Kaivokatu 10 Helsinki", "Kaivokatu 10", 6), ("Kaivokatu 10, 00100", "Kaivokatu 10", 6),
        ("10 Kaivokatu, 00100 Helsinki", "10 Kaivokatu", 6),
        ("세종대로 110, 3층", "세종대로 110", 7), ("서울 중구 세종대로 110 3층 301호", "세종대로 110", 7),
        ("04524 서울특별시 중구 무교로 12", "무교로 12", 10), ("(04524) 서울특별시 중구 무교로 12", "무교로 12", 10),
        ("무교로 12, 서울", "무교로 12", 10), ("서울특별시 중구 세종대로110", "세종대로110", 7),
        ("서울특별시 중구 세종대로 110".decomposedStringWithCanonicalMapping, "세종대로 110", 7),
        ("서울 중구 세종대로 110".decomposedStringWithCanonicalMapping, "세종대로 110", 7),
    ])
    func theAddressBeforeWhatFollowsItsNumberIsFound(query: String, form: String, n: Int) throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (_, path) = try Self.index(dir)
        let first = try #require(try DoorIndexes(path: path).search(query).first, "\(query)")
        #expect(first.osm == Self.osm(n), "\(query)")
        #expect(first.matchedQuery == form, "\(query)")
    }

    /// A house letter the index lacks is no other letter's house: 1A and 1B are different
    /// plots. The form without the letter finds the bare number, or a range holding it, and
    /// nothing else (before: "Keskuskatu 1A" found Keskuskatu 1b by "Keskuskatu 1", and `go`
    /// walked there, its note reading as if number 1 had been found).
    @Test func aHouseLetterNotInTheIndexIsNoOtherLettersHouse() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (_, path) = try Self.index(dir)
        let indexes = try DoorIndexes(path: path)
        try Self.expectNothing(
            [
                "Mannerheimintie 13 B", "Mannerheimintie 13C", "Mannerheimintie 15A",
                "Mannerheimintie 15 A 3",
                "Mannerheimintie 15C, 00100 Helsinki",
            ], in: indexes)
        for (query, form, n) in [
            ("Mannerheimintie 10 B", "Mannerheimintie 10", 2),
            ("Mannerheimintie 22A", "Mannerheimintie 22", 5),
        ] {
            let found = try indexes.search(query)
            #expect(found.map(\.osm) == [Self.osm(n)], "\(query)")
            #expect(found.first?.matchedQuery == form, "\(query)")
        }
        // The bundled index holds keskuskatu 1a (a point inside Kirjatalo) and 1b, kaisaniemenkatu
        // 2a and 2b, unioninkatu 33b, keskuskatu 3a and 3b (a point), and none of those numbers
        // bare.
        let bundled = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../artifacts/doors/helsinki.db").standardizedFileURL.path
        let helsinki = try DoorIndexes(path: bundled)
        for query in [
            "Keskuskatu 1D", "Keskuskatu 1 D", "Keskuskatu 1C", "Kaisaniemenkatu 2 C", "Unioninkatu 33 A",
            "Keskuskatu 3 C",
        ] {
            #expect(try helsinki.search(query, near: Self.origin).map(\.osm) == [], "\(query)")
        }
        #expect(try helsinki.search("Keskuskatu 1B").first?.osm == "way/34079466")
    }

    /// A range written is no other range that shares one of its ends: its ends are tried each
    /// alone or in a range holding all of it, never as another range's end (before, audit 15,
    /// "Iso Roobertinkatu 1-3" found the lot 3-5, and `go` walked there; and for a moment,
    /// audit 16, "Kaivokatu 1-3" lost the lot 1-5). A range's end tagged alone is still found.
    @Test func aRangeWrittenIsNoOtherRangeSharingAnEnd() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (_, path) = try Self.index(dir)
        let indexes = try DoorIndexes(path: path)
        try Self.expectNothing(
            ["Mannerheimintie 20-22", "Mannerheimintie 24-26", "Mannerheimintie 24-26 B", "Kaivokatu 5-7"],
            in: indexes)
        #expect(try indexes.search("Mannerheimintie 22-24").map(\.osm) == [Self.osm(5)])
        #expect(try indexes.search("Mannerheimintie 1-5").map(\.osm) == [Self.osm(1)])
        for query in ["Kaivokatu 1-3", "Kaivokatu 3-5", "Kaivokatu 1-5"] {
            #expect(try indexes.search(query).map(\.osm) == [Self.osm(11)], "\(query)")
        }
        #expect(
            SearchText.shorterForms("Mannerheimintie 20-22").map {
                [$0.text, "\($0.numberRange.map { "\($0)" } ?? "")"]
            }
                == [["Mannerheimintie 20", "20...22"], ["Mannerheimintie 22", "20...22"]])
    }

    /// A street is no longer street that ends with its name: "Rantatie 5" is not Merirantatie 5,
    /// "Porvoontie 7" not Vanha Porvoontie 7 (before, audits 15 and 16, the search inside words
    /// found them, and `go` walked there). A name
    /// inside a longer word is still found without a number ("rautatieasema" in
    /// "päärautatieasema"), and a Hangul one with it ("시청" in "서울특별시청").
    @Test func aStreetIsNoLongerStreetEndingWithItsName() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var city = GridCity(origin: Self.origin, buildings: 2)
        for (k, tags) in [
            ["addr:street": "Merirantatie", "addr:housenumber": "5"],
            ["name": "Päärautatieasema", "addr:street": "Kaivokatu", "addr:housenumber": "1"],
            ["name": "서울특별시청 1", "addr:street": "세종대로", "addr:housenumber": "110"],
            ["addr:street": "Vanha Porvoontie", "addr:housenumber": "7"],
            ["name": "정부제1청사 3", "addr:street": "세종로", "addr:housenumber": "77"],
        ].enumerated() {
            city.add(
                building: Int64(1_000_000_001 + k),
                at: Self.origin.offset(metres: 300 + Double(k) * 40, bearing: 0),
                tags: ["building": "yes"].merging(tags) { a, _ in a })
        }
        let db = dir.appendingPathComponent("city.db").path
        _ = try DoorImporter.importFile(
            try city.write(xml: dir.appendingPathComponent("city.osm").path), to: db)
        let indexes = try DoorIndexes(path: db)
        for near in [nil, Self.origin] {
            #expect(try indexes.search("Rantatie 5", near: near).map(\.osm) == [])
            // Nor one with another word before it (audit 16: before, found).
            #expect(try indexes.search("Porvoontie 7", near: near).map(\.osm) == [])
            #expect(try indexes.search("Vanha Porvoontie 7", near: near).map(\.osm) == [Self.osm(4)])
            #expect(try indexes.search("Merirantatie 5", near: near).map(\.osm) == [Self.osm(1)])
            #expect(try indexes.search("rautatieasema", near: near).map(\.osm) == [Self.osm(2)])
            #expect(try indexes.search("시청 1", near: near).map(\.osm) == [Self.osm(3)])
            // Hangul after a digit ("1청사 3" in "정부제1청사 3"; audit 17: lost for a moment).
            #expect(try indexes.search("1청사 3", near: near).map(\.osm) == [Self.osm(5)])
        }
        #expect(SearchText.holdsFromWordStart("kaivokatu 1 ; merirantatie 5", "merirantatie 5"))
        #expect(!SearchText.holdsFromWordStart("merirantatie 5", "rantatie 5"))
    }

    /// An address shown for a nameless building is the one asked, its words as written: a range's
    /// hyphen and a Korean road joined to its number kept (audit 16: "15 17", "세종대로 23 길 5").
    @Test func anAddressAskedIsShownAsWritten() {
        #expect(SearchText.asWritten("세종대로 23 길 5", ["세종대로23길", "5"]) == "세종대로23길 5")
        #expect(
            SearchText.asWritten("pohjoisesplanadi 15 17", ["Pohjoisesplanadi", "15-17,"])
                == "Pohjoisesplanadi 15-17")
        #expect(
            SearchText.asWritten("aleksanterinkatu 36a", ["36", "Aleksanterinkatu"]) == "Aleksanterinkatu 36a"
        )
        #expect(SearchText.isAddressAsked("aleksanterinkatu 36 a", ["36", "aleksanterinkatu"]))
        #expect(SearchText.isAddressAsked("세종대로 23 길 5", ["세종대로", "23", "길", "5"]))
        #expect(!SearchText.isAddressAsked("kahvila satamakatu 8", ["satamakatu", "8"]))
        #expect(!SearchText.isAddressAsked("uudenmaankatu 1 5", ["uudenmaankatu", "1"]))
        #expect(!SearchText.isAddressAsked("helsinki 00130", ["helsinki"]))
        // With a city before or after it, a letter typed apart or joined; a range typed whole
        // (audit 17: before, null for each).
        #expect(SearchText.isAddressAsked("aleksanterinkatu 21", ["helsinki", "aleksanterinkatu", "21"]))
        #expect(SearchText.isAddressAsked("aleksanterinkatu 21", ["aleksanterinkatu", "21", "helsinki"]))
        #expect(SearchText.isAddressAsked("aleksanterinkatu 36a", ["36", "a", "aleksanterinkatu"]))
        #expect(SearchText.isAddressAsked("aleksanterinkatu 36 a", ["36a", "aleksanterinkatu"]))
        #expect(SearchText.isAddressAsked("pohjoisesplanadi 15 17", ["pohjoisesplanadi", "15", "17"]))
        #expect(!SearchText.isAddressAsked("helsinki 00130", ["00130", "helsinki"]))
        #expect(!SearchText.isAddressAsked("aleksanterinkatu 36b", ["aleksanterinkatu", "36a"]))
    }

    /// A number is never shortened into another house: a Korean 부번 is another building (not
    /// "5" for "5-1"), a range only upwards, and a query with nothing after its number keeps it.
    @Test func noFormDropsANumberIntoAnotherHouse() {
        #expect(SearchText.addressForms("세종대로23길 5-1") == [])
        #expect(SearchText.addressForms("Mannerheimintie 7-5") == [])
        #expect(SearchText.addressForms("Mannerheimintie 1") == [])
        #expect(SearchText.addressForms("해군 작전 사령부 110") == [])
        #expect(
            SearchText.addressForms("서울특별시 중구 세종대로 110".decomposedStringWithCanonicalMapping)
                == ["중구 세종대로 110", "세종대로 110"])
        #expect(SearchText.addressForms("서울특별시 중구 세종대로110") == ["중구 세종대로110", "세종대로110"])
        // The number written first is also tried turned, as addresses are stored; not with a
        // second number in what would be the street.
        #expect(SearchText.addressForms("36 Aleksanterinkatu") == ["Aleksanterinkatu 36"])
        #expect(
            SearchText.addressForms("10 Kaivokatu, 00100 Helsinki") == [
                "10 Kaivokatu 00100 Helsinki", "10 Kaivokatu", "Kaivokatu 10",
            ])
        #expect(SearchText.addressForms("10 5th Avenue") == [])
        // A city written first, before a comma: the address after it; without a comma, no form
        // (where the street starts is not known).
        #expect(
            SearchText.addressForms("Finland, Helsinki, Kaivokatu 10 A") == [
                "Finland Helsinki Kaivokatu 10 A", "Helsinki Kaivokatu 10 A", "Kaivokatu 10 A",
                "Finland Helsinki Kaivokatu 10", "Helsinki Kaivokatu 10", "Kaivokatu 10",
            ])
        #expect(
            SearchText.addressForms("Helsinki, 10 Kaivokatu").prefix(2) == [
                "Helsinki 10 Kaivokatu", "10 Kaivokatu",
            ])
        #expect(SearchText.addressForms("Vanha Porvoontie 5") == [])
        // A letter after a comma is no street (audit 16: "Mannerheimintie, 5 A" tried "5 A",
        // which found Alvar Aallon katu 5); a number first after a city is turned too; at most
        // six parts are dropped (a query of 60 commas made 60 forms, each a search); a number in
        // a part of its own before the street is turned with it (audit 17).
        #expect(!SearchText.addressForms("Mannerheimintie, 5 A").contains("5 A"))
        #expect(SearchText.addressForms("Helsinki, 36 Aleksanterinkatu").contains("Aleksanterinkatu 36"))
        #expect(
            SearchText.addressForms("5-7 Testikatu").suffix(3) == [
                "Testikatu 5-7", "Testikatu 5", "Testikatu 7",
            ])
        let commas = (1...60).map { "osa\($0)" }.joined(separator: ", ") + ", Kaivokatu 10"
        #expect(SearchText.addressForms(commas).count < 10)
        #expect(SearchText.addressForms("Helsinki, 10, Kaivokatu").contains("Kaivokatu 10"))
        #expect(
            SearchText.addressForms("Suomi, Uusimaa, Helsinki, Kamppi, Etu-Töölö, Mannerheimintie 5")
                .contains(
                    "Mannerheimintie 5"))
    }

    /// At most three leading words are a house number: a query of 10 000 numbers made 10 000
    /// forms, each a copy of the rest (4.5 s and 1.85 GB); such a query is refused, saying the
    /// limit, and one at the limit is searched.
    @Test func aQueryOfManyNumbersMakesFewForms() throws {
        let tokens = Array(repeating: "1", count: 10_000) + ["k"]
        #expect(SearchText.numberLast(tokens).count == SearchText.numberWords)
        #expect(SearchText.numberLast(["110", "1", "세종대로"]).map(\.number) == [["110"], ["110", "1"]])
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (index, path) = try Self.index(dir)
        #expect(throws: DoorIndexError.queryTooLong(characters: 20_001)) {
            try index.search(tokens.joined(separator: " "))
        }
        #expect(throws: DoorIndexError.queryTooLong(characters: 20_001)) {
            try DoorIndexes(path: path).search(tokens.joined(separator: " "))
        }
        let atLimit = String(repeating: "1 ", count: DoorIndex.longestQuery / 2 - 1) + "kk"
        #expect(atLimit.count == DoorIndex.longestQuery)
        #expect(try index.search(atLimit).isEmpty)
    }
}
