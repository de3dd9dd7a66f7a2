import Foundation

/// A static k-d tree over points on the unit sphere, for nearest and k-nearest neighbours.
///
/// Points are stored as 3-D unit vectors: the straight-line (chord) distance between two of
/// them grows with the great-circle distance, so a plain Euclidean k-d tree finds the
/// great-circle nearest with no special cases at the poles or the antimeridian. Built once,
/// balanced (median splits on the widest axis); answers carry exact haversine metres.
public struct KDTree<Element> {
    struct Entry {
        var x: Double
        var y: Double
        var z: Double
        var coordinate: Coordinate
        var element: Element
        var ordinal: Int32
        subscript(axis: UInt8) -> Double { axis == 0 ? x : axis == 1 ? y : z }
    }

    /// Entries in tree order: the node of range lo..<hi is the entry at (lo + hi) / 2.
    var entries: [Entry]
    /// The split axis (0 x, 1 y, 2 z) of each node, by the same index.
    var axes: [UInt8]

    /// Builds the tree from `items`; an item's ordinal is its index in `items`.
    public init(_ items: [(element: Element, coordinate: Coordinate)]) {
        entries = items.enumerated().map { i, item in
            let v = Self.vector(item.coordinate)
            return Entry(
                x: v.x, y: v.y, z: v.z, coordinate: item.coordinate, element: item.element, ordinal: Int32(i))
        }
        axes = Array(repeating: 0, count: entries.count)
        var ranges = [(0, entries.count)]
        while let (lo, hi) = ranges.popLast() {
            guard hi - lo > 1 else { continue }
            let axis = widestAxis(lo, hi)
            let mid = (lo + hi) / 2
            select(mid, lo, hi, axis)
            axes[mid] = axis
            ranges.append((lo, mid))
            ranges.append((mid + 1, hi))
        }
    }

    /// How many items the tree holds.
    public var count: Int { entries.count }

    static func vector(_ c: Coordinate) -> (x: Double, y: Double, z: Double) {
        let φ = c.latitude * .pi / 180
        let λ = c.longitude * .pi / 180
        return (cos(φ) * cos(λ), cos(φ) * sin(λ), sin(φ))
    }

    private func widestAxis(_ lo: Int, _ hi: Int) -> UInt8 {
        var low = (Double.infinity, Double.infinity, Double.infinity)
        var high = (-Double.infinity, -Double.infinity, -Double.infinity)
        for e in entries[lo..<hi] {
            low = (min(low.0, e.x), min(low.1, e.y), min(low.2, e.z))
            high = (max(high.0, e.x), max(high.1, e.y), max(high.2, e.z))
        }
        let spread = (high.0 - low.0, high.1 - low.1, high.2 - low.2)
        if spread.0 >= spread.1 && spread.0 >= spread.2 { return 0 }
        return spread.1 >= spread.2 ? 1 : 2
    }

    /// Quickselect: puts the `k`-th smallest of lo..<hi (by `axis`) at `k`, smaller before.
    private mutating func select(_ k: Int, _ lo: Int, _ hi: Int, _ axis: UInt8) {
        var lo = lo
        var hi = hi - 1
        while lo < hi {
            let pivot = entries[(lo + hi) / 2][axis]
            var i = lo
            var j = hi
            while i <= j {
                while entries[i][axis] < pivot { i += 1 }
                while entries[j][axis] > pivot { j -= 1 }
                if i <= j {
                    entries.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            if k <= j {
                hi = j
            } else if k >= i {
                lo = i
            } else {
                return
            }
        }
    }

    private func hit(_ e: Entry, from center: Coordinate) -> SpatialHit<Element> {
        SpatialHit(
            element: e.element, coordinate: e.coordinate, metres: center.distance(to: e.coordinate),
            ordinal: Int(e.ordinal))
    }

    /// The nearest item to `center`, or nil when the tree is empty.
    public func nearest(to center: Coordinate) -> SpatialHit<Element>? {
        nearest(1, to: center).first
    }

    /// The `k` items nearest to `center`, nearest first (ties in insertion order).
    public func nearest(_ k: Int, to center: Coordinate) -> [SpatialHit<Element>] {
        guard k > 0, !entries.isEmpty else { return [] }
        let q = Self.vector(center)
        // The best k so far as (squared chord, ordinal, index), kept sorted; k is small.
        var best: [(d: Double, ordinal: Int32, index: Int)] = []
        func worse(
            _ a: (d: Double, ordinal: Int32, index: Int), _ b: (d: Double, ordinal: Int32, index: Int)
        ) -> Bool {
            a.d != b.d ? a.d > b.d : a.ordinal > b.ordinal
        }
        func visit(_ lo: Int, _ hi: Int) {
            guard lo < hi else { return }
            let mid = (lo + hi) / 2
            let e = entries[mid]
            let dx = e.x - q.x
            let dy = e.y - q.y
            let dz = e.z - q.z
            let candidate = (d: dx * dx + dy * dy + dz * dz, ordinal: e.ordinal, index: mid)
            if best.count < k || worse(best[best.count - 1], candidate) {
                let at = best.firstIndex(where: { worse($0, candidate) }) ?? best.count
                best.insert(candidate, at: at)
                if best.count > k { best.removeLast() }
            }
            guard hi - lo > 1 else { return }
            let axis = axes[mid]
            let diff = (axis == 0 ? q.x : axis == 1 ? q.y : q.z) - e[axis]
            let (near, far) = diff < 0 ? ((lo, mid), (mid + 1, hi)) : ((mid + 1, hi), (lo, mid))
            visit(near.0, near.1)
            // The far side can only hold something nearer than the worst kept if the
            // splitting plane is; equality is kept so ties still reach the lower ordinal.
            if best.count < k || diff * diff <= best[best.count - 1].d { visit(far.0, far.1) }
        }
        visit(0, entries.count)
        return best.map { hit(entries[$0.index], from: center) }.sorted(by: SpatialHit.precedes)
    }

    /// The items within `metres` (great circle) of `center`, nearest first.
    public func items(within metres: Double, of center: Coordinate) -> [SpatialHit<Element>] {
        guard !entries.isEmpty, metres >= 0 else { return [] }
        let q = Self.vector(center)
        let δ = min(metres / Coordinate.earthRadiusMetres, .pi)
        // Chord of the radius, padded a hair; the haversine filter below decides exactly.
        let chord = 2 * sin(δ / 2) * (1 + 1e-9) + 1e-12
        let limit = chord * chord
        var hits: [SpatialHit<Element>] = []
        var ranges = [(0, entries.count)]
        while let (lo, hi) = ranges.popLast() {
            guard lo < hi else { continue }
            let mid = (lo + hi) / 2
            let e = entries[mid]
            let dx = e.x - q.x
            let dy = e.y - q.y
            let dz = e.z - q.z
            if dx * dx + dy * dy + dz * dz <= limit {
                let h = hit(e, from: center)
                if h.metres <= metres { hits.append(h) }
            }
            guard hi - lo > 1 else { continue }
            let axis = axes[mid]
            let diff = (axis == 0 ? q.x : axis == 1 ? q.y : q.z) - e[axis]
            // Left of the plane lie values ≤ the split, right of it values ≥ it.
            if diff <= chord { ranges.append((lo, mid)) }
            if diff >= -chord { ranges.append((mid + 1, hi)) }
        }
        return hits.sorted(by: SpatialHit.precedes)
    }
}

extension KDTree: Sendable where Element: Sendable {}
extension KDTree.Entry: Sendable where Element: Sendable {}
