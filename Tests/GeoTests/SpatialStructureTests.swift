import Foundation
import Testing

@testable import Geo

@Suite("Web Mercator and the shape of the spatial indexes")
struct SpatialStructureTests {
    @Test(arguments: [
        Coordinate(latitude: 60.1712, longitude: 24.9413), Coordinate(latitude: -33.9, longitude: 151.2),
        Coordinate(latitude: 0, longitude: -180), Coordinate(latitude: 85, longitude: 179.9),
    ])
    func projectionRoundTrips(c: Coordinate) {
        let back = WebMercator.unproject(WebMercator.project(c))
        #expect(abs(back.latitude - c.latitude) < 1e-9)
        #expect(abs(back.longitude - c.longitude) < 1e-9)
    }

    @Test func mercatorMetresStretchByOneOverCosLatitude() {
        // 100 m east at 60° N is 200 Mercator metres: cos 60° = 1/2.
        let c = Coordinate(latitude: 60, longitude: 25)
        let e = c.offset(metres: 100, bearing: 90)
        let dx = WebMercator.project(e).x - WebMercator.project(c).x
        #expect(abs(dx - 200 * WebMercator.radius / Coordinate.earthRadiusMetres) < 0.01)
    }

    @Test func radiusBoxCoversTheWholeCircleEvenPolewardOfDueEast() throws {
        // At 80° N a 200 km circle is widest poleward of its due-east point; the box must
        // still hold every point on the circle.
        let c = Coordinate(latitude: 80, longitude: 10)
        let rect = try #require(WebMercator.rects(within: 200_000, of: c).first)
        for bearing in stride(from: 0.0, to: 360, by: 0.5) {
            let p = WebMercator.project(c.offset(metres: 199_999.99, bearing: bearing))
            #expect(rect.contains(p), "bearing \(bearing)")
        }
    }

    @Test func circleOverAPoleSpansEveryLongitude() {
        let rects = WebMercator.rects(within: 300_000, of: Coordinate(latitude: 88, longitude: 40))
        #expect(rects.count == 1)
        #expect(abs(rects[0].minX + WebMercator.halfWorld) < 1e-6)
        #expect(abs(rects[0].maxX - WebMercator.halfWorld) < 1e-6)
        #expect(rects[0].maxY == WebMercator.halfWorld)
    }

    @Test func circleOverTheAntimeridianSplitsInTwo() {
        let rects = WebMercator.rects(within: 10_000, of: Coordinate(latitude: -17.8, longitude: 179.95))
        #expect(rects.count == 2)
        #expect(!rects[0].intersects(rects[1]))
    }

    @Test func quadTreeSplitsAtCapacityButNotBelowTheMinimumCell() {
        var tree = QuadTree<Int>(capacity: 10, minimumCellMetres: 1)
        let spot = Coordinate(latitude: 60.187, longitude: 24.927)
        for i in 0..<500 { tree.insert(i, at: spot) }  // one stadium seat, 500 people
        for i in 0..<500 { tree.insert(500 + i, at: spot.offset(metres: Double(i), bearing: Double(i))) }
        let leaves = tree.nodes.filter { $0.firstChild < 0 }
        for leaf in leaves where leaf.items.count > tree.capacity {
            #expect(leaf.rect.width / 2 < tree.minimumCellMetres)
        }
        #expect(leaves.reduce(0) { $0 + $1.items.count } == 1000)
        // The 500 on the seat and the i = 0 offset; i = 1 is a metre away.
        #expect(tree.items(within: 0.5, of: spot).count == 500 + 1)
    }

    @Test func exceptRectPrunesWholeNodes() {
        var tree = QuadTree<Int>()
        let c = Coordinate(latitude: 60.17, longitude: 24.94)
        for i in 0..<5000 { tree.insert(i, at: c.offset(metres: Double(i % 700), bearing: Double(i) * 7.3)) }
        let p = WebMercator.project(c)
        let outer = MercatorRect(center: p, half: 3000)
        let except = MercatorRect(center: p, half: 2000)
        // Items in the ring between the two squares only; the inner square's nodes are skipped.
        #expect(tree.items(in: outer, except: except).isEmpty)
        #expect(tree.items(in: outer).count == 5000)
    }

    @Test func gridHashVisitsAtMostTheThreeByThreeBlock() {
        let grid = GridHash<Int>(radiusMetres: 150, upToLatitude: 70)
        var rng = SeededRandom(seed: 1)
        for _ in 0..<500 {
            let c = Coordinate(
                latitude: Double.random(in: -70...70, using: &rng),
                longitude: Double.random(in: -179...179, using: &rng))
            #expect(grid.cellsVisited(within: 150, of: c) <= 9)
        }
        // A radius beyond the cell size still works, looking at more cells.
        #expect(grid.cellsVisited(within: 1500, of: Coordinate(latitude: 60, longitude: 25)) > 9)
    }
}
