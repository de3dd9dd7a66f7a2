/// A point quadtree over Web Mercator, for "what is in this box" and "what is within r metres".
///
/// Leaves hold up to ``capacity`` items and split into four when they overflow, unless the
/// cell is already down to ``minimumCellMetres`` (so a crowd standing on one spot — everyone
/// in one stadium — does not split forever). Working in Mercator rather than raw degrees
/// keeps cells square on the ground at every latitude.
public struct QuadTree<Element> {
    struct Entry {
        var point: MercatorPoint
        var coordinate: Coordinate
        var element: Element
    }

    struct Node {
        var rect: MercatorRect
        /// Index of the first of four consecutive children, or −1 for a leaf.
        var firstChild: Int32 = -1
        /// Ordinals (indexes into `entries`) of the leaf's items.
        var items: [Int32] = []
    }

    /// The most items a leaf holds before it splits.
    public let capacity: Int
    /// Cells are never split below this side, Mercator metres.
    public let minimumCellMetres: Double
    var entries: [Entry] = []
    var nodes: [Node]

    /// An empty tree covering `bounds` (by default the whole Mercator square).
    public init(bounds: MercatorRect = .world, capacity: Int = 10, minimumCellMetres: Double = 1) {
        precondition(capacity > 0 && minimumCellMetres > 0)
        self.capacity = capacity
        self.minimumCellMetres = minimumCellMetres
        nodes = [Node(rect: bounds)]
    }

    /// How many items the tree holds.
    public var count: Int { entries.count }

    /// Adds `element` at `coordinate`. Its ordinal is the number of items before it.
    public mutating func insert(_ element: Element, at coordinate: Coordinate) {
        let point = WebMercator.project(coordinate)
        precondition(nodes[0].rect.contains(point), "\(coordinate) lies outside the tree's bounds")
        let ordinal = Int32(entries.count)
        entries.append(Entry(point: point, coordinate: coordinate, element: element))
        var i = 0
        while nodes[i].firstChild >= 0 { i = child(of: i, for: point) }
        nodes[i].items.append(ordinal)
        splitIfNeeded(i)
    }

    private func child(of i: Int, for p: MercatorPoint) -> Int {
        let r = nodes[i].rect
        let midX = (r.minX + r.maxX) / 2
        let midY = (r.minY + r.maxY) / 2
        return Int(nodes[i].firstChild) + (p.x >= midX ? 1 : 0) + (p.y >= midY ? 2 : 0)
    }

    private mutating func splitIfNeeded(_ start: Int) {
        var pending = [start]
        while let i = pending.popLast() {
            let r = nodes[i].rect
            guard nodes[i].items.count > capacity, r.width / 2 >= minimumCellMetres else { continue }
            let midX = (r.minX + r.maxX) / 2
            let midY = (r.minY + r.maxY) / 2
            let first = nodes.count
            nodes.append(Node(rect: MercatorRect(minX: r.minX, minY: r.minY, maxX: midX, maxY: midY)))
            nodes.append(Node(rect: MercatorRect(minX: midX, minY: r.minY, maxX: r.maxX, maxY: midY)))
            nodes.append(Node(rect: MercatorRect(minX: r.minX, minY: midY, maxX: midX, maxY: r.maxY)))
            nodes.append(Node(rect: MercatorRect(minX: midX, minY: midY, maxX: r.maxX, maxY: r.maxY)))
            nodes[i].firstChild = Int32(first)
            let items = nodes[i].items
            nodes[i].items = []
            for ordinal in items {
                nodes[child(of: i, for: entries[Int(ordinal)].point)].items.append(ordinal)
            }
            pending.append(contentsOf: first..<first + 4)
        }
    }

    /// The ordinals of items inside `rect` and not inside `except`, unsorted. Whole nodes
    /// inside `except` are skipped without looking at their items: that is what makes
    /// "the doors in the extended area, except the area already loaded" cheap.
    func ordinals(in rect: MercatorRect, except: MercatorRect?, into out: inout [Int32]) {
        var stack = [0]
        while let i = stack.popLast() {
            let node = nodes[i]
            guard node.rect.intersects(rect) else { continue }
            if let except, except.contains(node.rect) { continue }
            if node.firstChild >= 0 {
                let first = Int(node.firstChild)
                stack.append(contentsOf: first..<first + 4)
                continue
            }
            for ordinal in node.items {
                let p = entries[Int(ordinal)].point
                if rect.contains(p) && !(except?.contains(p) ?? false) { out.append(ordinal) }
            }
        }
    }

    /// The items inside `rect` (edges included) and outside `except`, in insertion order.
    public func items(in rect: MercatorRect, except: MercatorRect? = nil) -> [Element] {
        var out: [Int32] = []
        ordinals(in: rect, except: except, into: &out)
        return out.sorted().map { entries[Int($0)].element }
    }

    /// The items within `metres` (great circle) of `center`, nearest first.
    ///
    /// The radius becomes Mercator rectangles (``WebMercator/rects(within:of:)``), a
    /// rectangle query finds the candidates, and the exact great-circle distance filters
    /// and sorts them (ties in insertion order).
    public func items(within metres: Double, of center: Coordinate) -> [SpatialHit<Element>] {
        var candidates: [Int32] = []
        let rects = WebMercator.rects(within: metres, of: center)
        for rect in rects { ordinals(in: rect, except: nil, into: &candidates) }
        if rects.count > 1 { candidates = Array(Set(candidates)) }
        var hits: [SpatialHit<Element>] = []
        for ordinal in candidates {
            let e = entries[Int(ordinal)]
            let d = center.distance(to: e.coordinate)
            if d <= metres {
                hits.append(
                    SpatialHit(element: e.element, coordinate: e.coordinate, metres: d, ordinal: Int(ordinal))
                )
            }
        }
        return hits.sorted(by: SpatialHit.precedes)
    }
}

extension QuadTree: Sendable where Element: Sendable {}
extension QuadTree.Entry: Sendable where Element: Sendable {}
extension QuadTree.Node: Sendable {}
