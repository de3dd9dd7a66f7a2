import Foundation
import Positioning
import Testing

@testable import Daemon

/// Requests and config files are refused in plain words: the request or file, the line or
/// field, the reason; never a Foundation error domain or a Swift type name.
@Suite("Daemon: errors in plain words")
struct WordingTests {
    static let foundationWords = [
        "ErrorDomain", "DecodingError", "Dictionary<", "Swift.", "could not be completed", "codingPath",
    ]

    func expectPlain(_ text: String) {
        for word in Self.foundationWords { #expect(!text.contains(word), "\(text)") }
    }

    func refusal(_ bytes: [UInt8]) -> String {
        switch ControlRequest.parse(Data(bytes)) {
        case .success(let request): "accepted \(request)"
        case .failure(let error): error.message
        }
    }

    @Test func aRequestThatIsNotUTF8SaysSo() {
        let message = refusal(Array(#"{"cmd": "heard", "text": ""#.utf8) + [0xFF, 0xFE] + Array(#""}"#.utf8))
        expectPlain(message)
        #expect(message == "malformed JSON: not valid JSON: bytes that are not UTF-8 at byte 27")
    }

    @Test(arguments: [
        (#"{"cmd": "go", "destination": {"name": "A", "center": {"lat": "x", "lon": 1}}}"#, "center.lat"),
        (#"{"cmd": "go", "destination": {"name": "A"}}"#, "center"),
        (#"{"cmd": "go""#, "not valid JSON"),
        (#"[1, 2]"#, "expected a JSON object"),
    ])
    func badRequestsNameTheField(request: String, mentions: String) {
        let message = refusal(Array(request.utf8))
        expectPlain(message)
        #expect(message.contains(mentions), "\(message)")
    }

    @Test func aMalformedConfigNamesTheFileAndLine() throws {
        var config = DaemonConfig(environment: [:])
        #expect {
            try config.apply(file: Data("{\n  \"mic\": true,,\n}".utf8), path: "config.json")
        } throws: { error in
            let text = "\(error)"
            expectPlain(text)
            return text.hasPrefix("config.json: line 2: not valid JSON")
        }
    }

    @Test func aDirectoryAsConfigIsNamed() {
        #expect {
            _ = try DaemonConfig.load(path: NSTemporaryDirectory(), environment: [:])
        } throws: { error in
            expectPlain("\(error)")
            return "\(error)".hasSuffix("cannot read the config file: is a directory, not a regular file")
        }
    }

    /// The config and `fixes --gpsd` read an address with one parser; only the config
    /// insists on a port (so a bare IPv6 address, a host to the command, is refused by the
    /// config: below).
    @Test(arguments: [
        "127.0.0.1:2947", "[::1]:2948", "[fe80::1]:1", "host:0", "a b:1", ":2947", "[::1", "h:x",
    ])
    func theGPSDAddressParsersAgree(text: String) {
        let settings = GPSDClient.Settings.parse(text)
        let endpoint = DaemonConfig.Endpoint(text)
        #expect(settings?.host == endpoint?.host)
        #expect(settings?.port == endpoint?.port)
    }

    @Test func theConfigWantsAPortWhereTheCommandDefaultsIt() {
        #expect(GPSDClient.Settings.parse("gps.local")?.port == 2947)
        #expect(DaemonConfig.Endpoint("gps.local") == nil)
        // A port needs brackets: a bare IPv6 address is all host.
        #expect(GPSDClient.Settings.parse("::1:2947")?.host == "::1:2947")
        #expect(GPSDClient.Settings.parse("::1:2947")?.port == 2947)
        #expect(DaemonConfig.Endpoint("::1:2947") == nil)
    }
}
