import Foundation

/// Nearest-point search over points sorted by latitude.
///
/// A query binary-searches the latitude window around the point, measures every entry in
/// it (great-circle metres), and widens the window until the best answer is provably
/// nearer than anything outside it: a point `Δφ` away in latitude is at least `R·Δφ` away.
/// Ties go to the smaller id, so the answer equals a full scan's.
public struct LatitudeSortedIndex: Sendable {
    /// One indexed point.
    public struct Entry: Sendable, Hashable {
        public var id: Int64
        public var coordinate: Coordinate
        public init(id: Int64, coordinate: Coordinate) {
            self.id = id
            self.coordinate = coordinate
        }
    }

    /// The answer: the entry and its distance in metres.
    public struct Hit: Sendable, Hashable {
        public var id: Int64
        public var metres: Double
    }

    private let lats: [Double]
    private let lons: [Double]
    /// √cos φ of each entry, for the cheap longitude lower bound.
    private let rootCos: [Double]
    private let ids: [Int64]

    /// The first window's half-height, degrees; doubled until the answer is certain.
    static let initialWindowDegrees = 0.25

    public init(_ entries: [Entry]) {
        let sorted = entries.sorted {
            ($0.coordinate.latitude, $0.id) < ($1.coordinate.latitude, $1.id)
        }
        lats = sorted.map(\.coordinate.latitude)
        lons = sorted.map(\.coordinate.longitude)
        ids = sorted.map(\.id)
        rootCos = sorted.map { cos($0.coordinate.latitude * .pi / 180).squareRoot() }
    }

    public var count: Int { ids.count }

    /// The nearest entry to `point` no farther than `maxMetres`, or `nil`.
    public func nearest(to point: Coordinate, maxMetres: Double = .infinity) -> Hit? {
        guard !ids.isEmpty else { return nil }
        let metresPerDegree = Coordinate.earthRadiusMetres * .pi / 180
        var window = Self.initialWindowDegrees
        if maxMetres.isFinite { window = Swift.min(window, maxMetres / metresPerDegree * 1.0001) }
        var best: Hit?
        var scannedLow = lowerBound(point.latitude)  // [scannedLow, scannedHigh) measured so far
        var scannedHigh = scannedLow
        let query = Query(point)
        while true {
            let low = lowerBound(point.latitude - window)
            let high = lowerBound(nextUp(point.latitude + window))
            for i in low..<scannedLow { consider(i, query, &best) }
            for i in scannedHigh..<high { consider(i, query, &best) }
            scannedLow = low
            scannedHigh = high
            let certain = window * metresPerDegree  // nothing outside is nearer than this
            if let hit = best, hit.metres < certain * (1 - 1e-12) {
                return hit.metres <= maxMetres ? hit : nil
            }
            if maxMetres < certain * (1 - 1e-12) { return best.flatMap { $0.metres <= maxMetres ? $0 : nil } }
            if low == 0 && high == ids.count { return best.flatMap { $0.metres <= maxMetres ? $0 : nil } }
            window *= 2
        }
    }

    /// The query point with what the lower bounds need, computed once.
    private struct Query {
        let point: Coordinate
        let latitude: Double
        let rootCos: Double
        init(_ point: Coordinate) {
            self.point = point
            latitude = point.latitude
            rootCos = cos(point.latitude * .pi / 180).squareRoot()
        }
    }

    /// Lower bounds of the great-circle distance, metres, cheaper than the distance:
    /// R·|Δφ|, and 2R/π·√(cos φ₁ cos φ₂)·|Δλ| (from sin x ≥ 2x/π and asin y ≥ y).
    private func lowerBound(_ i: Int, _ q: Query) -> Double {
        let r = Coordinate.earthRadiusMetres
        let radians = Double.pi / 180
        var dLon = abs(lons[i] - q.point.longitude)
        if dLon > 180 { dLon = 360 - dLon }
        let byLatitude = r * abs(lats[i] - q.latitude) * radians
        let byLongitude = 2 * r / .pi * q.rootCos * rootCos[i] * dLon * radians
        return Swift.max(byLatitude, byLongitude) * (1 - 1e-9)  // margin for rounding
    }

    private func consider(_ i: Int, _ q: Query, _ best: inout Hit?) {
        if let b = best, lowerBound(i, q) > b.metres { return }
        let d = q.point.distance(to: Coordinate(latitude: lats[i], longitude: lons[i]))
        if let b = best, d > b.metres || (d == b.metres && ids[i] > b.id) { return }
        best = Hit(id: ids[i], metres: d)
    }

    /// The first index whose latitude is ≥ `latitude`.
    private func lowerBound(_ latitude: Double) -> Int {
        var low = 0
        var high = lats.count
        while low < high {
            let mid = (low + high) / 2
            if lats[mid] < latitude { low = mid + 1 } else { high = mid }
        }
        return low
    }

    private func nextUp(_ x: Double) -> Double { x.nextUp }
}
