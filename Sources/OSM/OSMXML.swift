import Diagnostics
import Foundation
import Geo

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// OSM XML, streamed with a SAX parser so large extracts are not held as a tree. Overpass
/// API's `out geom;` is read too: a way's `<nd ref="…" lat="…" lon="…"/>` places its node, and
/// a relation's `<member type="way" …>` holds the way's points as `<nd lat="…" lon="…"/>`, the
/// nodes and member ways perhaps not listed (``OutGeometry``, as its JSON is read).
enum OSMXML {
    static func read(data: Data, path: String) throws(OSMError) -> OSMData {
        // OSM XML is UTF-8. Checked here because FoundationXML traps (kills the process) on
        // an element name that is not UTF-8, where libxml2 itself would carry on (found by
        // `Scripts/fuzz osm`).
        if let bad = TextDiagnostics.firstInvalidUTF8(in: data) {
            throw OSMError(
                path: path, line: bad.line,
                reason: "bytes that are not UTF-8 at byte \(bad.offset + 1) (OSM XML is UTF-8)")
        }
        if let foreign = foreignMarkup(in: data) {
            throw OSMError(path: path, line: foreign.line, reason: foreign.reason)
        }
        let handler = Handler(path: path)
        // In chunks from a stream: given all bytes at once, libxml2's push parser refuses
        // more than 10 MB as a "huge input lookup" (NSXMLParserErrorDomain error 1) at the
        // very end of a valid file.
        let parser = XMLParser(stream: InputStream(data: data))
        parser.delegate = handler
        let ok = parser.parse()
        // Cut inside a tag: what the parser made of the piece (`lon=""`, `<no>`) is not the
        // fault; the file's end is, said at its last line (before, the empty attribute was
        // named). A fault before that tag is the file's own.
        let failed = !ok || handler.error != nil || !handler.closedRoot
        // Something after </osm> is no cut either: it is named (before: "the file ends inside a
        // tag, before </osm> (truncated?)", or libxml2's "extra content" as "ends too early").
        if failed, handler.closedRoot, let extra = XMLDiagnostics.contentAfterRoot(named: "osm", in: data) {
            let joined =
                extra.text.hasPrefix("<osm") ? " (two files joined? join OSM files with `osmium merge`)" : ""
            throw OSMError(
                path: path, line: extra.line,
                reason:
                    "text after </osm> (\"\(extra.text)\"), which ends the document: XML allows only comments and white space after it\(joined)"
            )
        }
        if failed, let tagLine = XMLDiagnostics.unfinishedTagLine(in: data),
            (handler.error?.line ?? parser.lineNumber) >= tagLine
        {
            throw OSMError(
                path: path, line: TextDiagnostics.lastLine(of: data), element: handler.currentName,
                reason: "the file ends inside a tag, before </osm> (truncated?)")
        }
        if let error = handler.error { throw error }
        guard ok else {
            let reason =
                parser.parserError.map {
                    "malformed XML: \(XMLDiagnostics.reason(code: ($0 as NSError).code))"
                }
                ?? "malformed XML"
            throw OSMError(path: path, line: parser.lineNumber, element: handler.currentName, reason: reason)
        }
        guard handler.sawRoot else { throw OSMError(path: path, reason: "no <osm> root element") }
        // libxml2's SAX mode can stop quietly at a cut: a missing </osm> is a truncated file.
        guard handler.closedRoot else {
            throw OSMError(
                path: path, line: TextDiagnostics.lastLine(of: data), element: handler.currentName,
                reason: "the file ends before </osm> (truncated?)")
        }
        var read = try handler.lastVersions()
        handler.geometry.place(in: &read)
        return read
    }

    /// Markup OSM XML never has, refused before the parser sees it: FoundationXML reads a
    /// null pointer on a processing instruction without data (`<?x?>`, found by
    /// `Scripts/fuzz osm`), and a DOCTYPE brings entity definitions (an "entity bomb") and
    /// declarations whose callbacks are as fragile. The XML declaration at the start stays.
    static func foreignMarkup(in data: Data) -> (line: Int, reason: String)? {
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> (line: Int, reason: String)? in
            let bytes = raw.bindMemory(to: UInt8.self)
            let n = bytes.count
            var start = 0
            while start < n, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) { start += 1 }
            func word(_ text: StaticString, at offset: Int) -> Bool {
                guard offset + text.utf8CodeUnitCount <= n else { return false }
                for k in 0..<text.utf8CodeUnitCount where bytes[offset + k] != text.utf8Start[k] {
                    return false
                }
                return true
            }
            var line = 1
            var i = 0
            while i + 1 < n {
                let b = bytes[i]
                if b == 0x0A {
                    line += 1
                } else if b == UInt8(ascii: "<") {
                    let next = bytes[i + 1]
                    if next == UInt8(ascii: "?") {
                        let xmlDeclaration =
                            word("<?xml", at: i) && i + 5 < n
                            && [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i + 5])
                        let declaration = i == start && xmlDeclaration
                        if !declaration && xmlDeclaration {
                            // `cat a.osm b.osm`: the second file's declaration comes first.
                            return (
                                line,
                                "an XML declaration (<?xml …?>) after the start of the file, where XML allows none (two files joined? join OSM files with `osmium merge`)"
                            )
                        }
                        if !declaration {
                            return (line, "a processing instruction (<?…?>), which OSM XML does not have")
                        }
                    } else if next == UInt8(ascii: "!"), word("<!DOCTYPE", at: i) {
                        return (
                            line,
                            "a DOCTYPE (document type definition), which OSM XML does not have; refused, as its entities could expand without end"
                        )
                    }
                }
                i += 1
            }
            return nil
        }
    }

    private final class Handler: NSObject, XMLParserDelegate {
        let path: String
        var data = OSMData()
        var error: OSMError?
        var sawRoot = false
        var closedRoot = false
        var depth = 0
        // The element being read: its kind, id, attributes and what it holds so far.
        var kind: String?
        var id: Int64 = 0
        var coordinate: Coordinate?
        var tags: [String: String] = [:]
        var nodeIDs: [Int64] = []
        var members: [OSMMember] = []
        /// `out geom;`'s places: the way's, one for each `<nd>` (nil when it has none), and
        /// whether any `<nd>` had one; the relation's member ways', and the points of the
        /// `<member type="way">` being read.
        var points: [Coordinate?] = []
        var placesPoints = false
        var memberPoints: [(ref: Int64, points: [Coordinate?])] = []
        var member: (ref: Int64, points: [Coordinate?])?
        /// Everything `out geom;` placed, of elements not deleted.
        var geometry = OutGeometry()
        /// Deleted: by a JOSM user (`action="delete"`, kept in the file until uploaded) or in
        /// OSM's history (`visible="false"`, without a place). Read through, then dropped.
        var deleted = false
        /// Its `version` attribute, when it has one.
        var version: String?
        /// The first copy of each element read so far, by kind and id, and every copy, in file
        /// order, of those read more than once (a history file's versions: ``lastVersions()``).
        var first: [String: [Int64: Copy]] = [:]
        var repeated: [String: [Int64: [Copy]]] = [:]
        /// Nodes with a version and no place, read as deleted versions, and their lines.
        var placeless: [(id: Int64, line: Int)] = []

        /// One copy of an element: where it went in ``data`` (nil when deleted), its version,
        /// whether it was deleted.
        struct Copy {
            var index: Int?
            var version: String?
            var deleted: Bool
        }

        init(path: String) { self.path = path }

        var currentName: String? { kind.map { "\($0) \(id)" } }

        func fail(_ parser: XMLParser, _ reason: String) {
            guard error == nil else { return }
            error = OSMError(path: path, line: parser.lineNumber, element: currentName, reason: reason)
            parser.abortParsing()
        }

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            depth += 1
            switch name {
            case "osm" where depth == 1:
                sawRoot = true
            case "node", "way", "relation":
                guard depth == 2 else { return }
                guard let raw = attributes["id"], let value = Int64(raw) else {
                    return fail(parser, "<\(name)> without a numeric id (id=\"\(attributes["id"] ?? "")\")")
                }
                kind = name
                id = value
                tags = [:]
                nodeIDs = []
                members = []
                points = []
                placesPoints = false
                memberPoints = []
                member = nil
                coordinate = nil
                deleted = attributes["action"] == "delete" || attributes["visible"] == "false"
                version = attributes["version"]
                if name == "node" && !deleted && attributes["lat"] == nil && attributes["lon"] == nil
                    && version != nil
                {
                    // A deleted version in a history file whose `visible` a conversion lost
                    // (`osmium cat x.osh -o x.osm`): only if another version of it is read
                    // (``lastVersions()``), else the node has no place.
                    deleted = true
                    placeless.append((id, parser.lineNumber))
                }
                if name == "node" && !deleted {
                    guard let lat = attributes["lat"].flatMap(Double.init),
                        let lon = attributes["lon"].flatMap(Double.init)
                    else {
                        return fail(
                            parser,
                            "lat=\"\(attributes["lat"] ?? "")\" lon=\"\(attributes["lon"] ?? "")\" are not numbers"
                        )
                    }
                    let c = Coordinate(latitude: lat, longitude: lon)
                    guard c.isValid else { return fail(parser, OSMError.locationOutOfRange(lat, lon)) }
                    coordinate = c
                }
            case "tag" where kind != nil:
                guard let k = attributes["k"], let v = attributes["v"] else {
                    return fail(parser, "<tag> without k and v")
                }
                tags[k] = v
            case "nd" where kind == "way" && depth == 3:
                guard let ref = attributes["ref"].flatMap(Int64.init) else {
                    return fail(parser, "<nd> without a numeric ref")
                }
                nodeIDs.append(ref)
                guard let point = place(parser, attributes) else { return }
                points.append(point)
                placesPoints = placesPoints || point != nil
            case "nd" where kind == "relation" && depth == 4 && member != nil:
                guard let point = place(parser, attributes) else { return }
                member?.points.append(point)
            case "member" where kind == "relation":
                guard let type = attributes["type"], let ref = attributes["ref"].flatMap(Int64.init) else {
                    return fail(parser, "<member> without type and numeric ref")
                }
                members.append(OSMMember(type: type, ref: ref, role: attributes["role"] ?? ""))
                if type == "way" { member = (ref, []) }
            default:
                if depth == 1 { fail(parser, "root element is <\(name)>, expected <osm>") }
            }
        }

        /// An `out geom;` `<nd>`'s place: `.some(nil)` when it has none; nil (and the parse
        /// failed) when it is no number.
        func place(_ parser: XMLParser, _ attributes: [String: String]) -> Coordinate?? {
            let (lat, lon) = (attributes["lat"], attributes["lon"])
            if lat == nil && lon == nil { return .some(nil) }
            guard let latitude = lat.flatMap(Double.init), let longitude = lon.flatMap(Double.init) else {
                fail(parser, "<nd> lat=\"\(lat ?? "")\" lon=\"\(lon ?? "")\" are not numbers")
                return nil
            }
            return Coordinate(latitude: latitude, longitude: longitude)
        }

        func parser(
            _ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?
        ) {
            defer { depth -= 1 }
            if depth == 1 && name == "osm" { closedRoot = true }
            if depth == 3 && name == "member", let member {
                if !member.points.isEmpty { memberPoints.append(member) }
                self.member = nil
            }
            guard depth == 2, name == kind else { return }
            defer { kind = nil }
            var index: Int?
            if !deleted {
                switch name {
                case "node":
                    if let coordinate {
                        index = data.nodes.count
                        data.nodes.append(OSMNode(id: id, coordinate: coordinate, tags: tags))
                    }
                case "way":
                    index = data.ways.count
                    data.ways.append(OSMWay(id: id, nodeIDs: nodeIDs, tags: tags))
                    if placesPoints { geometry.ways.append((nodeIDs, points)) }
                case "relation":
                    index = data.relations.count
                    data.relations.append(OSMRelation(id: id, members: members, tags: tags))
                    geometry.memberWays += memberPoints
                default: break
                }
            }
            let copy = Copy(index: index, version: version, deleted: deleted)
            if let earlier = first[name]?[id] {
                repeated[name, default: [:]][id, default: [earlier]].append(copy)
            } else {
                first[name, default: [:]][id] = copy
            }
        }

        /// ``data`` as of the last version of each element: OSM's history files hold every
        /// version, oldest first (as `osmium cat --with-history` or a planet history extract
        /// writes them). An element is history when a copy of it is deleted or its copies carry
        /// different `version`s: then its last copy in the file decides, deleted (no version of
        /// it is read: before, an older visible one was) or not (only that one is read), as
        /// `osmium time-filter` gives it for now. Other repeats (the same element twice,
        /// Overpass Turbo's tagged and bare copies, no version or one) are all kept for the
        /// readers to judge. A node with a version and no place is a deleted version when
        /// another version of it is read (osmium writes one so, and a history file converted
        /// under a plain name keeps no `visible`); alone, it is refused.
        func lastVersions() throws(OSMError) -> OSMData {
            for node in placeless {
                let list = repeated["node"]?[node.id] ?? []
                guard Set(list.compactMap(\.version)).count > 1 else {
                    throw OSMError(
                        path: path, line: node.line, element: "node \(node.id)",
                        reason: "lat=\"\" lon=\"\" are not numbers")
                }
            }
            var older: [String: Set<Int>] = [:]
            for (kind, byID) in repeated {
                for list in byID.values {
                    guard list.contains(where: \.deleted) || Set(list.compactMap(\.version)).count > 1 else {
                        continue
                    }
                    older[kind, default: []].formUnion(list.dropLast().compactMap(\.index))
                }
            }
            guard !older.isEmpty else { return data }
            func kept<Element>(_ elements: [Element], _ kind: String) -> [Element] {
                guard let drop = older[kind] else { return elements }
                return elements.indices.filter { !drop.contains($0) }.map { elements[$0] }
            }
            return OSMData(
                nodes: kept(data.nodes, "node"), ways: kept(data.ways, "way"),
                relations: kept(data.relations, "relation"))
        }
    }
}
