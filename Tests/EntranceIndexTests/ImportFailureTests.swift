import Foundation
import Geo
import TestSupport
import Testing

@testable import EntranceIndex

/// The real `pathfinder doors import`, made to fail while SQLite writes (a file-size limit:
/// `write` fails with EFBIG, as on a full disk) while osmium still streams on the other
/// thread.
@Suite("A door import that fails half-way")
struct ImportFailureTests {
    /// The processes whose command line mentions `text`, other than this test's.
    static func processes(mentioning text: String) -> [String] {
        let own = String(getpid())
        return ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { pid in
            guard pid.allSatisfy(\.isNumber), pid != own,
                let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline")
            else { return nil }
            let line = String(decoding: data.map { $0 == 0 ? 32 : $0 }, as: UTF8.self)
            return line.contains(text) ? "\(pid): \(line)" : nil
        }
    }

    /// Either route through osmium (`--low-memory`: one osmium process reading the file).
    @Test(arguments: [[], ["--low-memory"]])
    func theOldIndexStaysWholeNoTemporaryFileIsLeftAndOsmiumIsStopped(flags: [String]) throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let city = GridCity(origin: Coordinate(latitude: 37.55, longitude: 126.95), buildings: 24_000)
        let pbf = try city.write(xml: dir.appendingPathComponent("city.osm").path)
        // An older index where the new one goes: a small import of the same place.
        let db = dir.appendingPathComponent("city.db").path
        let small = GridCity(origin: Coordinate(latitude: 37.55, longitude: 126.95), buildings: 10)
        let old = try DoorImporter.importFile(
            try small.write(xml: dir.appendingPathComponent("small.osm").path), to: db)
        #expect(old.buildingWays == 10)
        let before = try #require(FileManager.default.contents(atPath: db))

        // 1 MB of file at most (the index of 24 000 buildings is ≈ 8 MB); SIGXFSZ ignored,
        // so the write fails with EFBIG instead of killing the process.
        let (status, message) = try runCapturing(
            "/bin/bash",
            [
                "-c", "trap '' XFSZ; ulimit -f 1024; exec \"$0\" doors import \"$1\" --out \"$2\" \"${@:3}\"",
                try BuiltExecutable.pathfinder().path, pbf, db,
            ] + flags)

        #expect(status == 1, "\(message)")
        #expect(message.contains("pathfinder doors import: \(db)"), "\(message)")
        #expect(FileManager.default.contents(atPath: db) == before)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".tmp-") }
                .isEmpty)
        #expect(Self.processes(mentioning: pbf).isEmpty)
        // The old index still answers.
        #expect(try DoorIndex(path: db).counts().buildings == 10)
    }
}
