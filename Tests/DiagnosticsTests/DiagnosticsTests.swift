import Diagnostics
import Foundation
import Testing

@Suite("Bad input in plain words")
struct DiagnosticsTests {
    @Test func aDirectoryOrAMissingFileIsNamedInWords() throws {
        #expect(throws: FileDiagnostics.Problem(reason: "is a directory, not a file")) {
            _ = try FileDiagnostics.contents(of: NSTemporaryDirectory())
        }
        #expect(throws: FileDiagnostics.Problem(reason: "no such file or directory")) {
            _ = try FileDiagnostics.contents(of: "/nonexistent/pathfinder.json")
        }
    }

    @Test func foundationFileErrorsBecomeTheirPOSIXReason() {
        do {
            _ = try Data(contentsOf: URL(fileURLWithPath: NSTemporaryDirectory()))
            Issue.record("reading a directory succeeded")
        } catch {
            let reason = FileDiagnostics.reason(error)
            #expect(reason == "is a directory")
            #expect(!reason.contains("Domain"))
        }
    }

    /// JSONDecoder says "expected Dictionary<String, Any>" when a string holds bytes that
    /// are not UTF-8 (it then tries the next shape); the reason is the bytes.
    @Test func bytesThatAreNotUTF8AreNamedWithTheirLine() {
        struct Open: Decodable {
            let value: [String: String]
        }
        let data = Data("{\n\"value\": {\"a\": \"".utf8) + Data([0xFF, 0xFE]) + Data("\"}}".utf8)
        do {
            _ = try JSONDecoder().decode(Open.self, from: data)
            Issue.record("decoded")
        } catch {
            let text = JSONDiagnostics.describe(error, in: data)
            #expect(text == "line 2: not valid JSON: bytes that are not UTF-8 at byte 19")
        }
    }

    @Test func aSyntaxErrorNamesItsLine() throws {
        struct Any1: Decodable { let a: Int }
        let data = Data("{\n  \"a\": 1,,\n}".utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Any1.self, from: data) }
        do { _ = try JSONDecoder().decode(Any1.self, from: data) } catch {
            let text = JSONDiagnostics.describe(error, in: data)
            #expect(text.hasPrefix("line 2: not valid JSON"))
            #expect(!text.contains("DecodingError"))
        }
    }

    @Test(arguments: [4, 5, 26, 76, 89, 12345])
    func xmlErrorsHaveWordsNotDomains(code: Int) {
        let reason = XMLDiagnostics.reason(code: code)
        #expect(!reason.contains("Domain"))
        #expect(!reason.isEmpty)
    }
}
