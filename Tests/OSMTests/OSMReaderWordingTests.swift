import Foundation
import OSM
import Testing

/// Hostile or broken files are refused in words: no "NSXMLParserErrorDomain error 89", no
/// "NSCocoaErrorDomain error 256", no Swift type names.
@Suite("OSM reader: errors in plain words")
struct OSMReaderWordingTests {
    static let foundationWords = [
        "ErrorDomain", "DecodingError", "Dictionary<", "Swift.", "could not be completed",
    ]

    func expectPlain(_ text: String) {
        for word in Self.foundationWords { #expect(!text.contains(word), "\(text)") }
    }

    @Test func anEntityBombIsRefusedNamingTheLine() {
        var entities = "<!ENTITY lol \"lol\">"
        for level in 2...9 {
            entities +=
                "<!ENTITY lol\(level) \""
                + String(repeating: "&lol\(level == 2 ? "" : String(level - 1));", count: 10) + "\">"
        }
        let xml = """
            <?xml version="1.0"?>
            <!DOCTYPE osm [\(entities)]>
            <osm><node id="1" lat="1" lon="1"><tag k="entrance" v="&lol9;"/></node></osm>
            """
        #expect {
            _ = try OSMReader.read(data: Data(xml.utf8), path: "bomb.osm")
        } throws: { error in
            let text = "\(error)"
            expectPlain(text)
            return text.hasPrefix("bomb.osm:2") && text.contains("DOCTYPE")
        }
    }

    @Test func anUndeclaredEntityIsNamed() {
        #expect {
            _ = try OSMReader.read(data: Data("<osm>\n&nope;</osm>".utf8), path: "x.osm")
        } throws: { error in
            expectPlain("\(error)")
            return "\(error)".contains("x.osm:2") && "\(error)".contains("not declared")
        }
    }

    @Test func aDirectoryIsNotAFile() {
        #expect {
            _ = try OSMReader.read(path: NSTemporaryDirectory())
        } throws: { error in
            expectPlain("\(error)")
            return "\(error)".hasSuffix("cannot read: is a directory, not a file")
        }
    }

    @Test func overpassJSONFaultsNameTheLineAndField() {
        let json = "{\"elements\": [\n{\"type\": \"node\", \"id\": \"one\"}]}"
        #expect {
            _ = try OSMReader.read(data: Data(json.utf8), path: "doors.json")
        } throws: { error in
            expectPlain("\(error)")
            return "\(error)" == "doors.json:2: not Overpass JSON: field elements[0].id: expected a number"
        }
    }

    /// An element name that is not UTF-8 used to kill the process inside FoundationXML.
    @Test func bytesThatAreNotUTF8AreRefusedNotACrash() {
        let xml =
            Data("<osm>\n<node id=\"1\" lat=\"1\" lon=\"1\">\n<tag".utf8) + Data([0xFF, 0xFF])
            + Data(" k=\"a\" v=\"b\"/></node></osm>".utf8)
        #expect {
            _ = try OSMReader.read(data: xml, path: "x.osm")
        } throws: { error in
            expectPlain("\(error)")
            return "\(error)" == "x.osm:3: bytes that are not UTF-8 at byte 41 (OSM XML is UTF-8)"
        }
    }

    /// A processing instruction without data made FoundationXML read a null pointer.
    @Test(arguments: ["<?xm?>\n<osm></osm>", "<?xml version=\"1.0\"?>\n<osm>\n<?x?></osm>"])
    func processingInstructionsAreRefusedNotACrash(xml: String) {
        #expect {
            _ = try OSMReader.read(data: Data(xml.utf8), path: "x.osm")
        } throws: { error in
            expectPlain("\(error)")
            return "\(error)".contains("a processing instruction (<?…?>), which OSM XML does not have")
        }
    }

    @Test func theXMLDeclarationIsStillRead() throws {
        let xml =
            "<?xml version='1.0' encoding='UTF-8'?>\n<osm version=\"0.6\">\n<node id=\"1\" lat=\"1\" lon=\"2\"/>\n</osm>\n"
        #expect(try OSMReader.read(data: Data(xml.utf8), path: "x.osm").nodes.count == 1)
    }
}
