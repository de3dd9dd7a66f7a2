import Foundation
import Testing

@testable import PathfinderCLI

/// What a user sees for bad input names the file, the line or field and the reason in plain
/// words: never "NSCocoaErrorDomain error 256", "NSXMLParserErrorDomain error 89" or a
/// Swift type name.
@Suite("CLI: errors in plain words")
struct CLIWordingTests {
    static let foundationWords = [
        "ErrorDomain", "DecodingError", "Dictionary<", "Swift.", "could not be completed",
    ]

    @Test func aDirectoryGivenAsInputIsNamed() async throws {
        let dir = try Scratch()
        let (code, _, err) = await runPathfinder(["plan", "--destination", dir.path])
        #expect(code == 2)
        #expect(err.contains("\(dir.path): cannot read destination: is a directory, not a file"), "\(err)")
        for word in Self.foundationWords { #expect(!err.contains(word), "\(err)") }
    }

    @Test func aDestinationThatIsNotUTF8NamesTheLine() async throws {
        let dir = try Scratch()
        let file = dir.file("d.json")
        try
            (Data("{\n\"name\": \"".utf8) + Data([0xC3, 0x28])
            + Data("\", \"center\": {\"lat\": 1, \"lon\": 2}}".utf8))
            .write(to: URL(fileURLWithPath: file))
        let (code, _, err) = await runPathfinder(["plan", "--destination", file])
        #expect(code == 2)
        #expect(
            err.contains(
                "\(file): not a valid destination: line 2: not valid JSON: bytes that are not UTF-8"),
            "\(err)")
        for word in Self.foundationWords { #expect(!err.contains(word), "\(err)") }
    }
}
