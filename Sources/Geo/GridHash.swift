import Foundation

/// A uniform grid of square Web Mercator cells kept in a hash map: O(1) insert, and a radius
/// query that looks at only the cells the radius can reach.
///
/// When a cell is at least as large as a query's Mercator half-size (the radius divided by
/// the cosine of the latitude), every answer lies in the 3 × 3 block of cells around the
/// query's own cell, so a query costs nine lookups. ``init(radiusMetres:upToLatitude:)``
/// picks such a cell. Larger radii still answer correctly, visiting more cells.
public struct GridHash<Element> {
    struct Entry {
        var point: MercatorPoint
        var coordinate: Coordinate
        var element: Element
    }

    /// The side of a cell, Mercator metres.
    public let cellMetres: Double
    var entries: [Entry] = []
    var cells: [Int64: [Int32]] = [:]

    /// A grid of `cellMetres`-sided Mercator cells.
    public init(cellMetres: Double) {
        precondition(cellMetres > 0)
        self.cellMetres = cellMetres
    }

    /// A grid whose cells hold the 3 × 3 guarantee for queries up to `radiusMetres` (ground
    /// metres) at latitudes up to ±`upToLatitude` degrees.
    public init(radiusMetres: Double, upToLatitude: Double) {
        let stretch = 1 / cos(min(abs(upToLatitude), WebMercator.maxLatitude) * .pi / 180)
        self.init(cellMetres: radiusMetres * stretch * (1 + 1e-6))
    }

    /// How many items the grid holds.
    public var count: Int { entries.count }

    func cell(_ x: Double) -> Int64 { Int64((x / cellMetres).rounded(.down)) }
    static func key(_ cx: Int64, _ cy: Int64) -> Int64 { (cx << 32) ^ (cy & 0xFFFF_FFFF) }

    /// Adds `element` at `coordinate`, in constant time.
    public mutating func insert(_ element: Element, at coordinate: Coordinate) {
        let p = WebMercator.project(coordinate)
        let ordinal = Int32(entries.count)
        entries.append(Entry(point: p, coordinate: coordinate, element: element))
        cells[Self.key(cell(p.x), cell(p.y)), default: []].append(ordinal)
    }

    /// The items within `metres` (great circle) of `center`, nearest first (ties in
    /// insertion order).
    public func items(within metres: Double, of center: Coordinate) -> [SpatialHit<Element>] {
        var hits: [SpatialHit<Element>] = []
        // Two rectangles (across the antimeridian) may share an edge cell: visit it once.
        var seen = Set<Int64>()
        let rects = WebMercator.rects(within: metres, of: center)
        for rect in rects {
            let x0 = cell(rect.minX)
            let x1 = cell(rect.maxX)
            let y0 = cell(rect.minY)
            let y1 = cell(rect.maxY)
            func scan(_ key: Int64, _ ordinals: [Int32]) {
                guard rects.count == 1 || seen.insert(key).inserted else { return }
                for ordinal in ordinals {
                    let e = entries[Int(ordinal)]
                    let d = center.distance(to: e.coordinate)
                    if d <= metres {
                        hits.append(
                            SpatialHit(
                                element: e.element, coordinate: e.coordinate, metres: d, ordinal: Int(ordinal)
                            ))
                    }
                }
            }
            // A radius far larger than a cell spans more cells than are occupied: then walk
            // the occupied cells instead of the empty ones.
            let span = Double(x1 - x0 + 1) * Double(y1 - y0 + 1)
            if span > Double(cells.count) {
                for (key, ordinals) in cells {
                    let cx = key >> 32
                    let cy = Int64(Int32(truncatingIfNeeded: key))
                    if cx >= x0 && cx <= x1 && cy >= y0 && cy <= y1 { scan(key, ordinals) }
                }
                continue
            }
            for cx in x0...x1 {
                for cy in y0...y1 {
                    let key = Self.key(cx, cy)
                    if let ordinals = cells[key] { scan(key, ordinals) }
                }
            }
        }
        return hits.sorted(by: SpatialHit.precedes)
    }

    /// How many cells a query of `metres` around `center` looks at (9 or fewer when a cell
    /// is as large as the query's Mercator half-size).
    public func cellsVisited(within metres: Double, of center: Coordinate) -> Int {
        WebMercator.rects(within: metres, of: center).reduce(0) { sum, r in
            sum + Int((cell(r.maxX) - cell(r.minX) + 1) * (cell(r.maxY) - cell(r.minY) + 1))
        }
    }
}

extension GridHash: Sendable where Element: Sendable {}
extension GridHash.Entry: Sendable where Element: Sendable {}
