import Arrival
public import Geo
public import OSM

/// The daemon's look-ahead cache of doors around the walker.
///
/// Doors within ``reachMetres`` of the walker are loaded from the door index into a
/// `QuadTree` once and kept. On each move only the newly reached area is of interest: the
/// doors in the square around the new position *except* the square already loaded, which
/// the quadtree answers by skipping whole nodes inside the old square.
public struct DoorLookAhead {
    /// Half the side of the square kept loaded around the walker, metres.
    public let reachMetres: Double
    var tree = QuadTree<OSMNode>()
    var loadedIDs = Set<Int64>()
    /// The square last loaded, in Mercator metres; nil before the first move.
    public private(set) var loaded: MercatorRect?

    public init(reachMetres: Double = 300) { self.reachMetres = reachMetres }

    /// How many entrance nodes are held.
    public var count: Int { tree.count }

    /// Loads the doors around `walker` from `index` and returns those that came into reach
    /// with this move (all of them on the first move), by OSM id.
    public mutating func move(to walker: Coordinate, index: DoorIndex) throws -> [OSMNode] {
        let rects = WebMercator.rects(within: reachMetres, of: walker)
        // Two rectangles (the antimeridian) or a pole: not a walk to a door; nothing to load.
        guard rects.count == 1, let square = rects.first else { return [] }
        let box = (
            low: WebMercator.unproject(MercatorPoint(x: square.minX, y: square.minY)),
            high: WebMercator.unproject(MercatorPoint(x: square.maxX, y: square.maxY))
        )
        for node in try index.entrances(inBox: box.low, box.high) where loadedIDs.insert(node.id).inserted {
            tree.insert(node, at: node.coordinate)
        }
        let fresh = tree.items(in: square, except: loaded)
        loaded = square
        return fresh.sorted { $0.id < $1.id }
    }

    /// The held doors within `metres` of `point`, nearest first.
    public func doors(within metres: Double, of point: Coordinate) -> [SpatialHit<OSMNode>] {
        tree.items(within: metres, of: point)
    }
}
