import Arrival
import Foundation
import Geo
import OSM
import Testing

@testable import EntranceIndex

@Suite("Look-ahead cache of doors around the walker")
struct DoorLookAheadTests {
    @Test func eachMoveYieldsExactlyTheNewlyReachedDoors() throws {
        let index = try DoorsNearTests.open()
        let entrances = try Support.readPBF(try Support.fixture("Helsinki.osm.pbf")).entranceNodes
        var cache = DoorLookAhead(reachMetres: 300)
        // A walk from the railway station north-east to the staircase block, 40 m a step.
        let start = Coordinate(latitude: 60.1712, longitude: 24.9413)
        let end = Coordinate(latitude: 60.17748, longitude: 24.94813)
        let steps = Int(start.distance(to: end) / 40)
        var seen = Set<Int64>()
        var previous: MercatorRect?
        for step in 0...steps {
            let walker = start.offset(metres: Double(step) * 40, bearing: start.bearing(to: end))
            let fresh = try cache.move(to: walker, index: index)
            let square = try #require(cache.loaded)
            // Brute force: the entrances inside the new square and outside the old one.
            let expected = entrances.filter {
                let p = WebMercator.project($0.coordinate)
                return square.contains(p) && !(previous?.contains(p) ?? false)
            }
            #expect(fresh.map(\.id) == expected.map(\.id).sorted(), "step \(step)")
            seen.formUnion(fresh.map(\.id))
            previous = square
            // The held doors answer "what is near me" like a scan of the whole extract.
            let near = cache.doors(within: 150, of: walker).map(\.element.id)
            let want = entrances.filter { $0.coordinate.distance(to: walker) <= 150 }
                .sorted {
                    ($0.coordinate.distance(to: walker), $0.id) < ($1.coordinate.distance(to: walker), $1.id)
                }
            #expect(Set(near) == Set(want.map(\.id)), "step \(step)")
        }
        #expect(seen.count > 50)  // the walk really passes many doors
        #expect(cache.count >= seen.count)
    }
}
