import Foundation
import Gazetteer
import Geo
import Testing

/// The daemon answers `where` with the SQL reference (nothing resident between calls); its
/// answers with names must be the fast path's, byte for byte.
@Suite struct ReferenceLocateTests {
    @Test func theReferenceAnswerWithNamesIsTheFastPathsJSON() throws {
        let reference = ReferenceGeocoder(database: try Artifacts.open())
        var random = SeededRandom(seed: 11)
        var points = try ReferenceEquivalenceTests.borderPoints(count: 150)
        for _ in 0..<150 {
            let lat = asin(random.nextUnit() * 2 - 1) * 180 / .pi
            points.append(Coordinate(latitude: lat, longitude: random.nextUnit() * 360 - 180))
        }
        // Helsinki (a city), Helsinki-Vantaa (an airport), the open Atlantic (at sea).
        points += [
            Coordinate(latitude: 60.1699, longitude: 24.9384),
            Coordinate(latitude: 60.3172, longitude: 24.9633),
            Coordinate(latitude: 0, longitude: -30),
        ]
        var mismatches: [String] = []
        var named = (cities: 0, airports: 0, sea: 0)
        try Artifacts.withGeocoder { fast in
            for p in points {
                let a = try fast.locate(p)
                let b = try reference.locate(p)
                if a.json != b.json { mismatches.append("\(p): fast \(a.json) reference \(b.json)") }
                if b.city != nil { named.cities += 1 }
                if b.airport != nil { named.airports += 1 }
                if b.atSea { named.sea += 1 }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) of \(points.count): \(mismatches.prefix(3))")
        #expect(named.cities > 100 && named.airports >= 1 && named.sea >= 1, "\(named)")
        let helsinki = try reference.locate(Coordinate(latitude: 60.1699, longitude: 24.9384))
        #expect(helsinki.city?.name == "Helsinki")
        #expect(helsinki.country?.id == "FI")
    }
}
