import Foundation
import Geo
import SQLite
import Testing

@testable import Gazetteer

@Suite("Gazetteer build from the fixture sources (Finland, Åland, Estonia, Latvia)")
struct BuildTests {
    static let sources = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/sources")

    static func build(into name: String) throws -> URL {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent(
            "gazetteer-test-\(name)-\(UUID().uuidString)")
        try GazetteerBuilder(size: .compact, progress: { _ in }).build(
            sourceRoot: sources, outputDirectory: out)
        return out
    }

    @Test func twoBuildsAreByteIdentical() throws {
        let a = try Self.build(into: "a")
        let b = try Self.build(into: "b")
        defer {
            try? FileManager.default.removeItem(at: a)
            try? FileManager.default.removeItem(at: b)
        }
        for file in [GazetteerBuilder.databaseName, GazetteerBuilder.geoJSONName, GazetteerBuilder.auditName]
        {
            let x = try Data(contentsOf: a.appendingPathComponent(file))
            let y = try Data(contentsOf: b.appendingPathComponent(file))
            #expect(x.count > 1_000, "\(file) was written")
            #expect(x == y, "\(file) differs between two builds")
        }
    }

    @Test func theBuiltDatabaseAnswers() throws {
        let out = try Self.build(into: "answers")
        defer { try? FileManager.default.removeItem(at: out) }
        let db = try GazetteerDatabase(path: out.appendingPathComponent(GazetteerBuilder.databaseName).path)
        let geocoder = try ReverseGeocoder(database: db)
        let helsinki = try geocoder.locate(Coordinate(latitude: 60.1699, longitude: 24.9384))
        #expect(helsinki.ids == Location.IDs(country: "FI", region: "FI.01", city: 658225, airport: nil))
        // Mariehamn: Natural Earth files Åland's municipalities under iso_a2 AX; the cities decide the region.
        let mariehamn = try geocoder.locate(Coordinate(latitude: 60.097, longitude: 19.935))
        #expect(mariehamn.country?.id == "AX")
        #expect(try db.search("riga", limit: 1).first?.id == "456172")
        #expect(try db.search("RIX", limit: 1).first?.kind == "airport")
        let audit = try String(
            contentsOf: out.appendingPathComponent(GazetteerBuilder.auditName), encoding: .utf8)
        #expect(
            audit.contains("| states_provinces reassigned"),
            "Latvia's municipalities are reassigned by the oracle")
        let geojson =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: out.appendingPathComponent(GazetteerBuilder.geoJSONName)))
            as? [String: Any]
        let stored = try db.connection.scalarInt("SELECT count(*) FROM boundary").map(Int.init)
        #expect((geojson?["features"] as? [Any])?.count == stored)
    }

    @Test func simplificationKeepsContainmentForTheTestCities() throws {
        let out = try Self.build(into: "simplify")
        defer { try? FileManager.default.removeItem(at: out) }
        let db = try GazetteerDatabase(path: out.appendingPathComponent(GazetteerBuilder.databaseName).path)
        let (_, sourceRegions) = try SourceReader.readBoundaries(
            Self.sources.appendingPathComponent(SourceReader.worldMapPath))
        let cities = try SourceReader.readCities(
            Self.sources.appendingPathComponent(SourceReader.citiesPath("cities1000")))
        var checked = 0
        var simplerSomewhere = false
        for stored in try db.boundaries() where stored.isRegion {
            let source = try #require(
                try db.connection.prepare("SELECT source FROM boundary WHERE id = \(stored.id)").text0())
            let fid = Int64(source.split(separator: " ")[1])
            let original = try #require(sourceRegions.first { $0.fid == fid })
            let shape = MultiPolygon(
                original.rings.map { Polygon(exterior: $0[0], holes: Array($0.dropFirst())) })
            let originalPoints = shape.polygons.reduce(0) { $0 + $1.exterior.count }
            let storedPoints = stored.shape.polygons.reduce(0) { $0 + $1.exterior.count }
            if storedPoints < originalPoints { simplerSomewhere = true }
            for city in cities where shape.bounds.contains(lon: city.lon, lat: city.lat) {
                #expect(
                    stored.shape.contains(lon: city.lon, lat: city.lat)
                        == shape.contains(lon: city.lon, lat: city.lat),
                    "\(city.name) in \(source)")
                checked += 1
            }
        }
        #expect(checked > 1_000)
        #expect(simplerSomewhere, "Douglas–Peucker removed points")
    }

    /// GeoNames lists a place's alternate names by code point and the build kept the first six,
    /// so Helsinki kept its respellings (Elsin'ki, Elsinki, Elzinki, Gel'sinki, …) and lost
    /// Helsingfors, which then found East Helsinki (Östra Helsingfors); Tallinn lost Reval,
    /// Hämeenlinna Tavastehus, Pori Björneborg. Another word for a place now comes before a
    /// respelling of its name.
    @Test func anotherLanguagesNameIsKeptBeforeRespellings() throws {
        let out = try Self.build(into: "names")
        defer { try? FileManager.default.removeItem(at: out) }
        let db = try GazetteerDatabase(path: out.appendingPathComponent(GazetteerBuilder.databaseName).path)
        for (query, id) in [
            ("Helsingfors", "658225"), ("Reval", "588409"), ("Tavastehus", "659180"),
            ("Björneborg", "640999"),
            ("Dorpat", "588335"), ("Östra Helsingfors", "12747032"), ("Tammerfors", "634963"),
            ("Åbo", "633679"), ("헬싱키", "658225"),
        ] {
            let first = try #require(try db.search(query, limit: 3).first, "\(query)")
            #expect(first.id == id && first.exact, "\(query): \(first)")
        }
    }

    @Test func aMissingSourceIsNamed() throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent(
            "gazetteer-empty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        let error = #expect(throws: SourceError.self) {
            try GazetteerBuilder(size: .compact, progress: { _ in }).build(
                sourceRoot: empty, outputDirectory: empty)
        }
        #expect(error?.file.hasSuffix(SourceReader.continentsPath) == true)
    }

    @Test func malformedGeometryIsRejected() {
        #expect(throws: WKB.Malformed.self) {
            try WKB.readGeoPackage([0x47, 0x50, 0, 1, 0, 0, 0, 0, 1, 6, 0, 0])
        }
        #expect(throws: GeometryBlob.Malformed.self) { try GeometryBlob.decode([1, 1, 200]) }
    }

    @Test func geometryBlobRoundTrips() throws {
        let polygon = Polygon(
            exterior: [
                .init(lon: 24.93, lat: 60.16), .init(lon: 24.95, lat: 60.16), .init(lon: 24.95, lat: 60.18),
            ],
            holes: [
                [
                    .init(lon: 24.94, lat: 60.165), .init(lon: 24.945, lat: 60.165),
                    .init(lon: 24.945, lat: 60.17),
                ]
            ])
        #expect(try GeometryBlob.decode(GeometryBlob.encode([polygon])) == [polygon])
    }
}

extension SQLite.Statement {
    func text0() throws -> String? { try step() ? text(0) : nil }
}
