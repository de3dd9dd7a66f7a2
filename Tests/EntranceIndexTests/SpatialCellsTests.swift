import Geo
import Testing

@testable import EntranceIndex

@Suite("The door index's spatial cells")
struct SpatialCellsTests {
    typealias Box = (minLat: Double, maxLat: Double, minLon: Double, maxLon: Double)

    static func overlap(_ a: Box, _ b: Box) -> Bool {
        a.minLat <= b.maxLat && a.maxLat >= b.minLat && a.minLon <= b.maxLon && a.maxLon >= b.minLon
    }

    static func found(_ cell: Int64, in ranges: [ClosedRange<Int64>]) -> Bool {
        ranges.contains { $0.contains(cell) }
    }

    /// Boxes from a doorway to a district (and a few far larger), near cell edges on purpose.
    static func boxes(_ count: Int, seed: UInt64) -> [Box] {
        var random = SeededRandom(seed: seed)
        return (0..<count).map { _ in
            let size = [0, 1e-5, 2e-4, 2.44140625e-4, 1e-3, 0.05, 3][Int.random(in: 0..<7, using: &random)]
            let lat = Double.random(in: 37.3...37.5, using: &random)
            let lon = Double.random(in: 126.7...127.1, using: &random)
            // A quarter start exactly on a level-0 cell edge.
            let edge = SpatialCells.size(0)
            let (low, left) =
                Bool.random(using: &random) && Bool.random(using: &random)
                ? ((lat / edge).rounded(.down) * edge, (lon / edge).rounded(.down) * edge) : (lat, lon)
            return (
                low, low + size * Double.random(in: 0.2...1, using: &random), left,
                left + size * Double.random(in: 0.2...1, using: &random)
            )
        }
    }

    @Test func everyStoredBoxOverlappingAQueryIsInItsRanges() {
        let stored = Self.boxes(3_000, seed: 7)
        let cells = stored.map {
            SpatialCells.cell(minLat: $0.minLat, maxLat: $0.maxLat, minLon: $0.minLon, maxLon: $0.maxLon)
        }
        let levels = Array(Set(cells.map(SpatialCells.level))).sorted()
        #expect(levels.count > 3)  // the test reaches several levels
        var checked = 0
        for query in Self.boxes(400, seed: 11) {
            let ranges = SpatialCells.ranges(
                minLat: query.minLat, maxLat: query.maxLat, minLon: query.minLon, maxLon: query.maxLon,
                levels: levels)
            for (box, cell) in zip(stored, cells) where Self.overlap(box, query) {
                checked += 1
                #expect(
                    Self.found(cell, in: ranges),
                    "box \(box) overlaps query \(query) but its cell is not looked at")
            }
        }
        #expect(checked > 100)
    }

    @Test func pointsAreFoundInTheCellsOfLevelZeroOnly() {
        var random = SeededRandom(seed: 3)
        let points = (0..<2_000).map { _ in
            (
                Double.random(in: 60.16...60.18, using: &random),
                Double.random(in: 24.93...24.96, using: &random)
            )
        }
        for _ in 0..<200 {
            let lat = Double.random(in: 60.16...60.18, using: &random)
            let lon = Double.random(in: 24.93...24.96, using: &random)
            let query: Box = (lat, lat + 0.002, lon, lon + 0.003)
            let ranges = SpatialCells.ranges(
                minLat: query.minLat, maxLat: query.maxLat, minLon: query.minLon, maxLon: query.maxLon,
                levels: [0],
                points: true)
            for (pLat, pLon) in points where Self.overlap((pLat, pLat, pLon, pLon), query) {
                #expect(Self.found(SpatialCells.cell(pLat, pLon), in: ranges))
            }
        }
    }

    @Test func coordinatesOutOfRangeLandOnTheEdgeInsteadOfTrapping() {
        for value in [Double.nan, .infinity, -.infinity, 1e300, -1e300, 91, -181] {
            _ = SpatialCells.cell(value, value)
            _ = SpatialCells.cell(minLat: value, maxLat: value, minLon: 0, maxLon: 0)
        }
        #expect(SpatialCells.column(1e300, level: 0) == SpatialCells.columnMask)
        #expect(SpatialCells.row(-1e300, level: 0) == 0)
        // A box from beyond the edges is a box to the edges.
        #expect(
            !SpatialCells.ranges(minLat: -.infinity, maxLat: 10, minLon: -200, maxLon: 1e300, levels: [0])
                .isEmpty)
        // An empty box, or one with NaN, holds nothing.
        #expect(SpatialCells.ranges(minLat: 11, maxLat: 10, minLon: 0, maxLon: 1, levels: [0, 3]).isEmpty)
        #expect(SpatialCells.ranges(minLat: 0, maxLat: 1, minLon: 5, maxLon: 4, levels: [0]).isEmpty)
        #expect(SpatialCells.ranges(minLat: .nan, maxLat: 1, minLon: 0, maxLon: 1, levels: [0]).isEmpty)
    }

    @Test func aQueryOverAWholeCountryIsAFewRangesNotMillions() {
        let ranges = SpatialCells.ranges(
            minLat: -90, maxLat: 90, minLon: -180, maxLon: 180, levels: [0, 1, 5])
        #expect(ranges.count == 3)
        // And it still holds a box anywhere.
        let cell = SpatialCells.cell(minLat: 37.5, maxLat: 37.5001, minLon: 127, maxLon: 127.0001)
        #expect(Self.found(cell, in: ranges))
    }
}
