import Foundation

/// Spherical-earth geometry: good to ~0.3 % against the ellipsoid, far better than GPS over
/// the distances Pathfinder speaks of.
extension Coordinate {
    /// Mean earth radius (IUGG), metres.
    public static let earthRadiusMetres = 6_371_008.8

    /// Great-circle distance in metres (haversine, stable for short distances).
    public func distance(to other: Coordinate) -> Double {
        let φ1 = latitude.radians
        let φ2 = other.latitude.radians
        let Δφ = φ2 - φ1
        let Δλ = (other.longitude - longitude).radians
        let a = sin(Δφ / 2) * sin(Δφ / 2) + cos(φ1) * cos(φ2) * sin(Δλ / 2) * sin(Δλ / 2)
        return 2 * Self.earthRadiusMetres * asin(min(1, a.squareRoot()))
    }

    /// Initial bearing from here to `other`, degrees clockwise from true north, 0..<360.
    public func bearing(to other: Coordinate) -> Double {
        let φ1 = latitude.radians
        let φ2 = other.latitude.radians
        let Δλ = (other.longitude - longitude).radians
        let y = sin(Δλ) * cos(φ2)
        let x = cos(φ1) * sin(φ2) - sin(φ1) * cos(φ2) * cos(Δλ)
        return normalizedDegrees(atan2(y, x).degrees)
    }

    /// The point `metres` away along the great circle leaving here at `bearing` degrees.
    public func offset(metres: Double, bearing: Double) -> Coordinate {
        let δ = metres / Self.earthRadiusMetres
        let θ = bearing.radians
        let φ1 = latitude.radians
        let λ1 = longitude.radians
        let φ2 = asin(sin(φ1) * cos(δ) + cos(φ1) * sin(δ) * cos(θ))
        let λ2 = λ1 + atan2(sin(θ) * sin(δ) * cos(φ1), cos(δ) - sin(φ1) * sin(φ2))
        var lon = λ2.degrees
        lon = (lon + 540).truncatingRemainder(dividingBy: 360) - 180
        return Coordinate(latitude: φ2.degrees, longitude: lon)
    }
}

/// An angle in degrees brought into 0..<360.
public func normalizedDegrees(_ degrees: Double) -> Double {
    let r = degrees.truncatingRemainder(dividingBy: 360)
    return r < 0 ? r + 360 : r
}

extension Double {
    @inlinable var radians: Double { self * .pi / 180 }
    @inlinable var degrees: Double { self * 180 / .pi }
}

extension Coordinate {
    /// WGS84 semi-major axis, metres, and flattening.
    static let wgs84A = 6_378_137.0
    static let wgs84F = 1 / 298.257223563

    /// Distance on the WGS84 ellipsoid in metres, by Lambert's formula for long lines
    /// (about 10 m over thousands of kilometres). For the published distances between places
    /// far apart, where the sphere's 0.3 % matters; guidance uses ``distance(to:)``.
    public func ellipsoidalDistance(to other: Coordinate) -> Double {
        let f = Self.wgs84F
        let β1 = atan((1 - f) * tan(latitude.radians))
        let β2 = atan((1 - f) * tan(other.latitude.radians))
        let Δλ = (other.longitude - longitude).radians
        // Central angle between the reduced latitudes (haversine form).
        let h = sin((β2 - β1) / 2) * sin((β2 - β1) / 2) + cos(β1) * cos(β2) * sin(Δλ / 2) * sin(Δλ / 2)
        let σ = 2 * asin(min(1, h.squareRoot()))
        guard σ > 1e-12 else { return 0 }
        guard σ < .pi - 1e-9 else { return Self.wgs84A * σ * (1 - f / 2) }
        let p = (β1 + β2) / 2
        let q = (β2 - β1) / 2
        let x = (σ - sin(σ)) * sin(p) * sin(p) * cos(q) * cos(q) / (cos(σ / 2) * cos(σ / 2))
        let y = (σ + sin(σ)) * cos(p) * cos(p) * sin(q) * sin(q) / (sin(σ / 2) * sin(σ / 2))
        return Self.wgs84A * (σ - f / 2 * (x + y))
    }
}
