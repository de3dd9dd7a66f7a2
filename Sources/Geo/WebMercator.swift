import Foundation

/// A point in spherical Web Mercator (EPSG:3857), metres at the equator.
///
/// Spatial indexes work here rather than in raw latitude/longitude so that a square cell is
/// square on the ground at every latitude (it only grows, by 1 / cos latitude).
public struct MercatorPoint: Sendable, Hashable {
    /// Easting, Mercator metres (−π R … π R).
    public var x: Double
    /// Northing, Mercator metres (clamped to the Web Mercator square).
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// An axis-aligned rectangle in Web Mercator metres, edges included.
public struct MercatorRect: Sendable, Hashable {
    public var minX: Double
    public var minY: Double
    public var maxX: Double
    public var maxY: Double

    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX
        self.minY = minY
        self.maxX = maxX
        self.maxY = maxY
    }

    /// The square of half-size `half` metres around `center`.
    public init(center: MercatorPoint, half: Double) {
        self.init(minX: center.x - half, minY: center.y - half, maxX: center.x + half, maxY: center.y + half)
    }

    /// The whole Web Mercator square.
    public static let world = MercatorRect(
        minX: -WebMercator.halfWorld, minY: -WebMercator.halfWorld,
        maxX: WebMercator.halfWorld, maxY: WebMercator.halfWorld)

    public var width: Double { maxX - minX }
    public var height: Double { maxY - minY }
    public var isEmpty: Bool { maxX < minX || maxY < minY }

    public func contains(_ p: MercatorPoint) -> Bool {
        p.x >= minX && p.x <= maxX && p.y >= minY && p.y <= maxY
    }

    /// Whether `other` lies wholly inside this rectangle.
    public func contains(_ other: MercatorRect) -> Bool {
        other.minX >= minX && other.maxX <= maxX && other.minY >= minY && other.maxY <= maxY
    }

    public func intersects(_ other: MercatorRect) -> Bool {
        other.minX <= maxX && other.maxX >= minX && other.minY <= maxY && other.maxY >= minY
    }
}

/// Spherical Web Mercator: the projection of web maps, used by the spatial indexes.
public enum WebMercator {
    /// The sphere radius Web Mercator uses (WGS84 semi-major axis), metres.
    public static let radius = 6_378_137.0
    /// Half the side of the Mercator square, metres (π R).
    public static let halfWorld = Double.pi * radius
    /// The latitude where the square ends, degrees; points beyond are clamped onto its edge.
    public static let maxLatitude = 85.051_128_779_806_59

    /// Projects `c`; latitudes beyond ±``maxLatitude`` are clamped (monotonically, so a
    /// rectangle query still finds them).
    public static func project(_ c: Coordinate) -> MercatorPoint {
        let lat = min(max(c.latitude, -maxLatitude), maxLatitude)
        let x = radius * c.longitude * .pi / 180
        let y = radius * log(tan(.pi / 4 + lat * .pi / 360))
        return MercatorPoint(x: x, y: min(max(y, -halfWorld), halfWorld))
    }

    /// The coordinate of a Mercator point.
    public static func unproject(_ p: MercatorPoint) -> Coordinate {
        let lon = p.x / radius * 180 / .pi
        let lat = (2 * atan(exp(p.y / radius)) - .pi / 2) * 180 / .pi
        return Coordinate(latitude: lat, longitude: lon)
    }

    /// Mercator rectangles that together cover every point within `metres` (great circle)
    /// of `center`: one rectangle, or two when the circle crosses the antimeridian.
    ///
    /// North and south edges come from the spherical ``Coordinate/offset(metres:bearing:)``
    /// along the meridian, so the box stays right near the poles (a circle holding a pole
    /// spans every longitude). East and west use the circle's widest longitude,
    /// asin(sin δ / cos φ): the point due east (bearing 90°) is *not* the widest point on a
    /// sphere — that lies slightly poleward — and a box through it would miss a sliver.
    public static func rects(within metres: Double, of center: Coordinate) -> [MercatorRect] {
        let δ = max(0, metres) / Coordinate.earthRadiusMetres
        let north = center.offset(metres: metres, bearing: 0)
        let south = center.offset(metres: metres, bearing: 180)
        // `offset` past a pole comes back down the other side: the box then reaches the pole.
        let crossesNorth = center.latitude + δ * 180 / .pi >= 90
        let crossesSouth = center.latitude - δ * 180 / .pi <= -90
        let maxLat = crossesNorth ? 90 : north.latitude
        let minLat = crossesSouth ? -90 : south.latitude
        // A hair of padding so rounding never drops a point exactly on the circle; the exact
        // great-circle filter that follows removes anything extra.
        let pad = 1e-9
        let cosφ = cos(center.latitude * .pi / 180)
        var minLon = -180.0
        var maxLon = 180.0
        if !crossesNorth && !crossesSouth && sin(δ) < cosφ {
            let Δλ = asin(sin(δ) / cosφ) * 180 / .pi + pad
            minLon = center.longitude - Δλ
            maxLon = center.longitude + Δλ
        }
        let yLow = project(Coordinate(latitude: minLat - pad, longitude: 0)).y
        let yHigh = project(Coordinate(latitude: maxLat + pad, longitude: 0)).y
        func x(_ lon: Double) -> Double { radius * lon * .pi / 180 }
        if minLon < -180 {
            return [
                MercatorRect(minX: x(-180), minY: yLow, maxX: x(maxLon), maxY: yHigh),
                MercatorRect(minX: x(minLon + 360), minY: yLow, maxX: x(180), maxY: yHigh),
            ]
        }
        if maxLon > 180 {
            return [
                MercatorRect(minX: x(minLon), minY: yLow, maxX: x(180), maxY: yHigh),
                MercatorRect(minX: x(-180), minY: yLow, maxX: x(maxLon - 360), maxY: yHigh),
            ]
        }
        return [MercatorRect(minX: x(minLon), minY: yLow, maxX: x(maxLon), maxY: yHigh)]
    }
}
