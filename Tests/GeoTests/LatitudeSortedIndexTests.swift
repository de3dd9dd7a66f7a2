import Testing

@testable import Geo

@Suite("Latitude-sorted nearest index")
struct LatitudeSortedIndexTests {
    @Test func equalsAFullScanEverywhere() {
        var random = SeededRandom(seed: 42)
        let entries = (0..<2_000).map { i in
            LatitudeSortedIndex.Entry(
                id: Int64(i),
                coordinate: Coordinate(
                    latitude: random.nextUnit() * 160 - 80, longitude: random.nextUnit() * 360 - 180))
        }
        let index = LatitudeSortedIndex(entries)
        for _ in 0..<500 {
            let q = Coordinate(
                latitude: random.nextUnit() * 180 - 90, longitude: random.nextUnit() * 360 - 180)
            let scan = entries.map { ($0.coordinate.distance(to: q), $0.id) }.min { $0 < $1 }!
            let hit = index.nearest(to: q)
            #expect(hit?.id == scan.1, "query \(q)")
        }
    }

    @Test func tiesGoToTheSmallerIDAndRadiusIsRespected() {
        let p = Coordinate(latitude: 10, longitude: 10)
        let index = LatitudeSortedIndex([
            .init(id: 7, coordinate: p), .init(id: 3, coordinate: p),
            .init(id: 1, coordinate: Coordinate(latitude: 10.5, longitude: 10)),
        ])
        #expect(index.nearest(to: p)?.id == 3)
        let far = Coordinate(latitude: 10.1, longitude: 10)  // ≈ 11.1 km from p
        #expect(index.nearest(to: far, maxMetres: 5_000) == nil)
        #expect(index.nearest(to: far, maxMetres: 12_000)?.id == 3)
        #expect(LatitudeSortedIndex([]).nearest(to: p) == nil)
    }

    @Test func acrossTheAntimeridian() {
        let index = LatitudeSortedIndex([
            .init(id: 1, coordinate: Coordinate(latitude: -17, longitude: -179.9)),
            .init(id: 2, coordinate: Coordinate(latitude: -17, longitude: 178)),
        ])
        #expect(index.nearest(to: Coordinate(latitude: -17, longitude: 179.9))?.id == 1)
    }
}
