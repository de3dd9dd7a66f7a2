import Daemon
import Foundation
import Glibc
import TestSupport
import Testing

/// What the daemon says to `where` (audit 5, B8): Korean names from the bundled gazetteer, the
/// city once, no particle after a name. Before, in Seoul: "여기는 Seoul, Seoul-teukbyeolsi,
/// South Korea이야." — three English names for espeak-ng's English voice, the city twice, and
/// "이야" after a vowel.
@Suite("Daemon: where, said", .serialized)
struct WherePromptTests {
    /// One fix a second for `seconds` at `lat`/`lon` (NMEA degrees-minutes fields, "6010.1940,N").
    static func standing(lat: String, lon: String, seconds: Int = 60) -> String {
        var text = ""
        for i in 0..<seconds {
            let t = String(format: "12%02d%02d.00", i / 60, i % 60)
            for body in [
                "GPRMC,\(t),A,\(lat),\(lon),0.0,,010124,,,A",
                "GPGGA,\(t),\(lat),\(lon),1,09,0.7,10.0,M,17.0,M,,",
            ] {
                let sum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
                text += "$" + body + "*" + String(format: "%02X", sum) + "\r\n"
            }
        }
        return text
    }

    /// What the daemon says to `where` standing at `lat`/`lon`.
    static func said(lat: String, lon: String) throws -> String {
        let dir = TempDir()
        defer { dir.remove() }
        let nmea = dir.path + "/here.nmea"
        try standing(lat: lat, lon: lon).write(toFile: nmea, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(
            arguments: [
                "--socket", dir.path + "/pf.sock", "--memory", dir.path + "/memory.json", "--no-mic",
                "--speak-wav", dir.path + "/wav", "--baro", "none", "--nmea", nmea, "--gazetteer",
                GazetteerDaemonTests.repo + "/artifacts/gazetteer/gazetteer.sqlite",
            ], socket: dir.path + "/pf.sock", dir: dir)
        try #require(daemon.waitUntilListening(), "daemon did not start: \(daemon.stderr)")
        let client = try daemon.client()
        var place: [String: JSONValue] = [:]
        for _ in 0..<500 {
            place = fields(try client.request(#"{"cmd": "where"}"#))
            if place["ok"] == .bool(true) { break }
            usleep(20_000)
        }
        #expect(place["place"]?.objectValue != nil, "\(place)")
        _ = daemon.logs("info: say: ")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExitOrKill() == 0)
        let line = daemon.stderr.split(separator: "\n").first { $0.contains("info: say: ") }
        return line.map { String($0.split(separator: "say: ", maxSplits: 1).last ?? "") } ?? ""
    }

    /// Seoul (37.5665 N, 126.978 E): the city is its region (Seoul-teukbyeolsi), said once by its
    /// Korean name; the gazetteer's Hangul for the city itself is 경성, the colonial-era name,
    /// which is not said; South Korea has no Korean name in the gazetteer and is left out.
    @Test func inSeoul_theKoreanNameOnce() throws {
        let said = try Self.said(lat: "3733.9900,N", lon: "12658.6800,E")
        #expect(said == "여기는 서울시.", "\(said)")
        #expect(!said.contains { $0.isASCII && $0.isLetter })
    }

    /// Helsinki: the city's Korean name; Uusimaa and Finland have none and are left out.
    @Test func inHelsinki_theCitysKoreanName() throws {
        let said = try Self.said(lat: "6010.1940,N", lon: "02456.3040,E")
        #expect(said == "여기는 헬싱키.", "\(said)")
    }
}
