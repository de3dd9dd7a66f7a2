import Diagnostics
public import Foundation

/// Reads OSM XML (`<osm>…`) and Overpass API JSON (`{"elements": […]}`), chosen by content.
/// `.osm.pbf` is not read here: the door index converts it with `osmium` first.
public enum OSMReader {
    /// Reads the file at `path`.
    /// - Throws: `OSMError` naming the file, line or element, and what was wrong.
    public static func read(path: String) throws(OSMError) -> OSMData {
        let data: Data
        do {
            data = try FileDiagnostics.contents(of: path)
        } catch {
            throw OSMError(path: path, reason: "cannot read: \(error)")
        }
        return try read(data: data, path: path)
    }

    /// The UTF-8 byte-order mark, which Windows editors write at the start of a file.
    static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// Reads OSM bytes; `path` only names them in errors. A leading UTF-8 byte-order mark is
    /// skipped (it is no character of the text: lines are counted as without it).
    public static func read(data: Data, path: String) throws(OSMError) -> OSMData {
        // Copied so the readers see indices from 0, as for any other file.
        let data = data.starts(with: byteOrderMark) ? Data(data.dropFirst(byteOrderMark.count)) : data
        guard let first = data.first(where: { !" \t\r\n".utf8.contains($0) }) else {
            throw OSMError(path: path, reason: "the file is empty")
        }
        switch first {
        case UInt8(ascii: "{"): return try OverpassJSON.read(data: data, path: path)
        case UInt8(ascii: "<"): return try OSMXML.read(data: data, path: path)
        default:
            if data.starts(with: [0x00, 0x00, 0x00]) || data.count > 4 && data[data.startIndex + 4] == 0x0A {
                throw OSMError(
                    path: path,
                    reason: "looks like .osm.pbf; use `pathfinder doors import` (which uses osmium)")
            }
            if data.starts(with: Array("BZh".utf8)) || data.starts(with: [0x1F, 0x8B]) {
                // Geofabrik offers .osm.bz2; osmium reads it.
                throw OSMError(
                    path: path,
                    reason:
                        "compressed (bzip2 or gzip): convert it with `osmium cat \(path) -o FILE.osm.pbf` and import that"
                )
            }
            throw OSMError(path: path, reason: "neither OSM XML nor Overpass JSON")
        }
    }
}
