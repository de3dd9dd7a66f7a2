import Arrival
import Foundation
import Geo
import Glibc
import TestSupport
import Testing

@testable import Storage

/// The promise of the atomic write, tested the hard way: a real process saving in a loop is
/// SIGKILLed at random moments, and the file is always some whole memory it wrote.
@Suite("MemoryFile survives SIGKILL during writes")
struct KillDuringWriteTests {
    /// Step `n`'s memory, built here independently of `memory-writer` (which must write
    /// exactly this).
    static func memory(step: Int) -> EntranceMemory {
        let changed = Date(timeIntervalSince1970: 1_700_000_000 + Double(step))
        return EntranceMemory(
            buildings: (0..<EntranceMemory.limit).map { k in
                let center = Coordinate(latitude: 60 + Double(k) * 0.01, longitude: 24.9)
                let door = Coordinate(
                    latitude: center.latitude + Double(step % 1000) * 1e-6, longitude: 24.9001)
                return EntranceMemory.Building(
                    name: "step \(step) building \(k)", center: center, changed: changed,
                    confirmed: Door(coordinate: door, source: .walker, level: "\(k % 3)", note: "문 \(step)"),
                    rejected: [Coordinate(latitude: center.latitude, longitude: 24.9005)],
                    osm: .init(
                        read: changed, doors: [Door(coordinate: door, source: .osm, label: "A\(step)")]))
            })
    }

    /// The test-only writer, built beside this test bundle by `swift build --build-tests`.
    static func writerPath() throws -> String { try BuiltExecutable.named("memory-writer").path }

    static let kills = 60

    @Test func fileIsAlwaysTheOldOrTheNewMemory() throws {
        let dir = try TempDirectory()
        let path = dir.file("memory.json")
        let writer = try Self.writerPath()
        try MemoryFile.save(Self.memory(step: 0), path: path)

        var step = 0
        var killsWithATempFileLeft = 0
        for kill in 1...Self.kills {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: writer)
            process.arguments = [path]
            let errors = Pipe()
            let ready = Pipe()
            process.standardError = errors
            process.standardOutput = ready
            try process.run()
            // Wait for "ready\n" (the writer has read the file and starts saving), then a random
            // moment among its saves of ~100 KB each.
            _ = ready.fileHandleForReading.readData(ofLength: 6)
            usleep(UInt32.random(in: 1_000...30_000))
            #expect(Glibc.kill(process.processIdentifier, SIGKILL) == 0)
            process.waitUntilExit()
            let complaint = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(complaint.isEmpty, "kill \(kill): the writer failed: \(complaint)")
            #expect(process.terminationReason == .uncaughtSignal, "kill \(kill): the writer was not killed")

            // Whole: it parses, and it is exactly the memory of the step it names.
            let memory = try MemoryFile.read(path: path)
            let found = try #require(
                memory.buildings.first.flatMap { Int($0.name.split(separator: " ")[1]) },
                "kill \(kill): no step in the file")
            #expect(memory == Self.memory(step: found), "kill \(kill): step \(found) is torn")
            #expect(found >= step, "kill \(kill): went back from step \(step) to \(found)")
            step = found

            // Nothing left behind but, at most, the one temp file being written at the kill.
            let temps = AtomicFile.temps(of: path)
            #expect(temps.count <= 1, "kill \(kill): \(temps)")
            if !temps.isEmpty { killsWithATempFileLeft += 1 }
            #expect(dir.entries.allSatisfy { $0 == "memory.json" || $0.hasPrefix(".memory.json.tmp-") })
        }
        #expect(step > 0, "the writer never completed a save: the test proved nothing")

        // The next save cleans the dead writer's temp file.
        try MemoryFile.save(Self.memory(step: step + 1), path: path)
        #expect(dir.entries == ["memory.json"])
        print(
            "SIGKILL test: \(Self.kills) kills, \(step) steps saved, \(killsWithATempFileLeft) kills mid-write"
        )
    }
}
