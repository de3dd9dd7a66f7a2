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

@Suite("The temporary folder: TMPDIR as POSIX reads it")
struct TemporaryFolderTests {
    @Test(arguments: [
        (nil, "/tmp"), ("", "/tmp"), ("//tmp", "//tmp"), ("/tmp/", "/tmp"), ("/tmp//x//", "/tmp//x"),
        ("/", "/"),
        ("//", "/"), ("tmp", "tmp"),
    ])
    func pathAsWritten(tmpdir: String?, path: String) {
        let environment = tmpdir.map { ["TMPDIR": $0] } ?? [:]
        #expect(TemporaryFolder.path(environment: environment) == path)
    }

    @Test func aFolderThatCannotBeUsedIsNamedByTMPDIR() {
        #expect(
            TemporaryFolder.problem("a temporary folder for x", errno: ENOENT, environment: ["TMPDIR": "/x/"])
                == "TMPDIR=/x/: cannot make a temporary folder for x: no such file or directory (TMPDIR must name a folder you can write in)"
        )
        #expect(
            TemporaryFolder.problem("a temporary folder for x", errno: EACCES, environment: [:])
                == "/tmp: cannot make a temporary folder for x: permission denied (set TMPDIR to a folder you can write in)"
        )
    }
}
