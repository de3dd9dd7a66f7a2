public import Foundation

/// XML parser failures in words. On Linux `XMLParser` reports libxml2's error numbers under
/// "NSXMLParserErrorDomain error N"; the ones a hand-edited, cut or hostile file produces
/// are named here.
public enum XMLDiagnostics {
    /// The reason for libxml2 error `code`, e.g. 89: "an entity that expands into itself…".
    public static func reason(code: Int) -> String {
        switch code {
        case 4: "the document is empty"
        case 5: "content after the end of the document (its root element's closing tag)"
        case 9: "a character that XML does not allow"
        case 23, 25: "an entity reference (&name;) without its ';'"
        case 26: "an entity (&name;) that is not declared"
        case 27, 28, 29: "an entity this reader refuses (external or parameter entities are not read)"
        case 33, 38, 39, 40: "an attribute value that is not quoted or not closed"
        case 41: "an attribute given twice"
        case 64, 65: "a space or separator is missing"
        case 68: "a name is expected here"
        case 73: "a closing tag is expected here"
        case 76: "a closing tag that does not match its opening tag"
        case 77: "a tag that is not finished"
        case 85: "elements that are not nested properly"
        case 86: "content after the end of the document"
        case 88, 89:
            "entities that expand into each other without end or beyond any sensible size (an \"entity bomb\"); refused"
        default: "not well-formed XML (libxml2 error \(code))"
        }
    }

    /// The line of the tag `data` ends inside (its `<`), when the file stops before that tag's
    /// `>`: cut short. The parser then reports the tag as far as it goes (an attribute left
    /// empty, a name cut in two) rather than the file's end; nil when the text ends with `>`.
    public static func unfinishedTagLine(in data: Data) -> Int? {
        var end = data.endIndex
        while end > data.startIndex, [0x0A, 0x0D, 0x20, 0x09].contains(data[data.index(before: end)]) {
            end = data.index(before: end)
        }
        guard end > data.startIndex, data[data.index(before: end)] != UInt8(ascii: ">") else { return nil }
        let open = data[..<end].lastIndex(of: UInt8(ascii: "<")) ?? data.startIndex
        return 1 + data[..<open].count(where: { $0 == UInt8(ascii: "\n") })
    }

    /// What stands after the root element's closing tag (`</osm>`) in `data`: its line and the
    /// start of its text, or nil when only white space and comments follow (all XML allows
    /// there). Comments and CDATA before the closing tag are skipped, not searched.
    public static func contentAfterRoot(named root: String, in data: Data) -> (line: Int, text: String)? {
        let bytes = [UInt8](data)
        let close = Array("</\(root)".utf8)
        func starts(_ word: [UInt8], at i: Int) -> Bool {
            i + word.count <= bytes.count && bytes[i..<(i + word.count)].elementsEqual(word)
        }
        var line = 1
        var i = 0
        // Past `end` from `i`, counting lines; at the end of the data when it is not there.
        func skip(past end: [UInt8]) {
            while i < bytes.count && !starts(end, at: i) {
                if bytes[i] == 0x0A { line += 1 }
                i += 1
            }
            i = min(i + end.count, bytes.count)
        }
        let comment = Array("<!--".utf8), commentEnd = Array("-->".utf8)
        let cdata = Array("<![CDATA[".utf8), cdataEnd = Array("]]>".utf8)
        var closed = false
        while i < bytes.count && !closed {
            if starts(comment, at: i) {
                skip(past: commentEnd)
            } else if starts(cdata, at: i) {
                skip(past: cdataEnd)
            } else if starts(close, at: i), i + close.count < bytes.count,
                [0x3E, 0x20, 0x09, 0x0A, 0x0D].contains(bytes[i + close.count])
            {
                skip(past: [0x3E])
                closed = true
            } else {
                if bytes[i] == 0x0A { line += 1 }
                i += 1
            }
        }
        guard closed else { return nil }
        while i < bytes.count {
            if starts(comment, at: i) {
                skip(past: commentEnd)
            } else if [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) {
                if bytes[i] == 0x0A { line += 1 }
                i += 1
            } else {
                let end = bytes[i...].firstIndex(where: { $0 == 0x0A || $0 == 0x0D }) ?? bytes.count
                let text = String(decoding: bytes[i..<end], as: UTF8.self).trimmingCharacters(
                    in: .whitespaces)
                return (line, text.count > 40 ? text.prefix(40) + "…" : text)
            }
        }
        return nil
    }
}
