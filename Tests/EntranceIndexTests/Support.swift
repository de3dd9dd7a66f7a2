import Foundation
import OSM
import TestSupport
import Testing

/// Paths and tools the door-index tests share.
enum Support {
    static func fixture(_ name: String) throws -> String {
        let url = try #require(
            Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures"),
            "fixture \(name) is missing")
        return url.path
    }

    /// A fresh private directory, removed by the caller.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "doors-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Runs the real `osmium`; fails the test, saying how to install it, when it is missing.
    static func osmium(_ arguments: [String]) throws -> String {
        let candidates = ["/usr/bin/osmium", "/usr/local/bin/osmium"]
        let path = try #require(
            candidates.first { FileManager.default.isExecutableFile(atPath: $0) },
            "osmium is not installed: apt-get install osmium-tool (or run Scripts/setup)")
        let (status, text) = try runCapturing(path, arguments, standardOutput: true)
        #expect(status == 0, "osmium \(arguments.joined(separator: " ")) failed")
        return text
    }

    /// The whole of a small `.osm.pbf` in memory (through `osmium cat` to OSM XML): the
    /// brute-force oracle the index's answers are checked against.
    static func readPBF(_ path: String) throws -> OSMData {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let xml = dir.appendingPathComponent("all.osm").path
        _ = try osmium(["cat", path, "-o", xml])
        return try OSMReader.read(path: xml)
    }

    /// "Number of ways: 433" from `osmium fileinfo -e` output.
    static func count(_ what: String, in fileinfo: String) throws -> Int {
        let line = try #require(
            fileinfo.split(separator: "\n").first { $0.contains("Number of \(what):") }, "no count of \(what)"
        )
        return try #require(Int(line.split(separator: ":").last!.trimmingCharacters(in: .whitespaces)))
    }
}
