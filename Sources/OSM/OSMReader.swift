import Diagnostics
public import Foundation

/// Reads OSM XML (`<osm>…`) and Overpass API JSON (`{"elements": […]}`), chosen by content.
/// `.osm.pbf` is not read here: the door index streams it through `osmium` (``PBFReader``).
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
    ///
    /// Which reader is chosen by content, never by name. Compressed files and `.osm.pbf` are
    /// refused with advice every command reading through here accepts (OSM XML: before, a
    /// compressed file was told to become a `.osm.pbf`, which `plan` refuses).
    public static func read(data: Data, path: String) throws(OSMError) -> OSMData {
        // Copied so the readers see indices from 0, as for any other file.
        let data = data.starts(with: byteOrderMark) ? Data(data.dropFirst(byteOrderMark.count)) : data
        switch format(of: data) {
        case .empty: throw OSMError(path: path, reason: "the file is empty")
        case .overpassJSON: return try OverpassJSON.read(data: data, path: path)
        case .osmXML: return try OSMXML.read(data: data, path: path)
        case .pbf:
            throw OSMError(
                path: path,
                reason:
                    "OSM PBF (binary): convert it to OSM XML with `\(OSMFormat.pbf.osmiumCat(path, to: "FILE.osm"))` and give that (only `pathfinder doors import` reads PBF as it is)"
            )
        case .gzip, .bzip2:
            // Geofabrik offers .osm.bz2. Decompressed, not through osmium: it may be Overpass JSON.
            let tool = format(of: data) == .gzip ? "gunzip" : "bunzip2"
            throw OSMError(
                path: path,
                reason:
                    "compressed (\(format(of: data) == .gzip ? "gzip" : "bzip2")): decompress it with `\(tool) -c \(shellWord(path)) > FILE.osm` and give that"
            )
        case .unknown: throw OSMError(path: path, reason: "neither OSM XML nor Overpass JSON")
        }
    }

    /// What the bytes at the start of a file are, by content (`head`: its first 64 bytes are
    /// enough; a leading byte-order mark is the caller's to skip).
    public static func format(of head: Data) -> OSMFormat {
        guard let first = head.first(where: { !" \t\r\n".utf8.contains($0) }) else { return .empty }
        if first == UInt8(ascii: "{") { return .overpassJSON }
        if first == UInt8(ascii: "<") { return .osmXML }
        // PBF: a 4-byte big-endian length, then the first BlobHeader, whose type (field 1, a
        // string of 9 bytes) is "OSMHeader".
        let bytes = [UInt8](head.prefix(15))
        if bytes.count == 15, bytes[4] == 0x0A, bytes[5] == 0x09, bytes[6...].elementsEqual("OSMHeader".utf8)
        {
            return .pbf
        }
        if head.starts(with: [0x1F, 0x8B]) { return .gzip }
        if head.starts(with: Array("BZh".utf8)) { return .bzip2 }
        return .unknown
    }

    /// `word` as one word of a shell command line: quoted when it holds anything but letters,
    /// digits and `/._+-,:=@%`.
    static func shellWord(_ word: String) -> String {
        let plain = word.unicodeScalars.allSatisfy {
            ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)))
                || "/._+-,:=@%".unicodeScalars.contains($0)
        }
        return plain && !word.isEmpty ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// What an OSM file is, by its content (``OSMReader/format(of:)``).
public enum OSMFormat: Sendable, Hashable {
    case osmXML, overpassJSON, pbf, gzip, bzip2, empty, unknown

    /// The `osmium cat` command line that writes `path`, a file of this format (PBF, gzip or
    /// bzip2 compressed OSM XML), as `output` (its format by its name): `-F` says the input's
    /// format when the name would not (osmium goes by the name: `.osm.pbf`, `.osm.gz`).
    public func osmiumCat(_ path: String, to output: String) -> String {
        let (suffix, format) =
            switch self {
            case .gzip: (".osm.gz", "osm.gz")
            case .bzip2: (".osm.bz2", "osm.bz2")
            default: (".pbf", "pbf")
            }
        let given = path.hasSuffix(suffix) ? "" : "-F \(format) "
        return "osmium cat \(given)\(OSMReader.shellWord(path)) -o \(output)"
    }
}
