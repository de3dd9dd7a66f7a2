public import Geo

/// A building to walk to; `door` is the door the companion named, if any.
///
/// JSON: `{"name": "Rautatieasema", "center": {"lat", "lon"}, "door": Door?}`.
public struct Destination: Sendable, Hashable, Codable {
    public var name: String
    public var center: Coordinate
    /// The companion's named door. It stays on the destination so that every re-made plan
    /// keeps it leading (after the walker's own confirmed door).
    public var door: Door?

    public init(name: String, center: Coordinate, door: Door? = nil) {
        self.name = name
        self.center = center
        self.door = door
    }
}
