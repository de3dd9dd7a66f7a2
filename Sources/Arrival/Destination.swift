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

    enum CodingKeys: String, CodingKey { case name, center, door }

    /// Reads a destination; the centre must be a real coordinate, since the plan walks there.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        center = try c.decode(Coordinate.self, forKey: .center)
        guard center.isValid else {
            throw DecodingError.dataCorruptedError(
                forKey: .center, in: c, debugDescription: "coordinate \(center) is outside −90…90, −180…180")
        }
        door = try c.decodeIfPresent(Door.self, forKey: .door)
    }
}
