public import Foundation

/// XML parser failures in words. On Linux `XMLParser` reports libxml2's error numbers under
/// "NSXMLParserErrorDomain error N"; the ones a hand-edited, cut or hostile file produces
/// are named here.
public enum XMLDiagnostics {
    /// The reason for libxml2 error `code`, e.g. 89: "an entity that expands into itself…".
    public static func reason(code: Int) -> String {
        switch code {
        case 4: "the document is empty"
        case 5: "the document ends too early (truncated?)"
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
}
