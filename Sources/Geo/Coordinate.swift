/// A point on the WGS84 ellipsoid, in degrees.
///
/// Encodes as `{"lat": …, "lon": …}`, the form every Pathfinder JSON format uses.
public struct Coordinate: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Latitude in degrees, −90…90 (north positive).
    public var latitude: Double
    /// Longitude in degrees, −180…180 (east positive).
    public var longitude: Double

    /// Creates a coordinate from degrees.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Whether both values are finite and inside the WGS84 ranges.
    public var isValid: Bool {
        latitude.isFinite && longitude.isFinite && abs(latitude) <= 90 && abs(longitude) <= 180
    }

    public var description: String { "\(latitude),\(longitude)" }

    enum CodingKeys: String, CodingKey {
        case latitude = "lat"
        case longitude = "lon"
    }
}
