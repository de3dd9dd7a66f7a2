import Foundation

/// Nearest-point search over points sorted by latitude.
///
/// A query binary-searches the latitude window around the point, measures the entries in
/// it (great-circle metres) after cheap lower bounds rule most out, and widens the window
/// until the best answer is provably nearer than anything outside it: a point `Δφ` away in
/// latitude is at least `R·Δφ` away. Ties go to the smaller id, so the answer equals a
/// full scan's.
public struct LatitudeSortedIndex: Sendable {
    /// One indexed point; `reach` (metres) limits how far away it may be found.
    public struct Entry: Sendable, Hashable {
        public var id: Int64
        public var coordinate: Coordinate
        public var reach: Double
        public init(id: Int64, coordinate: Coordinate, reach: Double = .infinity) {
            self.id = id
            self.coordinate = coordinate
            self.reach = reach
        }
    }

    /// The answer: the entry and its distance in metres.
    public struct Hit: Sendable, Hashable {
        public var id: Int64
        public var metres: Double
    }

    /// One entry as stored: everything a scan reads, side by side.
    private struct Slot {
        var lat: Double
        var lon: Double
        /// √cos φ, for the longitude lower bound.
        var rootCos: Double
        /// cos φ exactly as `Coordinate.distance` computes it.
        var cosLat: Double
        var reach: Double
        var id: Int64
    }

    private let slots: [Slot]
    /// The largest `reach`: nothing is found farther away.
    private let maxReach: Double
    /// No entry has a finite reach (then `restricted` may drop entries).
    private let unlimited: Bool

    /// Indexes this small are scanned whole: cheaper than the window's bookkeeping.
    static let scanAllBelow = 24

    /// The first window's half-height, degrees; doubled until the answer is certain.
    static let initialWindowDegrees = 0.25

    public init(_ entries: [Entry]) {
        slots = entries.sorted { ($0.coordinate.latitude, $0.id) < ($1.coordinate.latitude, $1.id) }.map {
            Slot(
                lat: $0.coordinate.latitude, lon: $0.coordinate.longitude,
                rootCos: cos($0.coordinate.latitude * .pi / 180).squareRoot(),
                cosLat: cos($0.coordinate.latitude.radians), reach: $0.reach, id: $0.id)
        }
        maxReach = entries.map(\.reach).max() ?? 0
        unlimited = entries.allSatisfy { $0.reach == .infinity }
    }

    /// A smaller index whose `nearest(to:)` equals this one's for every point within
    /// `radius` metres of `center`: the entries no farther from `center` than its nearest
    /// entry plus 2·`radius`. (The answer for such a point is at most nearest + radius from
    /// the point, so at most nearest + 2·radius from `center`; a small margin covers
    /// rounding.) Indexes whose entries have a reach limit come back whole.
    public func restricted(toPointsWithin radius: Double, of center: Coordinate) -> LatitudeSortedIndex {
        guard unlimited, let best = nearest(to: center) else { return self }
        let bound = (best.metres + 2 * radius) * (1 + 1e-9) + 1
        let degrees = bound / (Coordinate.earthRadiusMetres * .pi / 180)
        let q = Query(center)
        var kept: [Entry] = []
        slots.withUnsafeBufferPointer { slots in
            let low = lowerBound(slots, center.latitude - degrees)
            let high = lowerBound(slots, (center.latitude + degrees).nextUp)
            for s in slots[low..<high] where lowerBound(s, q) <= bound {
                let coordinate = Coordinate(latitude: s.lat, longitude: s.lon)
                if center.distance(to: coordinate) <= bound {
                    kept.append(Entry(id: s.id, coordinate: coordinate, reach: s.reach))
                }
            }
        }
        return LatitudeSortedIndex(kept)
    }

    public var count: Int { slots.count }

    /// The nearest entry to `point` no farther than `maxMetres` (nor its own reach), or `nil`.
    public func nearest(to point: Coordinate, maxMetres: Double = .infinity) -> Hit? {
        guard !slots.isEmpty else { return nil }
        let limit = Swift.min(maxMetres, maxReach)
        let metresPerDegree = Coordinate.earthRadiusMetres * .pi / 180
        var window = Self.initialWindowDegrees
        if limit.isFinite { window = Swift.min(window, limit / metresPerDegree * 1.0001) }
        var best: Best?
        let q = Query(point)
        if slots.count <= Self.scanAllBelow {
            // The entry with the smallest lower bound first: it is likely the answer, and
            // then the bounds rule out most of the rest without a sine.
            var first = 0
            var smallest = Double.infinity
            for (i, s) in slots.enumerated() {
                let bound = lowerBound(s, q)
                if bound < smallest {
                    smallest = bound
                    first = i
                }
            }
            consider(slots[first], q, &best)
            for (i, s) in slots.enumerated() where i != first { consider(s, q, &best) }
            return best.flatMap { $0.metres <= limit ? $0.hit : nil }
        }
        return slots.withUnsafeBufferPointer { slots in
            var scannedLow = lowerBound(slots, point.latitude)  // [scannedLow, scannedHigh) measured
            var scannedHigh = scannedLow
            while true {
                let low = lowerBound(slots, point.latitude - window)
                let high = lowerBound(slots, (point.latitude + window).nextUp)
                // Outward from the point's latitude: near entries first make the bounds bite.
                for i in stride(from: scannedLow - 1, through: low, by: -1) { consider(slots[i], q, &best) }
                for i in scannedHigh..<high { consider(slots[i], q, &best) }
                scannedLow = low
                scannedHigh = high
                let certain = window * metresPerDegree * (1 - 1e-12)  // nothing outside is nearer
                if let b = best, b.metres < certain { return b.metres <= limit ? b.hit : nil }
                if limit < certain || (low == 0 && high == slots.count) {
                    return best.flatMap { $0.metres <= limit ? $0.hit : nil }
                }
                window *= 2
            }
        }
    }

    /// The query point with what the lower bounds need, computed once.
    private struct Query {
        let point: Coordinate
        let rootCos: Double
        let φ: Double
        let cosLat: Double
        init(_ point: Coordinate) {
            self.point = point
            φ = point.latitude.radians
            // One cosine serves both: `radians` is the same `* .pi / 180`, so the bits agree.
            cosLat = cos(φ)
            rootCos = cosLat.squareRoot()
        }
    }

    /// The best so far, with its haversine term for cheap comparisons.
    private struct Best {
        var id: Int64
        var metres: Double
        var haversine: Double
        var hit: Hit { Hit(id: id, metres: metres) }
    }

    /// Lower bounds of the distance, metres, cheaper than the distance: R·|Δφ|, and
    /// 2R/π·√(cos φ₁ cos φ₂)·|Δλ| (from sin x ≥ 2x/π and asin y ≥ y); a small margin
    /// covers rounding.
    private func lowerBound(_ s: Slot, _ q: Query) -> Double {
        let r = Coordinate.earthRadiusMetres
        let radians = Double.pi / 180
        var dLon = abs(s.lon - q.point.longitude)
        if dLon > 180 { dLon = 360 - dLon }
        return Swift.max(
            r * abs(s.lat - q.point.latitude) * radians,
            2 * r / .pi * q.rootCos * s.rootCos * dLon * radians)
            * (1 - 1e-9)
    }

    private func consider(_ s: Slot, _ q: Query, _ best: inout Best?) {
        let bound = lowerBound(s, q)
        if bound > s.reach { return }
        if let b = best, bound > b.metres { return }
        // The haversine term of `Coordinate.distance`, computed with the same operations
        // in the same order, so the metres below are exactly what it would return.
        let Δφ = s.lat.radians - q.φ
        let Δλ = (s.lon - q.point.longitude).radians
        // Each sine once: sin(x) * sin(x) is the same product either way.
        let sinφ = sin(Δφ / 2)
        let sinλ = sin(Δλ / 2)
        let a = sinφ * sinφ + q.cosLat * s.cosLat * sinλ * sinλ
        if let b = best, a > b.haversine * (1 + 1e-9) { return }  // clearly farther: no asin
        let d = 2 * Coordinate.earthRadiusMetres * asin(Swift.min(1, a.squareRoot()))
        if d > s.reach { return }
        if let b = best, d > b.metres || (d == b.metres && s.id > b.id) { return }
        best = Best(id: s.id, metres: d, haversine: a)
    }

    /// The first index whose latitude is ≥ `latitude`.
    private func lowerBound(_ slots: UnsafeBufferPointer<Slot>, _ latitude: Double) -> Int {
        var low = 0
        var high = slots.count
        while low < high {
            let mid = (low + high) / 2
            if slots[mid].lat < latitude { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
