import Arrival
import Foundation
import Geo
public import OSM
import SQLite

/// What one import stored.
public struct DoorImportSummary: Sendable, Hashable {
    /// `entrance=*` nodes stored.
    public var entrances: Int
    /// Building ways stored.
    public var buildingWays: Int
    /// Building relations stored.
    public var buildingRelations: Int
    /// Buildings whose outline has no node in the extract (stored without geometry).
    public var withoutOutline: Int
    /// Entrance nodes that lie on at least one building outline.
    public var entrancesOnOutlines: Int
}

/// Builds a door index from OpenStreetMap data: `.osm.pbf` (through `osmium`), OSM XML or
/// Overpass API JSON.
public enum DoorImporter {
    /// Files at least this large get progress lines (bytes).
    public static let progressThreshold = 8 << 20

    /// Reads `input` and writes the index to `output`, all or nothing: the database is
    /// written to `OUTPUT.tmp-…` beside it and renamed into place only when complete.
    /// - Parameter progress: called with one line per stage (for standard error).
    /// - Throws: ``DoorIndexError`` naming the file and element at fault.
    public static func importFile(
        _ input: String, to output: String, progress: (String) -> Void = { _ in }
    ) throws(DoorIndexError) -> DoorImportSummary {
        let data = try read(input, progress: progress)
        return try write(
            data, to: output, source: URL(fileURLWithPath: input).lastPathComponent, progress: progress)
    }

    /// Reads any supported OSM file into memory; `.osm.pbf` is first filtered to entrances
    /// and buildings by `osmium tags-filter`, which also adds the nodes those ways use.
    public static func read(
        _ input: String, progress: (String) -> Void = { _ in }
    ) throws(DoorIndexError) -> OSMData {
        guard FileManager.default.isReadableFile(atPath: input) else {
            throw .badInput(OSMError(path: input, reason: "no such readable file"))
        }
        guard isPBF(input) else {
            progress("reading \(input)")
            do { return try OSMReader.read(path: input) } catch { throw .badInput(error) }
        }
        let tmp = FileManager.default.temporaryDirectory
            .appendingPathComponent("pathfinder-doors-\(UUID().uuidString).osm").path
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        progress("filtering \(input) with osmium tags-filter")
        try Osmium.run(
            [
                "tags-filter", input, "n/entrance", "w/building", "r/building", "-o", tmp, "--overwrite",
                "-f", "osm",
            ], file: input)
        progress("reading osmium's output")
        do {
            return try OSMReader.read(path: tmp)
        } catch {
            // Name the user's file, not our temporary one.
            var e = error
            e.reason += " (in osmium's XML output of \(input))"
            e.path = input
            throw .badInput(e)
        }
    }

    /// Whether `path` is an `.osm.pbf` file: by name, or by its first block's "OSMHeader".
    static func isPBF(_ path: String) -> Bool {
        if path.hasSuffix(".pbf") { return true }
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 32)) ?? Data()
        return head.count > 13 && head.dropFirst(4).range(of: Data("OSMHeader".utf8)) != nil
    }

    /// Writes `data` as a door index at `output`, atomically.
    package static func write(
        _ data: OSMData, to output: String, source: String, progress: (String) -> Void = { _ in }
    ) throws(DoorIndexError) -> DoorImportSummary {
        let directory = URL(fileURLWithPath: output).deletingLastPathComponent().path
        let tmp = "\(output).tmp-\(UUID().uuidString.prefix(8))"
        guard FileManager.default.isWritableFile(atPath: directory) else {
            throw .storage(path: output, message: "the directory \(directory) is not writable")
        }
        do {
            let summary = try writeTables(data, to: tmp, source: source, progress: progress)
            // rename(2) replaces `output` in one step: readers see the old file or the new.
            guard rename(tmp, output) == 0 else {
                throw DoorIndexError.storage(
                    path: output,
                    message: "cannot rename \(tmp) into place: \(String(cString: strerror(errno)))")
            }
            return summary
        } catch {
            try? FileManager.default.removeItem(atPath: tmp)
            if let error = error as? DoorIndexError { throw error }
            throw .storage(path: output, message: "\(error)")
        }
    }

    private static func writeTables(
        _ data: OSMData, to path: String, source: String, progress: (String) -> Void
    ) throws -> DoorImportSummary {
        let db = try Connection(path: path, mode: .readWrite)
        // A temporary file renamed at the end: no journal needed, a crash just loses it.
        try db.execute("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;")
        try db.execute(DoorIndexSchema.create)
        let entrances = data.nodes.filter { $0.tags["entrance"] != nil }.sorted { $0.id < $1.id }
        let buildings = BuildingAssembly.buildings(of: data)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var summary = DoorImportSummary(
            entrances: entrances.count, buildingWays: 0, buildingRelations: 0, withoutOutline: 0,
            entrancesOnOutlines: 0)
        try db.transaction {
            let meta = try db.prepare("INSERT INTO meta(key, value) VALUES (?, ?)")
            try meta.run(["version", .text(String(DoorIndexSchema.version))])
            try meta.run(["source", .text(source)])
            let entrance = try db.prepare("INSERT INTO entrances(id, lat, lon, tags) VALUES (?, ?, ?, ?)")
            let entranceBox = try db.prepare(
                "INSERT INTO entrances_rtree(id, minLat, maxLat, minLon, maxLon) VALUES (?, ?, ?, ?, ?)")
            for (i, node) in entrances.enumerated() {
                let tags = String(decoding: try encoder.encode(node.tags), as: UTF8.self)
                let lat = node.coordinate.latitude
                let lon = node.coordinate.longitude
                try entrance.run([.int(node.id), .double(lat), .double(lon), .text(tags)])
                try entranceBox.run([.int(node.id), .double(lat), .double(lat), .double(lon), .double(lon)])
                if (i + 1) % 100_000 == 0 { progress("entrances: \(i + 1) of \(entrances.count)") }
            }
            let entranceIDs = Set(entrances.map(\.id))
            var onOutline = Set<Int64>()
            let building = try db.prepare(
                """
                INSERT INTO buildings(id, kind, osm_id, building, name, addr, levels, level, centroid_lat,
                    centroid_lon, area, outline) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            let buildingBox = try db.prepare(
                "INSERT INTO buildings_rtree(id, minLat, maxLat, minLon, maxLon) VALUES (?, ?, ?, ?, ?)")
            let link = try db.prepare("INSERT INTO outline_entrances(building, entrance) VALUES (?, ?)")
            for (i, b) in buildings.enumerated() {
                let rowid = Int64(i + 1)
                let addr = b.tags.filter { $0.key.hasPrefix("addr:") }
                let centroid = b.outline.centroid
                func text(_ s: String?) -> SQLValue { s.map(SQLValue.text) ?? .null }
                try building.run([
                    .int(rowid), .text(b.kind.rawValue), .int(b.osmID), .text(b.tags["building"] ?? "yes"),
                    text(b.tags["name"]), .text(String(decoding: try encoder.encode(addr), as: UTF8.self)),
                    text(b.tags["building:levels"]), text(b.tags["level"]),
                    centroid.map { .double($0.latitude) } ?? .null,
                    centroid.map { .double($0.longitude) } ?? .null,
                    .double(b.outline.area), .blob(b.outline.blob),
                ])
                if let box = b.outline.bounds {
                    try buildingBox.run([
                        .int(rowid), .double(box.minLat), .double(box.maxLat), .double(box.minLon),
                        .double(box.maxLon),
                    ])
                } else {
                    summary.withoutOutline += 1
                }
                for id in b.nodeIDs.sorted() where entranceIDs.contains(id) {
                    try link.run([.int(rowid), .int(id)])
                    onOutline.insert(id)
                }
                switch b.kind {
                case .way: summary.buildingWays += 1
                case .relation: summary.buildingRelations += 1
                }
                if (i + 1) % 100_000 == 0 { progress("buildings: \(i + 1) of \(buildings.count)") }
            }
            summary.entrancesOnOutlines = onOutline.count
        }
        progress("analyzing")
        try db.execute("ANALYZE")
        return summary
    }
}

/// The `osmium` command-line tool from Debian's osmium-tool.
enum Osmium {
    static func executable() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return (path.split(separator: ":") + ["/usr/bin"]).map { "\($0)/osmium" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs osmium with `arguments`; its standard error becomes the message on failure.
    static func run(_ arguments: [String], file: String) throws(DoorIndexError) {
        guard let osmium = executable() else { throw .osmiumMissing }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: osmium)
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        do { try process.run() } catch {
            throw .osmiumFailed(path: file, message: "cannot start \(osmium): \(error.localizedDescription)")
        }
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let text = String(decoding: message, as: UTF8.self).trimmingCharacters(
                in: .whitespacesAndNewlines)
            throw .osmiumFailed(
                path: file, message: text.isEmpty ? "exit status \(process.terminationStatus)" : text)
        }
    }
}
