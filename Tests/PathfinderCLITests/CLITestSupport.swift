import Foundation
import TestSupport
import Testing

@testable import PathfinderCLI

/// Runs `pathfinder` in-process and returns the exit code, stdout and stderr.
func runPathfinder(_ argv: [String]) async -> (code: Int32, out: String, err: String) {
    let captured = CapturedConsole()
    let code = await Pathfinder.main(argv, console: captured.console)
    return (code, captured.out, captured.err)
}

/// A fixture file's path inside the test bundle.
func fixture(_ name: String) throws -> String {
    guard let url = Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil) else {
        throw FixtureMissing(name: name)
    }
    return url.path
}

struct FixtureMissing: Error { var name: String }

/// `example/rautatieasema.osm` (the station's 27 entrance nodes) with the station's outline
/// (way 122595198 and its other nodes, from `station-and-block.json`), written into
/// `scratch`: a building's doors, which `memory osm` stores. Without the outline, no building
/// is within 50 m of its centre, and that answer is no building's doors.
func rautatieasemaWithOutline(in scratch: Scratch) throws -> String {
    let xml = try String(contentsOfFile: try fixture("example/rautatieasema.osm"), encoding: .utf8)
    let json = try #require(
        try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: try fixture("station-and-block.json"))))
            as? [String: Any])
    let elements = try #require(json["elements"] as? [[String: Any]])
    let way = try #require(
        elements.first { $0["type"] as? String == "way" && $0["id"] as? Int == 122_595_198 })
    let refs = try #require(way["nodes"] as? [Int])
    var written = Set(
        xml.components(separatedBy: "<node id=\"").dropFirst().compactMap { Int($0.prefix { $0 != "\"" }) })
    var added = ""
    for node in elements where node["type"] as? String == "node" {
        guard let id = node["id"] as? Int, refs.contains(id), written.insert(id).inserted,
            let lat = node["lat"] as? Double, let lon = node["lon"] as? Double
        else { continue }
        added += "  <node id=\"\(id)\" lat=\"\(lat)\" lon=\"\(lon)\"/>\n"
    }
    added +=
        "  <way id=\"122595198\">" + refs.map { "<nd ref=\"\($0)\"/>" }.joined()
        + "<tag k=\"building\" v=\"train_station\"/></way>\n"
    return try scratch.write(
        "rautatieasema-outlined.osm", xml.replacingOccurrences(of: "</osm>", with: added + "</osm>"))
}

/// A fresh directory, removed when the value goes away.
final class Scratch {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "pathfinder-cli-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { "\(path)/\(name)" }

    func write(_ name: String, _ text: String) throws -> String {
        try Data(text.utf8).write(to: URL(fileURLWithPath: file(name)))
        return file(name)
    }

    /// `/bin/sh -c command` run in this folder (exit code, stdout, stderr).
    func sh(_ command: String) throws -> (code: Int32, out: String, err: String) {
        try BinaryTests.run(executable: "/bin/sh", ["-c", command], directory: path)
    }

    var entries: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
}

/// A home folder whose `.asoundrc` defines the capture device "speech": ALSA's file plugin
/// reading raw 16 kHz audio — espeak-ng's "여기 아니야" half a second in, a second after — each
/// time the device is opened, as a microphone would hear one person say it.
func speakingHome() throws -> Scratch {
    let home = try Scratch()
    let spoken = home.file("spoken.wav"), raw = home.file("take.raw")
    try writeSpokenAnswer(raw: raw, wav: spoken)
    _ = try home.write(
        ".asoundrc",
        """
        pcm.speech {
            type file
            slave.pcm "null"
            file "/dev/null"
            infile "\(raw)"
            format "raw"
        }

        """)
    return home
}
