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

    /// The restricted index answers like the whole one for every point near the centre,
    /// with far fewer entries; near a pole and across the antimeridian too.
    @Test func restrictedAnswersLikeTheWholeIndexNearItsCentre() {
        var random = SeededRandom(seed: 9)
        let entries = (0..<3_000).map { i in
            LatitudeSortedIndex.Entry(
                id: Int64(i),
                coordinate: Coordinate(
                    latitude: random.nextUnit() * 150 - 60, longitude: random.nextUnit() * 360 - 180))
        }
        let index = LatitudeSortedIndex(entries)
        let centres = [
            Coordinate(latitude: -87.5, longitude: 2.5), Coordinate(latitude: -72.5, longitude: 177.5),
            Coordinate(latitude: 12.5, longitude: -97.5), Coordinate(latitude: 47.5, longitude: 22.5),
        ]
        for centre in centres {
            let radius = 400_000.0
            let restricted = index.restricted(toPointsWithin: radius, of: centre)
            #expect(restricted.count < index.count / 4, "\(centre): \(restricted.count) entries kept")
            for _ in 0..<300 {
                let p = centre.offset(metres: random.nextUnit() * radius, bearing: random.nextUnit() * 360)
                #expect(restricted.nearest(to: p) == index.nearest(to: p), "\(p) near \(centre)")
            }
        }
    }

    @Test func restrictedKeepsEveryEntryWhenReachLimitsThem() {
        let index = LatitudeSortedIndex([
            .init(id: 1, coordinate: Coordinate(latitude: 0, longitude: 0), reach: 1_000),
            .init(id: 2, coordinate: Coordinate(latitude: 40, longitude: 40)),
        ])
        #expect(index.restricted(toPointsWithin: 10, of: Coordinate(latitude: 0, longitude: 0)).count == 2)
        #expect(
            LatitudeSortedIndex([]).restricted(toPointsWithin: 10, of: Coordinate(latitude: 0, longitude: 0))
                .count == 0)
    }
}
