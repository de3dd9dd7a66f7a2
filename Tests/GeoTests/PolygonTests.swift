import Foundation
import Testing

@testable import Geo

@Suite("Polygon containment")
struct PolygonTests {
    static func square(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> [LonLat] {
        [.init(lon: x0, lat: y0), .init(lon: x1, lat: y0), .init(lon: x1, lat: y1), .init(lon: x0, lat: y1)]
    }

    @Test func ringWithHole() {
        let p = Polygon(exterior: Self.square(0, 0, 10, 10), holes: [Self.square(4, 4, 6, 6)])
        #expect(p.contains(lon: 1, lat: 1))
        #expect(!p.contains(lon: 5, lat: 5), "inside the hole")
        #expect(!p.contains(lon: 11, lat: 5))
        #expect(p.exterior.first == p.exterior.last, "rings are closed")
    }

    /// A crescent's centroid is outside it; its interior point is inside, off every edge.
    @Test func interiorPointIsInsideAConcavePolygonAndOutOfItsHoles() throws {
        // A U open to the north: the middle of its bounds (5, 5) is in the notch.
        let u = Polygon(exterior: [
            LonLat(lon: 0, lat: 0), LonLat(lon: 10, lat: 0), LonLat(lon: 10, lat: 10),
            LonLat(lon: 8, lat: 10), LonLat(lon: 8, lat: 2), LonLat(lon: 2, lat: 2),
            LonLat(lon: 2, lat: 10), LonLat(lon: 0, lat: 10),
        ])
        #expect(!u.contains(lon: 5, lat: 5))
        let inU = try #require(u.interiorPoint)
        #expect(u.contains(lon: inU.lon, lat: inU.lat), "\(inU)")
        #expect(inU.lat != 2 && inU.lat != 0 && inU.lat != 10, "on a vertex's latitude: \(inU)")
        // A square with a hole at its middle: the point is in the ring around it.
        let ring = Polygon(exterior: Self.square(0, 0, 10, 10), holes: [Self.square(2, 2, 8, 8)])
        let inRing = try #require(ring.interiorPoint)
        #expect(ring.contains(lon: inRing.lon, lat: inRing.lat), "\(inRing)")
        // A ring across the antimeridian: the point in −180…180, inside.
        let fiji = Polygon(exterior: [
            LonLat(lon: 178, lat: -17), LonLat(lon: -179, lat: -17), LonLat(lon: -179, lat: -16),
            LonLat(lon: 178, lat: -16),
        ])
        let inFiji = try #require(fiji.interiorPoint)
        #expect(abs(inFiji.lon) <= 180 && fiji.contains(lon: inFiji.lon, lat: inFiji.lat), "\(inFiji)")
        // No area, no point.
        #expect(Polygon(exterior: [LonLat(lon: 0, lat: 1), LonLat(lon: 5, lat: 1)]).interiorPoint == nil)
        // Of several parts, the largest's.
        let parts = MultiPolygon([Polygon(exterior: Self.square(0, 0, 1, 1)), u])
        #expect(parts.interiorPoint == inU)
    }

    @Test func multiPolygonParts() {
        let m = MultiPolygon([
            Polygon(exterior: Self.square(0, 0, 1, 1)), Polygon(exterior: Self.square(5, 5, 6, 6)),
        ])
        #expect(m.contains(lon: 0.5, lat: 0.5))
        #expect(m.contains(lon: 5.5, lat: 5.5))
        #expect(!m.contains(lon: 3, lat: 3))
        #expect(m.bounds == BoundingBox(minLon: 0, minLat: 0, maxLon: 6, maxLat: 6))
    }

    @Test func ringAcrossTheAntimeridianIsUnwrapped() {
        // 179°E → 179°W written with the jump, as GeoJSON from some sources has it.
        let ring = [
            LonLat(lon: 179, lat: -17), LonLat(lon: -179, lat: -17), LonLat(lon: -179, lat: -16),
            LonLat(lon: 179, lat: -16),
        ]
        let p = Polygon(exterior: ring)
        #expect(p.bounds.maxLon == 181)
        #expect(p.contains(lon: 179.5, lat: -16.5), "west of the line")
        #expect(p.contains(lon: -179.5, lat: -16.5), "east of the line")
        #expect(!p.contains(lon: 0, lat: -16.5))
        #expect(!p.contains(lon: -178.5, lat: -16.5))
    }

    @Test func areaOfOneDegreeAtTheEquator() {
        let p = Polygon(exterior: Self.square(0, 0, 1, 1))
        // 111.2 km × 111.2 km on a sphere of radius 6 371 km ≈ 1.2364e10 m².
        #expect(abs(p.area - 1.2364e10) / 1.2364e10 < 0.001)
        let holed = Polygon(exterior: Self.square(0, 0, 1, 1), holes: [Self.square(0.25, 0.25, 0.75, 0.75)])
        #expect(holed.area < p.area * 0.76 && holed.area > p.area * 0.74)
    }
}

@Suite("Douglas–Peucker")
struct DouglasPeuckerTests {
    @Test func dropsPointsWithinTolerance() {
        let line = (0...100).map { LonLat(lon: Double($0) / 100, lat: ($0 % 2 == 0 ? 0.001 : -0.001)) }
        let simple = DouglasPeucker.simplify(line, tolerance: 0.004)
        #expect(simple == [line.first!, line.last!])
        let kept = DouglasPeucker.simplify(line, tolerance: 0.0001)
        #expect(kept.count == line.count)
    }

    @Test func keepsACornerBeyondTolerance() {
        let line = [
            LonLat(lon: 0, lat: 0), LonLat(lon: 0.5, lat: 0.501), LonLat(lon: 1, lat: 1),
            LonLat(lon: 2, lat: 0),
        ]
        #expect(DouglasPeucker.simplify(line, tolerance: 0.004) == [line[0], line[2], line[3]])
    }

    @Test func ringStaysClosedOrCollapses() {
        let ring = PolygonTests.square(0, 0, 1, 1) + [LonLat(lon: 0, lat: 0)]
        let simple = try! #require(DouglasPeucker.simplifyRing(ring, tolerance: 0.004))
        #expect(simple.first == simple.last)
        #expect(simple.count == 5)
        let tiny = PolygonTests.square(0, 0, 0.001, 0.001) + [LonLat(lon: 0, lat: 0)]
        #expect(DouglasPeucker.simplifyRing(tiny, tolerance: 0.004) == nil)
    }

    @Test func simplifiedCoastKeepsContainmentOfPointsAwayFromIt() {
        // A wiggly circle; points well inside or outside keep their side.
        var ring: [LonLat] = []
        for i in 0..<720 {
            let a = Double(i) * .pi / 360
            let r = 1 + 0.002 * sin(Double(i) * 7)
            ring.append(LonLat(lon: r * cos(a), lat: r * sin(a)))
        }
        let original = Polygon(exterior: ring)
        let simple = Polygon(
            exterior: try! #require(DouglasPeucker.simplifyRing(original.exterior, tolerance: 0.004)))
        #expect(simple.exterior.count < original.exterior.count / 4)
        for i in 0..<100 {
            let a = Double(i) * 0.0628
            for r in [0.5, 0.98, 1.02, 1.5] {
                let (x, y) = (r * cos(a), r * sin(a))
                #expect(
                    simple.contains(lon: x, lat: y) == original.contains(lon: x, lat: y), "r \(r) angle \(a)")
            }
        }
    }
}
