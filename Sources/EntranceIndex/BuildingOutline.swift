import Foundation
public import Geo

/// The outline of one building: its outer rings and its holes (courtyards), in degrees.
///
/// Rings are stored open (the closing point is not repeated). Containment and distances are
/// worked out in a local plane around the point asked about, which is exact enough for a
/// building (metres across, far from the poles; the antimeridian is not handled).
public struct BuildingOutline: Sendable, Hashable {
    /// One closed ring of the outline.
    public struct Ring: Sendable, Hashable {
        /// Whether the ring bounds the building or cuts a hole out of it.
        public enum Role: UInt8, Sendable, Hashable {
            case outer = 0
            case inner = 1
        }

        public var role: Role
        public var points: [Coordinate]

        public init(role: Role, points: [Coordinate]) {
            self.role = role
            self.points = points
        }
    }

    public var rings: [Ring]

    public init(rings: [Ring]) { self.rings = rings }

    /// Whether the outline has any ring with an area.
    public var isEmpty: Bool { !rings.contains { $0.points.count >= 3 } }

    /// Whether `point` is inside the building: inside an odd number of rings (even–odd over
    /// all rings, so a courtyard counts as outside), by `Geo`'s ring test. Points exactly on an
    /// edge fall on a fixed side.
    public func contains(_ point: Coordinate) -> Bool {
        var inside = false
        for ring in rings where ring.points.count >= 3 {
            let lonLat = ring.points.map { LonLat(lon: $0.longitude, lat: $0.latitude) }
            if Polygon.ringContains(lonLat, point.longitude, point.latitude) { inside.toggle() }
        }
        return inside
    }

    /// Distance from `point` to the nearest edge of any ring, metres (0 on an edge).
    public func distanceToEdge(from point: Coordinate) -> Double {
        let plane = LocalPlane(origin: point)
        var best = Double.infinity
        for ring in rings where !ring.points.isEmpty {
            let q = ring.points.map(plane.project)
            if q.count == 1 { best = min(best, (q[0].x * q[0].x + q[0].y * q[0].y).squareRoot()) }
            var j = q.count - 1
            for i in 0..<q.count where q.count > 1 {
                best = min(best, LocalPlane.distanceFromOrigin(toSegment: q[j], q[i]))
                j = i
            }
        }
        return best
    }

    /// Area in square metres (outer rings minus holes).
    public var area: Double {
        guard let origin = rings.first?.points.first else { return 0 }
        let plane = LocalPlane(origin: origin)
        return rings.reduce(0) { sum, ring in
            let a = abs(Self.signedArea(ring.points, plane).area)
            return sum + (ring.role == .outer ? a : -a)
        }
    }

    /// The area-weighted centre of the outline (holes subtracted); the mean of the points
    /// when the outline has no area. Doors are ranked by their distance from here.
    public var centroid: Coordinate? {
        guard let origin = rings.first(where: { !$0.points.isEmpty })?.points.first else { return nil }
        let plane = LocalPlane(origin: origin)
        var area = 0.0
        var x = 0.0
        var y = 0.0
        // The mean of the points, for an outline without area: summed in the same order.
        var sumX = 0.0
        var sumY = 0.0
        var count = 0
        for ring in rings {
            for point in ring.points {
                let q = plane.project(point)
                sumX += q.x
                sumY += q.y
            }
            count += ring.points.count
            let (a, cx, cy) = Self.signedArea(ring.points, plane)
            let sign = (ring.role == .outer) == (a >= 0) ? 1.0 : -1.0
            area += sign * a
            x += sign * cx
            y += sign * cy
        }
        if abs(area) > 1e-6 { return plane.unproject(x: x / (6 * area), y: y / (6 * area)) }
        let n = Double(count)
        return plane.unproject(x: sumX / n, y: sumY / n)
    }

    /// Shoelace: the signed area and the (unnormalised) centroid moments of a ring, its
    /// points projected on `plane` as they are read (a million outlines an import: no
    /// array of projected points each).
    private static func signedArea(
        _ points: [Coordinate], _ plane: LocalPlane
    ) -> (area: Double, cx: Double, cy: Double) {
        guard points.count >= 3 else { return (0, 0, 0) }
        var a = 0.0
        var cx = 0.0
        var cy = 0.0
        var qj = plane.project(points[points.count - 1])
        for point in points {
            let qi = plane.project(point)
            let cross = qj.x * qi.y - qi.x * qj.y
            a += cross
            cx += (qj.x + qi.x) * cross
            cy += (qj.y + qi.y) * cross
            qj = qi
        }
        return (a / 2, cx, cy)
    }

    /// The smallest latitude/longitude box holding every ring.
    public var bounds: (minLat: Double, maxLat: Double, minLon: Double, maxLon: Double)? {
        var box: (minLat: Double, maxLat: Double, minLon: Double, maxLon: Double)?
        for ring in rings {
            for p in ring.points {
                guard let b = box else {
                    box = (p.latitude, p.latitude, p.longitude, p.longitude)
                    continue
                }
                box = (
                    min(b.minLat, p.latitude), max(b.maxLat, p.latitude), min(b.minLon, p.longitude),
                    max(b.maxLon, p.longitude)
                )
            }
        }
        return box
    }
}

/// An equirectangular plane around one point, metres; good over a few hundred metres.
struct LocalPlane {
    let origin: Coordinate
    let metresPerDegree = Coordinate.earthRadiusMetres * .pi / 180
    let cosLatitude: Double

    init(origin: Coordinate) {
        self.origin = origin
        cosLatitude = cos(origin.latitude * .pi / 180)
    }

    func project(_ c: Coordinate) -> (x: Double, y: Double) {
        (
            (c.longitude - origin.longitude) * metresPerDegree * cosLatitude,
            (c.latitude - origin.latitude) * metresPerDegree
        )
    }

    func unproject(x: Double, y: Double) -> Coordinate {
        Coordinate(
            latitude: origin.latitude + y / metresPerDegree,
            longitude: origin.longitude + x / (metresPerDegree * cosLatitude))
    }

    /// Distance from (0, 0) to the segment a–b.
    static func distanceFromOrigin(toSegment a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> Double
    {
        let dx = b.x - a.x
        let dy = b.y - a.y
        let length2 = dx * dx + dy * dy
        let t = length2 > 0 ? max(0, min(1, -(a.x * dx + a.y * dy) / length2)) : 0
        let px = a.x + t * dx
        let py = a.y + t * dy
        return (px * px + py * py).squareRoot()
    }
}
