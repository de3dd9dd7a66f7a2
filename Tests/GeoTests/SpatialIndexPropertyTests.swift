import Foundation
import Testing

@testable import Geo

/// Point sets the indexes must agree with brute force on.
enum PointSet: String, CaseIterable, CustomTestStringConvertible {
    /// Uniform over central Helsinki, about 2 km × 2 km.
    case uniformCity
    /// Everyone in one stadium: 90 % within 100 m of one spot, many on exactly the same
    /// coordinate, the rest scattered over the city.
    case stadium
    /// Uniform over the whole sphere (by area), so the poles and the antimeridian are hit.
    case wholeEarth
    /// Crowded around the North Pole and across the antimeridian near Fiji.
    case polesAndAntimeridian

    var testDescription: String { rawValue }

    func points(_ n: Int, seed: UInt64) -> [Coordinate] {
        var rng = SeededRandom(seed: seed)
        let helsinki = Coordinate(latitude: 60.1712, longitude: 24.9413)
        func near(_ c: Coordinate, _ metres: Double) -> Coordinate {
            c.offset(
                metres: metres * Double.random(in: 0...1, using: &rng).squareRoot(),
                bearing: Double.random(in: 0..<360, using: &rng))
        }
        return (0..<n).map { i in
            switch self {
            case .uniformCity:
                return near(helsinki, 1000)
            case .stadium:
                if i % 10 == 9 { return near(helsinki, 3000) }
                if i % 3 == 0 { return Coordinate(latitude: 60.1870, longitude: 24.9270) }
                return near(Coordinate(latitude: 60.1870, longitude: 24.9270), 100)
            case .wholeEarth:
                let z = Double.random(in: -1...1, using: &rng)
                return Coordinate(
                    latitude: asin(z) * 180 / .pi, longitude: Double.random(in: -180...180, using: &rng))
            case .polesAndAntimeridian:
                return i % 2 == 0
                    ? near(Coordinate(latitude: 90, longitude: 0), 300_000)
                    : near(Coordinate(latitude: -17.8, longitude: 180), 50_000)
            }
        }
    }

    /// Query centres: some on stored points, some anywhere near them.
    func queries(_ points: [Coordinate], seed: UInt64) -> [Coordinate] {
        var rng = SeededRandom(seed: seed)
        return (0..<60).map { i in
            let p = points[Int.random(in: 0..<points.count, using: &rng)]
            return i % 2 == 0
                ? p : p.offset(metres: Double.random(in: 0...500, using: &rng), bearing: Double(i * 37))
        }
    }

    /// Radii that matter for each set, metres.
    var radii: [Double] {
        switch self {
        case .uniformCity, .stadium: [0, 5, 50, 150, 800]
        case .wholeEarth: [10_000, 500_000, 3_000_000]
        case .polesAndAntimeridian: [1_000, 40_000, 400_000]
        }
    }
}

/// The answer every index must give: all points within r, nearest first, ties by ordinal.
func bruteForce(_ points: [Coordinate], within metres: Double, of center: Coordinate) -> [(Int, Double)] {
    points.enumerated()
        .map { ($0.offset, center.distance(to: $0.element)) }
        .filter { $0.1 <= metres }
        .sorted { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0 < $1.0 }
}

@Suite("Spatial indexes return exactly what brute force returns")
struct SpatialIndexPropertyTests {
    static let n = 2_000

    @Test(arguments: PointSet.allCases)
    func radiusQueriesMatchBruteForce(set: PointSet) {
        let points = set.points(Self.n, seed: 7)
        var quad = QuadTree<Int>()
        var grid = GridHash<Int>(radiusMetres: 150, upToLatitude: 70)
        for (i, p) in points.enumerated() {
            quad.insert(i, at: p)
            grid.insert(i, at: p)
        }
        let kd = KDTree(points.enumerated().map { (element: $0.offset, coordinate: $0.element) })
        #expect(quad.count == Self.n && grid.count == Self.n && kd.count == Self.n)
        var nonEmpty = 0
        for q in set.queries(points, seed: 11) {
            for r in set.radii {
                let expected = bruteForce(points, within: r, of: q)
                if !expected.isEmpty { nonEmpty += 1 }
                let answers = [
                    ("quadtree", quad.items(within: r, of: q).map { ($0.element, $0.metres) }),
                    ("grid", grid.items(within: r, of: q).map { ($0.element, $0.metres) }),
                    ("kd", kd.items(within: r, of: q).map { ($0.element, $0.metres) }),
                ]
                for (name, got) in answers {
                    #expect(got.map(\.0) == expected.map(\.0), "\(name) r=\(r) at \(q)")
                    #expect(got.map(\.1) == expected.map(\.1), "\(name) distances r=\(r) at \(q)")
                }
            }
        }
        // The property must be tested on real answers, not on empty lists.
        #expect(nonEmpty > 60)
    }

    @Test(arguments: PointSet.allCases)
    func nearestNeighboursMatchBruteForce(set: PointSet) {
        let points = set.points(Self.n, seed: 3)
        let kd = KDTree(points.enumerated().map { (element: $0.offset, coordinate: $0.element) })
        for q in set.queries(points, seed: 5) {
            let all = bruteForce(points, within: .infinity, of: q)
            #expect(kd.nearest(to: q)?.metres == all.first?.1)
            for k in [1, 7, 40] {
                let got = kd.nearest(k, to: q)
                let want = Array(all.prefix(k))
                #expect(got.map(\.metres) == want.map(\.1), "k=\(k) at \(q)")
                #expect(got.map(\.element) == want.map(\.0), "k=\(k) at \(q)")
            }
        }
    }

    @Test(arguments: [PointSet.uniformCity, .stadium, .polesAndAntimeridian])
    func rectExceptRectMatchesBruteForce(set: PointSet) {
        let points = set.points(Self.n, seed: 13)
        var quad = QuadTree<Int>()
        for (i, p) in points.enumerated() { quad.insert(i, at: p) }
        let projected = points.map(WebMercator.project)
        var rng = SeededRandom(seed: 17)
        for _ in 0..<80 {
            let c = projected[Int.random(in: 0..<points.count, using: &rng)]
            let outer = MercatorRect(center: c, half: Double.random(in: 10...3000, using: &rng))
            // The walker moved: the new area minus the one already loaded.
            let moved = MercatorPoint(
                x: c.x + Double.random(in: -500...500, using: &rng),
                y: c.y + Double.random(in: -500...500, using: &rng))
            let except = MercatorRect(center: moved, half: Double.random(in: 0...2000, using: &rng))
            let expected = projected.indices.filter {
                outer.contains(projected[$0]) && !except.contains(projected[$0])
            }
            #expect(quad.items(in: outer, except: except) == expected)
            #expect(quad.items(in: outer) == projected.indices.filter { outer.contains(projected[$0]) })
        }
    }

    @Test func emptyIndexesAnswerNothing() {
        let q = Coordinate(latitude: 60, longitude: 25)
        #expect(QuadTree<Int>().items(within: 1000, of: q).isEmpty)
        #expect(GridHash<Int>(cellMetres: 100).items(within: 1000, of: q).isEmpty)
        #expect(KDTree<Int>([]).nearest(to: q) == nil)
        #expect(KDTree<Int>([]).items(within: 10, of: q).isEmpty)
    }
}
