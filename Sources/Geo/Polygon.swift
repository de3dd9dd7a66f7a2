import Foundation

/// A planar point in degrees: longitude as x, latitude as y (GeoJSON/WKB order).
public struct LonLat: Sendable, Hashable {
    /// Longitude in degrees (x). May leave −180…180 inside an unwrapped antimeridian ring.
    public var lon: Double
    /// Latitude in degrees (y).
    public var lat: Double

    public init(lon: Double, lat: Double) {
        self.lon = lon
        self.lat = lat
    }
}

/// An axis-aligned box in degrees.
public struct BoundingBox: Sendable, Hashable {
    public var minLon: Double
    public var minLat: Double
    public var maxLon: Double
    public var maxLat: Double

    public init(minLon: Double, minLat: Double, maxLon: Double, maxLat: Double) {
        self.minLon = minLon
        self.minLat = minLat
        self.maxLon = maxLon
        self.maxLat = maxLat
    }

    /// The box around `points` (empty input gives an inverted box that contains nothing).
    public init(_ points: some Sequence<LonLat>) {
        self.init(minLon: .infinity, minLat: .infinity, maxLon: -.infinity, maxLat: -.infinity)
        for p in points { extend(p) }
    }

    public mutating func extend(_ p: LonLat) {
        minLon = Swift.min(minLon, p.lon)
        maxLon = Swift.max(maxLon, p.lon)
        minLat = Swift.min(minLat, p.lat)
        maxLat = Swift.max(maxLat, p.lat)
    }

    public mutating func extend(_ box: BoundingBox) {
        minLon = Swift.min(minLon, box.minLon)
        maxLon = Swift.max(maxLon, box.maxLon)
        minLat = Swift.min(minLat, box.minLat)
        maxLat = Swift.max(maxLat, box.maxLat)
    }

    /// Whether the point lies in the box, edges included (no longitude wrapping).
    public func contains(lon: Double, lat: Double) -> Bool {
        lat >= minLat && lat <= maxLat && lon >= minLon && lon <= maxLon
    }
}

/// One polygon: an exterior ring and its holes, each ring closed (first point == last).
///
/// A ring that crosses the antimeridian is stored *unwrapped* (longitudes continue past
/// ±180 instead of jumping), so containment tests the point at λ and at λ ± 360°.
public struct Polygon: Sendable, Hashable {
    /// The rings and their strip indexes, shared by copies: a copy of a polygon (into an
    /// index, out of an array) then costs one reference count, not one per array.
    private final class Storage: Sendable {
        let exterior: [LonLat]
        let holes: [[LonLat]]
        let exteriorStrips: RingStrips?
        let holeStrips: [RingStrips?]
        init(exterior: [LonLat], holes: [[LonLat]]) {
            self.exterior = exterior
            self.holes = holes
            exteriorStrips = RingStrips(exterior)
            holeStrips = holes.map(RingStrips.init)
        }
    }

    private let storage: Storage
    /// The box around the exterior (longitudes may exceed ±180 when unwrapped).
    public let bounds: BoundingBox

    /// The outer boundary, closed.
    public var exterior: [LonLat] { storage.exterior }
    /// Holes, each closed.
    public var holes: [[LonLat]] { storage.holes }

    /// Creates a polygon, closing open rings and unwrapping rings that jump across ±180°.
    /// Long rings get their edges bucketed by latitude, so a containment test reads only
    /// the edges near the point's latitude.
    public init(exterior: [LonLat], holes: [[LonLat]] = []) {
        let ring = Polygon.normalized(exterior)
        storage = Storage(exterior: ring, holes: holes.map(Polygon.normalized))
        bounds = BoundingBox(ring)
    }

    public static func == (a: Polygon, b: Polygon) -> Bool {
        a.storage === b.storage || (a.exterior == b.exterior && a.holes == b.holes)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(exterior)
        hasher.combine(holes)
    }

    /// Whether the point is inside: in the exterior and in no hole (even–odd rule per ring).
    /// Points exactly on an edge fall on a fixed side, the same every time.
    public func contains(lon: Double, lat: Double) -> Bool {
        guard lat >= bounds.minLat, lat <= bounds.maxLat else { return false }
        return containsUnwrapped(lon, lat)
            || (bounds.maxLon > 180 && containsUnwrapped(lon + 360, lat))
            || (bounds.minLon < -180 && containsUnwrapped(lon - 360, lat))
    }

    private func containsUnwrapped(_ x: Double, _ y: Double) -> Bool {
        guard x >= bounds.minLon, x <= bounds.maxLon else { return false }
        let storage = self.storage
        guard Polygon.ringContains(storage.exterior, storage.exteriorStrips, x, y) else { return false }
        for (i, hole) in storage.holes.enumerated()
        where Polygon.ringContains(hole, storage.holeStrips[i], x, y) {
            return false
        }
        return true
    }

    /// Area on the sphere in square metres (holes subtracted).
    public var area: Double {
        Swift.max(0, Polygon.ringArea(exterior) - holes.reduce(0) { $0 + Polygon.ringArea($1) })
    }

    static func ringContains(_ ring: [LonLat], _ strips: RingStrips?, _ x: Double, _ y: Double) -> Bool {
        guard let strips else { return ringContains(ring, x, y) }
        let (first, end) = strips.edgeRange(at: y)
        // Raw buffers: this loop runs for every point near a border, and slices or checked
        // subscripts cost more than the arithmetic. Edge i joins points i and i + 1 < count.
        return ring.withUnsafeBufferPointer { points in
            strips.edgeIndexes.withUnsafeBufferPointer { edges in
                var inside = false
                for k in first..<end {
                    let i = Int(edges[k])
                    let a = points[i]
                    let b = points[i + 1]
                    if (a.lat > y) != (b.lat > y) {
                        let cross = (b.lon - a.lon) * (y - a.lat) / (b.lat - a.lat) + a.lon
                        if x < cross { inside.toggle() }
                    }
                }
                return inside
            }
        }
    }

    /// Crossing-number test of one closed ring.
    /// The even–odd crossing test for one ring, open or closed: whether (`x` = lon, `y` = lat)
    /// is inside it. Points exactly on an edge fall on a fixed side, the same every time.
    public static func ringContains(_ ring: [LonLat], _ x: Double, _ y: Double) -> Bool {
        var inside = false
        var j = ring.count - 1
        for i in 0..<ring.count {
            let a = ring[i]
            let b = ring[j]
            if (a.lat > y) != (b.lat > y) {
                let cross = (b.lon - a.lon) * (y - a.lat) / (b.lat - a.lat) + a.lon
                if x < cross { inside.toggle() }
            }
            j = i
        }
        return inside
    }

    /// Unsigned area of a closed ring on a sphere of Earth's mean radius, m²
    /// (the spherical-excess line integral used by GIS tools).
    static func ringArea(_ ring: [LonLat]) -> Double {
        guard ring.count > 3 else { return 0 }
        let rad = Double.pi / 180
        var sum = 0.0
        for i in 0..<(ring.count - 1) {
            let p1 = ring[i]
            let p2 = ring[i + 1]
            sum += (p2.lon - p1.lon) * rad * (2 + sin(p1.lat * rad) + sin(p2.lat * rad))
        }
        let r = Coordinate.earthRadiusMetres
        return abs(sum * r * r / 2)
    }

    /// Closes the ring and removes ±360° jumps between consecutive points.
    static func normalized(_ ring: [LonLat]) -> [LonLat] {
        guard var previous = ring.first else { return [] }
        var out: [LonLat] = [previous]
        out.reserveCapacity(ring.count + 1)
        var shift = 0.0
        for p in ring.dropFirst() {
            var q = LonLat(lon: p.lon + shift, lat: p.lat)
            if q.lon - previous.lon > 180 {
                shift -= 360
                q.lon -= 360
            } else if q.lon - previous.lon < -180 {
                shift += 360
                q.lon += 360
            }
            out.append(q)
            previous = q
        }
        if out.first != out.last, let first = out.first { out.append(first) }
        return out
    }
}

/// The edges of a closed ring (edge i joins point i and i + 1) in equal latitude strips.
/// The crossing test over one strip's edges equals the test over all edges: an edge outside
/// the strip cannot straddle the point's latitude.
struct RingStrips: Sendable, Hashable {
    /// Rings shorter than this are tested edge by edge.
    static let minimumPoints = 48
    /// About this many edges per strip.
    static let edgesPerStrip = 8

    let minLat: Double
    let stripsPerDegree: Double
    let offsets: [Int32]
    let edgeIndexes: [Int32]

    init?(_ ring: [LonLat]) {
        guard ring.count >= Self.minimumPoints else { return nil }
        let box = BoundingBox(ring)
        let count = Swift.max(1, (ring.count - 1) / Self.edgesPerStrip)
        let height = Swift.max(box.maxLat - box.minLat, 1e-9)
        minLat = box.minLat
        stripsPerDegree = Double(count) / height
        let spd = stripsPerDegree
        // Each edge's strips, then a counting sort into one flat array (edges ascending
        // within a strip): no per-strip arrays, which dominated loading.
        func strips(_ i: Int) -> ClosedRange<Int> {
            let lo = Swift.min(ring[i].lat, ring[i + 1].lat)
            let hi = Swift.max(ring[i].lat, ring[i + 1].lat)
            let first = Swift.max(0, Swift.min(count - 1, Int(((lo - box.minLat) * spd).rounded(.down))))
            let last = Swift.max(0, Swift.min(count - 1, Int(((hi - box.minLat) * spd).rounded(.down))))
            return first...last
        }
        var offsets = [Int32](repeating: 0, count: count + 1)
        for i in 0..<(ring.count - 1) {
            for s in strips(i) { offsets[s + 1] += 1 }
        }
        for s in 0..<count { offsets[s + 1] += offsets[s] }
        var next = offsets
        var edges = [Int32](repeating: 0, count: Int(offsets[count]))
        for i in 0..<(ring.count - 1) {
            for s in strips(i) {
                edges[Int(next[s])] = Int32(i)
                next[s] += 1
            }
        }
        self.offsets = offsets
        self.edgeIndexes = edges
    }

    /// The positions in `edgeIndexes` of the edges that may straddle latitude `y`.
    func edgeRange(at y: Double) -> (first: Int, end: Int) {
        let count = offsets.count - 1
        let s = Swift.max(0, Swift.min(count - 1, Int(((y - minLat) * stripsPerDegree).rounded(.down))))
        return (Int(offsets[s]), Int(offsets[s + 1]))
    }
}

/// Several polygons that together form one area (a country with islands).
public struct MultiPolygon: Sendable, Hashable {
    public let polygons: [Polygon]
    /// The box around every part.
    public let bounds: BoundingBox

    public init(_ polygons: [Polygon]) {
        self.polygons = polygons
        var box = BoundingBox([LonLat]())
        for p in polygons { box.extend(p.bounds) }
        self.bounds = box
    }

    /// Whether any part contains the point (degrees).
    public func contains(lon: Double, lat: Double) -> Bool {
        polygons.contains { $0.contains(lon: lon, lat: lat) }
    }

    /// Whether any part contains the coordinate.
    public func contains(_ c: Coordinate) -> Bool { contains(lon: c.longitude, lat: c.latitude) }

    /// Sum of the parts' areas, m².
    public var area: Double { polygons.reduce(0) { $0 + $1.area } }
}
