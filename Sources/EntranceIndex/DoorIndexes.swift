import Diagnostics
import Foundation
public import Geo

/// The latitude/longitude box a door index covers, degrees.
public struct DoorIndexBounds: Sendable, Hashable, CustomStringConvertible {
    public var minLat: Double
    public var maxLat: Double
    public var minLon: Double
    public var maxLon: Double

    public init(minLat: Double, maxLat: Double, minLon: Double, maxLon: Double) {
        self.minLat = minLat
        self.maxLat = maxLat
        self.minLon = minLon
        self.maxLon = maxLon
    }

    /// Reads the `meta` form "minLat,maxLat,minLon,maxLon" (``metaText``).
    init?(_ text: String) {
        let v = text.split(separator: ",").compactMap { Double($0) }
        guard v.count == 4 else { return nil }
        self.init(minLat: v[0], maxLat: v[1], minLon: v[2], maxLon: v[3])
    }

    /// The `meta` form the importer writes and `init?(_:)` reads.
    var metaText: String { "\(minLat),\(maxLat),\(minLon),\(maxLon)" }

    /// The smallest box holding this one and `other` (this one when `other` is nil).
    func union(_ other: DoorIndexBounds?) -> DoorIndexBounds {
        guard let other else { return self }
        return DoorIndexBounds(
            minLat: min(minLat, other.minLat), maxLat: max(maxLat, other.maxLat),
            minLon: min(minLon, other.minLon),
            maxLon: max(maxLon, other.maxLon))
    }

    public func contains(_ point: Coordinate) -> Bool {
        point.latitude >= minLat && point.latitude <= maxLat && point.longitude >= minLon
            && point.longitude <= maxLon
    }

    /// Metres from `point` to the nearest point of the box (0 inside).
    public func distance(to point: Coordinate) -> Double {
        let nearest = Coordinate(
            latitude: min(max(point.latitude, minLat), maxLat),
            longitude: min(max(point.longitude, minLon), maxLon))
        return point.distance(to: nearest)
    }

    var area: Double { (maxLat - minLat) * (maxLon - minLon) }

    /// "60.15..60.18, 24.92..24.96"
    public var description: String {
        func f(_ v: Double) -> String { String(format: "%.4f", v) }
        return "\(f(minLat))..\(f(maxLat)), \(f(minLon))..\(f(maxLon))"
    }
}

/// A point no door index covers.
public struct OutsideDoorIndex: Error, CustomStringConvertible, Equatable {
    public var point: Coordinate
    /// What the indexes cover.
    public var covered: [DoorIndexBounds]

    public var description: String {
        let boxes = covered.map(\.description)
        return covered.count == 1
            ? "outside the door index (it covers \(boxes[0]))"
            : "outside the door indexes (they cover \(boxes.joined(separator: "; ")))"
    }
}

/// Several door indexes, one a region: a file, or every `*.db` in a directory. Each lookup
/// goes to the index whose bounds hold the point; a search to the nearest.
///
/// Not thread-safe (one SQLite connection per index): use one per thread.
public final class DoorIndexes {
    /// The indexes, by file name.
    public let indexes: [DoorIndex]
    /// The file or directory they were opened from.
    public let path: String

    /// Opens the index file at `path`, or every `*.db` file in the directory at `path`.
    /// - Throws: ``DoorIndexError/notAnIndex(path:reason:)`` for a missing path, an empty
    ///   directory, or a file that is no door index.
    public init(path: String) throws(DoorIndexError) {
        self.path = path
        // The real reason: before, a folder that could not be entered was "no such file".
        if let problem = FileDiagnostics.unreadable(path, directoryAllowed: true) {
            throw .notAnIndex(path: path, reason: problem)
        }
        var isDirectory: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        guard isDirectory.boolValue else {
            indexes = [try DoorIndex(path: path)]
            return
        }
        let names =
            ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [])
            .filter { $0.hasSuffix(".db") }.sorted()
        guard !names.isEmpty else { throw .notAnIndex(path: path, reason: "a directory with no *.db file") }
        var opened: [DoorIndex] = []
        for name in names { opened.append(try DoorIndex(path: "\(path)/\(name)")) }
        indexes = opened
    }

    /// Every index's bounds.
    public var covered: [DoorIndexBounds] { indexes.compactMap(\.bounds) }

    /// The index whose bounds hold `point` (the smallest box, when several do).
    /// - Throws: ``OutsideDoorIndex`` when none does.
    public func index(at point: Coordinate) throws(OutsideDoorIndex) -> DoorIndex {
        let holding = indexes.filter { $0.bounds?.contains(point) == true }
        guard let best = holding.min(by: { $0.bounds!.area < $1.bounds!.area }) else {
            throw OutsideDoorIndex(point: point, covered: covered)
        }
        return best
    }

    /// The index holding `point`, else the one whose box is nearest.
    public func nearest(to point: Coordinate) -> DoorIndex? {
        if let holding = try? index(at: point) { return holding }
        return indexes.min {
            ($0.bounds?.distance(to: point) ?? .infinity) < ($1.bounds?.distance(to: point) ?? .infinity)
        }
    }

    /// ``DoorIndex/doors(near:radius:)`` in the index holding `point`.
    /// - Throws: ``OutsideDoorIndex`` when no index covers the point; SQLite errors.
    public func doors(near point: Coordinate, radius: Double = 150) throws -> DoorsNearResult {
        try index(at: point).doors(near: point, radius: radius)
    }

    /// ``DoorIndex/search(_:near:limit:)``: with `near`, in the index nearest to it; without,
    /// in every index, merged in the same order.
    public func search(_ query: String, near: Coordinate? = nil, limit: Int = 10) throws -> [BuildingMatch] {
        if let near {
            return try nearest(to: near)?.search(query, near: near, limit: limit) ?? []
        }
        let all = try indexes.flatMap { try $0.search(query, limit: limit) }
        return Array(
            all.enumerated().sorted { a, b in
                a.element.quality != b.element.quality
                    ? a.element.quality < b.element.quality : a.offset < b.offset
            }.map(\.element).prefix(limit))
    }
}
