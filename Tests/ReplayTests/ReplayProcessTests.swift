import Foundation
import TestSupport
import Testing

/// Determinism across processes: Swift seeds its hashing per process, so two runs inside
/// one test process share the seed and cannot show an output that depends on `Set` or
/// `Dictionary` order. This runs the built `pathfinder replay` twice, as two processes.
@Suite("Replay: two processes, the same bytes")
struct ReplayProcessTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Fixtures")

    /// The replay's standard output (its event log), from a fresh process.
    func replay() throws -> Data {
        let executable = try BuiltExecutable.pathfinder()
        let process = Process()
        process.executableURL = executable
        process.arguments = [
            "replay", "--nmea", Self.fixtures.appendingPathComponent("walk.nmea").path,
            "--destination", Self.fixtures.appendingPathComponent("destination.json").path,
            "--osm", Self.fixtures.appendingPathComponent("doors.osm").path,
            "--heard", Self.fixtures.appendingPathComponent("heard.tsv").path,
        ]
        // Per-process random hashing, as a user's run has it.
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "SWIFT_DETERMINISTIC_HASHING")
        process.environment = environment
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("replay-\(UUID()).jsonl")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return try Data(contentsOf: output)
    }

    @Test func determinism_twoProcessesSameBytes() throws {
        let first = try replay()
        let second = try replay()
        #expect(first.count > 5_000)
        #expect(first == second, "the two processes' event logs differ")
    }
}
