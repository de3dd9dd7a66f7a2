/// One answer of a spatial index query: the stored element, where it is, how far away.
public struct SpatialHit<Element> {
    public var element: Element
    public var coordinate: Coordinate
    /// Great-circle distance from the query point, metres.
    public var metres: Double
    /// The order the element was inserted in (0-based); breaks distance ties, so every
    /// index answers in exactly the same order as a brute-force scan.
    public var ordinal: Int

    public init(element: Element, coordinate: Coordinate, metres: Double, ordinal: Int) {
        self.element = element
        self.coordinate = coordinate
        self.metres = metres
        self.ordinal = ordinal
    }

    /// Nearer first; equal distances in insertion order.
    @inlinable
    public static func precedes(_ a: Self, _ b: Self) -> Bool {
        a.metres != b.metres ? a.metres < b.metres : a.ordinal < b.ordinal
    }
}

extension SpatialHit: Sendable where Element: Sendable {}
extension SpatialHit: Equatable where Element: Equatable {}
