import Arrival
import Diagnostics
import Foundation
import Geo

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// OSM XML, streamed with a SAX parser so large extracts are not held as a tree.
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
        let handler = Handler(path: path)
        let parser = XMLParser(data: data)
        parser.delegate = handler
        let ok = parser.parse()
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
                path: path, line: parser.lineNumber, element: handler.currentName,
                reason: "the file ends before </osm> (truncated?)")
        }
        return handler.data
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
                coordinate = nil
                if name == "node" {
                    guard let lat = attributes["lat"].flatMap(Double.init),
                        let lon = attributes["lon"].flatMap(Double.init)
                    else {
                        return fail(
                            parser,
                            "lat=\"\(attributes["lat"] ?? "")\" lon=\"\(attributes["lon"] ?? "")\" are not numbers"
                        )
                    }
                    let c = Coordinate(latitude: lat, longitude: lon)
                    guard c.isValid else { return fail(parser, "lat/lon \(lat),\(lon) out of range") }
                    coordinate = c
                }
            case "tag" where kind != nil:
                guard let k = attributes["k"], let v = attributes["v"] else {
                    return fail(parser, "<tag> without k and v")
                }
                tags[k] = v
            case "nd" where kind == "way":
                guard let ref = attributes["ref"].flatMap(Int64.init) else {
                    return fail(parser, "<nd> without a numeric ref")
                }
                nodeIDs.append(ref)
            case "member" where kind == "relation":
                guard let type = attributes["type"], let ref = attributes["ref"].flatMap(Int64.init) else {
                    return fail(parser, "<member> without type and numeric ref")
                }
                members.append(OSMMember(type: type, ref: ref, role: attributes["role"] ?? ""))
            default:
                if depth == 1 { fail(parser, "root element is <\(name)>, expected <osm>") }
            }
        }

        func parser(
            _ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?
        ) {
            defer { depth -= 1 }
            if depth == 1 && name == "osm" { closedRoot = true }
            guard depth == 2, name == kind else { return }
            switch name {
            case "node":
                if let coordinate { data.nodes.append(OSMNode(id: id, coordinate: coordinate, tags: tags)) }
            case "way": data.ways.append(OSMWay(id: id, nodeIDs: nodeIDs, tags: tags))
            case "relation": data.relations.append(OSMRelation(id: id, members: members, tags: tags))
            default: break
            }
            kind = nil
        }
    }
}
