import Foundation
import Geo
import SQLite

/// A gazetteer database opened read-only and immutable, with its statements cached.
/// Not thread-safe: open one per thread.
package final class GazetteerDatabase {
    let connection: Connection
    package let path: String
    /// Boundary row ids by "region:CODE" / "country:ISO", read on first use
    /// (`boundaryPoint(kind:key:)`): the table has no index on those columns.
    var boundaryIDs: [String: [Int64]]?

    /// Opens `path` read-only (`SQLITE_OPEN_READONLY`, `immutable=1`: no locks taken).
    /// - Throws: `SQLiteError` or `SourceError` naming the file when it is missing or not a gazetteer.
    package init(path: String) throws {
        self.path = path
        connection = try Connection(path: path, mode: .readOnly(immutable: true))
        guard (try? connection.scalarInt("SELECT count(*) FROM meta WHERE key = 'schema'")) == 1 else {
            throw SourceError(file: path, detail: "not a gazetteer database (no meta.schema)")
        }
    }

    /// The bundled compact build: `artifacts/gazetteer/gazetteer.sqlite` under the
    /// current directory, or beside the executable's package checkout.
    package static func defaultPath() -> String {
        let relative = "artifacts/gazetteer/gazetteer.sqlite"
        var candidates = [FileManager.default.currentDirectoryPath]
        var dir = URL(fileURLWithPath: CommandLine.arguments.first ?? ".").resolvingSymlinksInPath()
            .deletingLastPathComponent()
        for _ in 0..<5 {
            candidates.append(dir.path)
            dir = dir.deletingLastPathComponent()
        }
        for base in candidates {
            let path = URL(fileURLWithPath: base).appendingPathComponent(relative).path
            if FileManager.default.fileExists(atPath: path) { return path }
        }
        return relative
    }

    func airport(_ id: Int64) throws -> (iata: String, icao: String?, name: String) {
        let s = try connection.cached("SELECT iata, icao, name FROM airport WHERE id = ?")
        try s.bind([.int(id)])
        guard try s.step() else { return ("", nil, "") }
        return (s.text(0) ?? "", s.isNull(1) ? nil : s.text(1), s.text(2) ?? "")
    }

    /// Every boundary, decoded.
    func boundaries() throws -> [LoadedBoundary] { try Self.boundaries(connection) }

    /// The stored raster, or nil when the table is empty or malformed (polygons alone
    /// still answer).
    func raster() throws -> BoundaryRaster? {
        var rows: [[UInt8]] = []
        // A database built before the raster existed has no table: polygons alone answer.
        guard (try? connection.scalarInt("SELECT count(*) FROM sqlite_schema WHERE name = 'raster'")) == 1
        else {
            return nil
        }
        try connection.prepare("SELECT runs FROM raster ORDER BY row").forEach { rows.append($0.blob(0)) }
        return BoundaryRaster.decode(rows)
    }

    static func boundaries(_ connection: Connection) throws -> [LoadedBoundary] {
        var out: [LoadedBoundary] = []
        try connection.prepare("SELECT id, kind, country, region, area, wkb FROM boundary ORDER BY id")
            .forEach { row in
                out.append(
                    LoadedBoundary(
                        id: row.int(0), isRegion: row.text(1) == "region", country: row.text(2) ?? "",
                        region: row.isNull(3) ? nil : row.text(3), area: row.double(4),
                        shape: MultiPolygon(try GeometryBlob.decode(row.blob(5)))))
            }
        return out
    }

    func names(_ sql: String) throws -> [String: String] {
        var out: [String: String] = [:]
        try connection.prepare(sql).forEach { row in out[row.text(0) ?? ""] = row.text(1) ?? "" }
        return out
    }
}

/// One boundary as the geocoders use it.
struct LoadedBoundary: Sendable {
    var id: Int64
    var isRegion: Bool
    var country: String
    var region: String?
    /// Area on the sphere, m²: the smallest containing polygon wins.
    var area: Double
    var shape: MultiPolygon

    /// Deterministic order among overlapping polygons: smaller area, then smaller id.
    static func precedes(_ a: LoadedBoundary, _ b: LoadedBoundary) -> Bool { (a.area, a.id) < (b.area, b.id) }
}
