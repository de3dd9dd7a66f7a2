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
    package static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// Reads OSM bytes; `path` only names them in errors. A leading UTF-8 byte-order mark is
    /// skipped (it is no character of the text: lines are counted as without it).
    ///
    /// Which reader is chosen by content, never by name. Compressed files and `.osm.pbf` are
    /// refused with advice every command reading through here accepts (OSM XML: before, a
    /// compressed file was told to become a `.osm.pbf`, which `plan` refuses).
    public static func read(data: Data, path: String) throws(OSMError) -> OSMData {
        // Copied so the readers see indices from 0, as for any other file.
        let data = data.starts(with: byteOrderMark) ? Data(data.dropFirst(byteOrderMark.count)) : data
        let format = format(of: data)
        switch format {
        case .empty: throw OSMError(path: path, reason: "the file is empty")
        case .overpassJSON: return try OverpassJSON.read(data: data, path: path)
        case .osmXML: return try OSMXML.read(data: data, path: path)
        case .pbf:
            throw OSMError(
                path: path,
                reason:
                    "OSM PBF (binary): convert it to OSM XML with `\(OSMFormat.pbf.osmiumCat(path, to: OSMFormat.pbf.convertedName(path, ending: ".osm")))` and give that (only `pathfinder doors import` reads PBF as it is)"
            )
        case .gzip, .bzip2:
            // Geofabrik offers .osm.bz2. Decompressed, not through osmium: it may be Overpass JSON.
            let tool = format == .gzip ? "gunzip" : "bunzip2"
            let output = format.convertedName(path, ending: nil)
            throw OSMError(
                path: path,
                reason:
                    "compressed (\(format == .gzip ? "gzip" : "bzip2")): decompress it with `\(tool) -c \(shellWord(path)) > \(shellWord(output))` and give that"
            )
        case .html: throw OSMError(path: path, reason: OSMFormat.webPage)
        case .unknown: throw OSMError(path: path, reason: "neither OSM XML nor Overpass JSON")
        }
    }

    /// How many bytes at the start of a file ``format(of:)`` needs: enough for an XML
    /// declaration and a comment before a web page's DOCTYPE.
    public static let sniffedBytes = 1_024

    /// What the bytes at the start of a file are, by content (`head`: its first
    /// ``sniffedBytes``; a leading byte-order mark is skipped, as the text readers skip it).
    public static func format(of head: Data) -> OSMFormat {
        if let page = utf16Text(head), isHTML(Data(page.drop { " \t\r\n".contains($0) }.utf8)) {
            return .html
        }
        let text = head.starts(with: byteOrderMark) ? head.dropFirst(byteOrderMark.count) : head[...]
        guard let at = text.firstIndex(where: { !" \t\r\n".utf8.contains($0) }) else { return .empty }
        let first = text[at]
        if first == UInt8(ascii: "{") { return .overpassJSON }
        if first == UInt8(ascii: "<") { return isHTML(text[at...]) ? .html : .osmXML }
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

    /// Whether `markup` (from its first `<`) starts a web page: `<!DOCTYPE html` or `<html`, in
    /// any case, as a server's error page saved under the extract's name (a failed download)
    /// starts. Before (audit 12, A12-8), its DOCTYPE was refused as an XML entity risk, and a page
    /// without one as "root element is <html>"; neither said it is no OSM data at all.
    ///
    /// An XML declaration and comments before it are passed over (audit 13, A13-1: XHTML error
    /// pages begin `<?xml …?><!DOCTYPE html …>`); one not ended within `markup` is no page.
    static func isHTML(_ markup: Data) -> Bool {
        var markup = markup[...]
        func skip(past close: String) -> Bool {
            guard let end = markup.firstRange(of: Array(close.utf8)) else { return false }
            markup = markup[end.upperBound...].drop { " \t\r\n".utf8.contains($0) }
            return true
        }
        if markup.starts(with: Array("<?".utf8)), !skip(past: "?>") { return false }
        while markup.starts(with: Array("<!--".utf8)) {
            guard skip(past: "-->") else { return false }
        }
        let head = String(decoding: markup.prefix(16), as: UTF8.self).lowercased()
        guard head.hasPrefix("<!doctype") else {
            return head.hasPrefix("<html")
                && (head.dropFirst(5).first.map { " \t\r\n>".contains($0) } ?? true)
        }
        return head.dropFirst(9).drop { " \t\r\n".contains($0) }.hasPrefix("html")
    }

    /// The text of `head` when it starts with a UTF-16 byte-order mark (a page saved as UTF-16);
    /// nil otherwise.
    static func utf16Text(_ head: Data) -> String? {
        let bytes = [UInt8](head.prefix(sniffedBytes))
        guard bytes.count >= 2, (bytes[0], bytes[1]) == (0xFF, 0xFE) || (bytes[0], bytes[1]) == (0xFE, 0xFF)
        else { return nil }
        let little = bytes[0] == 0xFF
        let units = stride(from: 2, to: bytes.count - 1, by: 2).map {
            little
                ? UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8
                : UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1])
        }
        return String(decoding: units, as: UTF16.self)
    }

    /// `word`, a file's name, as one word of a shell command line: quoted when it holds
    /// anything but letters, digits and `/._+-,:=@%` (or starts with `=`, which zsh expands),
    /// and after `./` when it starts with `-`, so no tool takes it for an option (before:
    /// `osmium cat -F pbf -fw.osm`).
    package static func shellWord(_ word: String) -> String {
        let word = word.hasPrefix("-") ? "./" + word : word
        let plain = word.unicodeScalars.allSatisfy {
            ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)))
                || "/._+-,:=@%".unicodeScalars.contains($0)
        }
        return plain && !word.isEmpty && !word.hasPrefix("=")
            ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// What an OSM file is, by its content (``OSMReader/format(of:)``).
public enum OSMFormat: Sendable, Hashable {
    case osmXML, overpassJSON, pbf, gzip, bzip2, empty, unknown
    /// A web page (HTML): a failed download saved under the extract's name.
    case html

    /// What a file that is a web page is told.
    public static let webPage = "a web page (HTML), not OSM data (a failed download?): download it again"

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
        return "osmium cat \(given)\(OSMReader.shellWord(path)) -o \(OSMReader.shellWord(output))"
    }

    /// A name beside `path`, a file of this format, for it converted into a file ending
    /// `ending` (`.osm`, `.osm.pbf`; nil: decompressed, what it holds), never `path` itself nor
    /// any file there now (osmium would refuse it, and `>` replace it): the name's own ending
    /// is dropped (`x.osm.pbf` → `x.osm`, `x.osm.gz` → `x.osm.pbf` or, decompressed, `x.osm`);
    /// a name not ending so, or whose such name is taken, gets a word added to its stem
    /// (`FILE.osm` holding PBF → `FILE-xml.osm`, then `FILE-xml-2.osm`…). Before, every advice
    /// wrote `FILE.osm`, which was its own input once a gzip's advice had been followed.
    /// - Parameter exists: whether a file is at a path (tests give their own).
    public func convertedName(
        _ path: String, ending: String?,
        exists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }
    ) -> String {
        let slash = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        let (folder, name) = (String(path[..<slash]), String(path[slash...]))
        let compression =
            switch self {
            case .gzip: ".gz"
            case .bzip2: ".bz2"
            case .pbf: ".pbf"
            default: ""
            }
        // Decompressed, the name keeps what it says it holds (`.osm`, `.json`).
        let endings =
            compression.isEmpty ? [] : ending == nil ? [compression] : [".osm" + compression, compression]
        // The name without its own ending, which says what it is.
        var base = name
        if let own = endings.first(where: { name.hasSuffix($0) && name.count > $0.count }) {
            base = String(name.dropLast(own.count))
            let converted = folder + base + (ending ?? "")
            if converted != path && !exists(converted) { return converted }
        }
        // Its stem: without what it says it holds, else without its last extension.
        var stem = Substring(base)
        if let known = [".osm.pbf", ".osm", ".pbf", ".json"].first(where: {
            base.hasSuffix($0) && base.count > $0.count
        }) {
            stem = stem.dropLast(known.count)
        } else if let dot = base.dropFirst().lastIndex(of: ".") {
            stem = base[..<dot]
        }
        let word =
            switch ending {
            case nil: "-decompressed"
            case ".osm": "-xml"
            default: "-converted"
            }
        let tail = ending ?? String(base.dropFirst(stem.count))
        var converted = folder + stem + word + tail
        var n = 2
        while converted == path || exists(converted) {
            converted = folder + stem + word + "-\(n)" + tail
            n += 1
        }
        return converted
    }
}
