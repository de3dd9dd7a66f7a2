import Foundation

/// The outline of one building: its outer rings and its holes (courtyards), in degrees.
///
/// Rings are stored open (the closing point is not repeated). Containment and distances are
/// worked out in a local plane around the point asked about, which is exact enough for a
/// building (metres across, far from the poles). A building across the antimeridian keeps its
/// points in −180…180; every measure takes the short way between two longitudes (before, such
/// an outline went round the world the other way: its centroid at 0°, its area ≈ 850 km²).
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
            // Across ±180°, each point on the point's side (exactly as stored elsewhere).
            let lonLat = ring.points.map {
                LonLat(lon: Self.longitude($0.longitude, near: point.longitude), lat: $0.latitude)
            }
            if Polygon.ringContains(lonLat, point.longitude, point.latitude) { inside.toggle() }
        }
        return inside
    }

    /// Distance from `point` to the nearest edge of any ring, metres (0 on an edge).
    public func distanceToEdge(from point: Coordinate) -> Double {
        nearestOnEdge(LocalPlane(origin: point))?.metres ?? .infinity
    }

    /// The point of the walls (any ring's edge) nearest `point`, and how far it is (metres, 0
    /// on an edge); nil for an outline without points. Where a walker outside a building
    /// whose door is unknown reaches it.
    public func nearestWallPoint(to point: Coordinate) -> (point: Coordinate, metres: Double)? {
        let plane = LocalPlane(origin: point)
        return nearestOnEdge(plane).map { (plane.unproject(x: $0.x, y: $0.y), $0.metres) }
    }

    /// The point of any ring's edge nearest `plane`'s origin, in the plane, with its distance.
    private func nearestOnEdge(_ plane: LocalPlane) -> (x: Double, y: Double, metres: Double)? {
        var best: (x: Double, y: Double, metres: Double)?
        for ring in rings where !ring.points.isEmpty {
            let q = ring.points.map(plane.project)
            // One point: the segment from it to itself.
            var j = q.count - 1
            for i in 0..<q.count {
                let p = LocalPlane.nearestToOrigin(onSegment: q[j], q[i])
                let metres = (p.x * p.x + p.y * p.y).squareRoot()
                if metres < best?.metres ?? .infinity { best = (p.x, p.y, metres) }
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

    /// The smallest latitude/longitude box holding every ring. Across the antimeridian its
    /// longitudes run on past 180 (179.9998…180.0002): `minLon` is always in −180…180.
    public var bounds: (minLat: Double, maxLat: Double, minLon: Double, maxLon: Double)? {
        var box: (minLat: Double, maxLat: Double, minLon: Double, maxLon: Double)?
        guard let first = rings.first(where: { !$0.points.isEmpty })?.points.first else { return nil }
        for ring in rings {
            for p in ring.points {
                let lon = Self.longitude(p.longitude, near: first.longitude)
                guard let b = box else {
                    box = (p.latitude, p.latitude, lon, lon)
                    continue
                }
                box = (
                    min(b.minLat, p.latitude), max(b.maxLat, p.latitude), min(b.minLon, lon),
                    max(b.maxLon, lon)
                )
            }
        }
        if let b = box, b.minLon < -180 { box = (b.minLat, b.maxLat, b.minLon + 360, b.maxLon + 360) }
        return box
    }

    /// `longitude`, or the same meridian 360° on, whichever is within 180° of `reference`
    /// (`longitude` itself, untouched, for any building not across the antimeridian).
    static func longitude(_ longitude: Double, near reference: Double) -> Double {
        let d = longitude - reference
        return d > 180 ? longitude - 360 : d < -180 ? longitude + 360 : longitude
    }

    /// Degrees east from longitude `a` to `b` the short way, −180…180: `b − a` unless that
    /// crosses the antimeridian (the same bits as `b − a` for any building not across it).
    static func east(of a: Double, _ b: Double) -> Double {
        let d = b - a
        return d > 180 ? d - 360 : d < -180 ? d + 360 : d
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

    /// Across the antimeridian too: longitudes differ the short way.
    func project(_ c: Coordinate) -> (x: Double, y: Double) {
        (
            BuildingOutline.east(of: origin.longitude, c.longitude) * metresPerDegree * cosLatitude,
            (c.latitude - origin.latitude) * metresPerDegree
        )
    }

    /// A longitude past ±180 comes back into −180…180.
    func unproject(x: Double, y: Double) -> Coordinate {
        let longitude = origin.longitude + x / (metresPerDegree * cosLatitude)
        return Coordinate(
            latitude: origin.latitude + y / metresPerDegree,
            longitude: longitude > 180 ? longitude - 360 : longitude < -180 ? longitude + 360 : longitude)
    }

    /// The point of the segment a–b nearest (0, 0).
    static func nearestToOrigin(
        onSegment a: (x: Double, y: Double), _ b: (x: Double, y: Double)
    ) -> (x: Double, y: Double) {
        let dx = b.x - a.x
        let dy = b.y - a.y
        let length2 = dx * dx + dy * dy
        let t = length2 > 0 ? max(0, min(1, -(a.x * dx + a.y * dy) / length2)) : 0
        return (a.x + t * dx, a.y + t * dy)
    }
}
