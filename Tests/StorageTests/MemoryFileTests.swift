import Arrival
import Foundation
import Geo
import Glibc
import Testing

@testable import Storage

@Suite("MemoryFile: format, permissions, corrupt files")
struct MemoryFileTests {
    let t0 = Date(timeIntervalSince1970: 1_746_000_000)  // 2025-04-30T08:00:00Z
    let station = Coordinate(latitude: 60.1711, longitude: 24.9414)

    func sampleMemory() -> EntranceMemory {
        var memory = EntranceMemory()
        memory.recordOSM(
            [Door(coordinate: Coordinate(latitude: 60.1716, longitude: 24.9417), source: .osm, label: "A")],
            name: "Rautatieasema", center: station, now: t0)
        memory.reject(
            Coordinate(latitude: 60.1716, longitude: 24.9417), name: "Rautatieasema", center: station,
            now: t0 + 60)
        memory.confirm(
            Door(
                coordinate: Coordinate(latitude: 60.1709, longitude: 24.9420), level: "0", note: "2층 출발 홀",
                altitude: BarometricAltitude(metres: 12.4, accuracy: 3)),
            name: "Kamppi", center: Coordinate(latitude: 60.1690, longitude: 24.9320), now: t0 + 120)
        return memory
    }

    @Test func missingFileIsAnEmptyMemoryAndCreatesNothing() throws {
        let dir = try TempDirectory()
        let (memory, warning) = MemoryFile.load(path: dir.file("memory.json"))
        #expect(memory == EntranceMemory())
        #expect(warning == nil)
        #expect(dir.entries.isEmpty)
    }

    @Test func saveThenLoadGivesTheSameMemory() throws {
        let dir = try TempDirectory()
        let path = dir.file("memory.json")
        try MemoryFile.save(sampleMemory(), path: path)
        let (memory, warning) = MemoryFile.load(path: path)
        #expect(warning == nil)
        #expect(memory == sampleMemory())
        #expect(dir.entries == ["memory.json"])
    }

    @Test func fileIsTheContractFormat() throws {
        let dir = try TempDirectory()
        let path = dir.file("memory.json")
        try MemoryFile.save(sampleMemory(), path: path)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
                as? [String: Any])
        #expect(object["version"] as? Int == 1)
        let buildings = try #require(object["buildings"] as? [[String: Any]])
        #expect(buildings.map { $0["name"] as? String } == ["Kamppi", "Rautatieasema"])
        #expect(buildings[0]["changed"] as? String == "2025-04-30T08:02:00Z")
        let confirmed = try #require(buildings[0]["confirmed"] as? [String: Any])
        #expect(confirmed["source"] as? String == "walker")
        #expect((confirmed["altitude"] as? [String: Any])?["metres"] as? Double == 12.4)
        let rejected = try #require(buildings[1]["rejected"] as? [[String: Double]])
        #expect(rejected == [["lat": 60.1716, "lon": 24.9417]])
        let osm = try #require(buildings[1]["osm"] as? [String: Any])
        #expect(osm["read"] as? String == "2025-04-30T08:00:00Z")
    }

    @Test func fileIsMode0600EvenOverAWiderFileAndUmask() throws {
        let dir = try TempDirectory()
        let path = dir.file("memory.json")
        #expect(
            FileManager.default.createFile(
                atPath: path, contents: Data("{}".utf8), attributes: [.posixPermissions: 0o666]))
        let old = umask(0)
        defer { umask(old) }
        try MemoryFile.save(sampleMemory(), path: path)
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
    }

    @Test func syntaxErrorIsSetAsideNamedAndNeverOverwritten() throws {
        let dir = try TempDirectory()
        let path = dir.file("memory.json")
        let bad = Data("{\n  \"version\": 1,\n  \"buildings\": [\n    {\"name\": \"x\",, }\n  ]\n}\n".utf8)
        try bad.write(to: URL(fileURLWithPath: path))

        let (memory, warning) = MemoryFile.load(path: path, now: t0)
        #expect(memory == EntranceMemory())
        let error = try #require(warning)
        #expect(error.kind == .malformed)
        #expect(error.path == path)
        #expect(error.line == 4)
        #expect(error.setAside == path + ".corrupt-20250430T080000Z")
        #expect(error.description.contains("memory.json: line 4"))
        #expect(error.description.contains("set aside as \(path).corrupt-20250430T080000Z"))
        #expect(dir.entries == ["memory.json.corrupt-20250430T080000Z"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: error.setAside!)) == bad)

        // The next save writes a fresh file and leaves the set-aside one alone.
        try MemoryFile.save(sampleMemory(), path: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: error.setAside!)) == bad)

        // A second bad file in the same second does not overwrite the first one set aside.
        try Data("nonsense".utf8).write(to: URL(fileURLWithPath: path))
        let (_, second) = MemoryFile.load(path: path, now: t0)
        #expect(second?.setAside == path + ".corrupt-20250430T080000Z-2")
        #expect(try Data(contentsOf: URL(fileURLWithPath: error.setAside!)) == bad)
        #expect(
            dir.entries == ["memory.json.corrupt-20250430T080000Z", "memory.json.corrupt-20250430T080000Z-2"])
    }

    @Test func wrongFieldNamesLineAndField() throws {
        let dir = try TempDirectory()
        let path = dir.file("memory.json")
        var text = String(decoding: try MemoryFile.encode(sampleMemory()), as: UTF8.self)
        text = text.replacingOccurrences(of: "\"2025-04-30T08:00:00Z\"", with: "\"last tuesday\"")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let expectedLine =
            1 + text[..<text.range(of: "last tuesday")!.lowerBound].count(where: { $0 == "\n" })

        #expect(throws: MemoryFileError.self) { try MemoryFile.read(path: path) }
        do {
            _ = try MemoryFile.read(path: path)
        } catch {
            #expect(error.line == expectedLine)
            #expect(error.field == "buildings[1].osm.read")
            #expect(error.setAside == nil)
        }
        // read() is read-only: the file is where it was.
        #expect(dir.entries == ["memory.json"])
    }

    @Test func missingFieldIsNamed() throws {
        let dir = try TempDirectory()
        let path = dir.file("memory.json")
        try Data("{\"version\": 1, \"buildings\": [\n{\"name\": \"A\",\n \"center\": {\"lat\": 60}}]}".utf8)
            .write(to: URL(fileURLWithPath: path))
        do {
            _ = try MemoryFile.read(path: path)
            Issue.record("a file without center.lon must not load")
        } catch {
            #expect(error.field == "buildings[0].center.lon")
            #expect(error.line == 3)
            #expect(error.reason == "is missing")
        }
    }

    @Test(arguments: [
        ("{\"version\": 2, \"buildings\": []}", "version 2 is not one"),
        ("{\"buildings\": []}", "is missing"),
    ])
    func unknownOrMissingVersionIsSetAside(text: String, reason: String) throws {
        let dir = try TempDirectory()
        let path = dir.file("memory.json")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let (memory, warning) = MemoryFile.load(path: path, now: t0)
        #expect(memory == EntranceMemory())
        #expect(warning?.field == "version")
        #expect(warning?.reason.contains(reason) == true)
        #expect(warning?.setAside != nil)
        #expect(dir.entries == ["memory.json.corrupt-20250430T080000Z"])
    }

    @Test func moreThanTheLimitInAFileIsTrimmedOnLoad() throws {
        let buildings = (0..<250).map {
            EntranceMemory.Building(
                name: "b\($0)", center: Coordinate(latitude: -80 + Double($0) * 0.5, longitude: 0),
                changed: t0)
        }
        struct Raw: Encodable {
            var version = 1
            var buildings: [EntranceMemory.Building]
        }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let memory = try MemoryFile.decode(encoder.encode(Raw(buildings: buildings)), path: "m.json")
        #expect(memory.buildings.count == 200)
        #expect(memory.buildings.last?.name == "b199")
    }

    @Test func staleTempFilesOfDeadWritersAreRemovedLiveOnesKept() throws {
        let dir = try TempDirectory()
        let path = dir.file("memory.json")
        let dead = Process()
        dead.executableURL = URL(fileURLWithPath: "/bin/true")
        try dead.run()
        dead.waitUntilExit()
        let stale = dir.file(".memory.json.tmp-\(dead.processIdentifier)-1")
        let live = dir.file(".memory.json.tmp-1-2")  // pid 1 is always running
        #expect(FileManager.default.createFile(atPath: stale, contents: Data("{\"version\": 1, \"bu".utf8)))
        #expect(FileManager.default.createFile(atPath: live, contents: Data()))
        try MemoryFile.save(sampleMemory(), path: path)
        #expect(dir.entries == [".memory.json.tmp-1-2", "memory.json"])
    }

    /// Issue #11 item 1: with only HOME set, ~/.local/share/pathfinder/ did not exist and
    /// every save failed.
    @Test func saveMakesMissingDirectoriesPrivate() throws {
        let dir = try TempDirectory()
        let path = dir.file("share/pathfinder/memory.json")
        let old = umask(0o022)
        defer { umask(old) }
        try MemoryFile.save(sampleMemory(), path: path)
        #expect(MemoryFile.load(path: path).memory == sampleMemory())
        for made in ["share", "share/pathfinder"] {
            var info = stat()
            #expect(stat(dir.file(made), &info) == 0)
            #expect(info.st_mode & 0o777 == 0o700, "\(made)")
        }
    }

    @Test func saveUnderAFileFailsNamingTheCall() throws {
        let dir = try TempDirectory()
        #expect(FileManager.default.createFile(atPath: dir.file("plain"), contents: Data()))
        let path = dir.file("plain/memory.json")
        #expect {
            try MemoryFile.save(sampleMemory(), path: path)
        } throws: { error in
            "\(error)".contains("cannot write: open \(dir.path)/plain/")
                && "\(error)".contains("Not a directory")
        }
    }

    /// Issue #14 item 8: one damaged building hid all 200.
    @Test func aDamagedBuildingIsSkippedTheOthersKeptAndTheFileCopiedAside() throws {
        let dir = try TempDirectory()
        let path = dir.file("memory.json")
        var text = String(decoding: try MemoryFile.encode(sampleMemory()), as: UTF8.self)
        // Kamppi (buildings[0]) gets a latitude that is no number.
        text = text.replacingOccurrences(of: "\"lat\" : 60.169,", with: "\"lat\" : \"x\",")
        try #require(text.contains("\"x\""))
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let expectedLine = 1 + text[..<text.range(of: "\"x\"")!.lowerBound].count(where: { $0 == "\n" })

        let (memory, warning) = MemoryFile.load(path: path, now: t0)
        #expect(memory.buildings.map(\.name) == ["Rautatieasema"])
        let error = try #require(warning)
        #expect(error.field == "buildings[0].center.lat")
        #expect(error.line == expectedLine)
        #expect(error.reason.contains("\"Kamppi\""))
        #expect(error.kept == 1)
        #expect(error.setAside == path + ".corrupt-20250430T080000Z")
        #expect(error.description.contains("carrying on with the 1 buildings that parse"))
        // A copy: the file is still there, and nothing is lost.
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(text.utf8))
        #expect(try Data(contentsOf: URL(fileURLWithPath: error.setAside!)) == Data(text.utf8))
        // Loading again (a restart before any save) makes no second copy.
        #expect(MemoryFile.load(path: path, now: t0 + 1).warning?.setAside == error.setAside)
        #expect(dir.entries == ["memory.json", "memory.json.corrupt-20250430T080000Z"])
        // The next save writes what parsed.
        try MemoryFile.save(memory, path: path)
        #expect(MemoryFile.load(path: path).warning == nil)
        #expect(MemoryFile.load(path: path).memory.buildings.map(\.name) == ["Rautatieasema"])
        // Read-only commands still report the damage (and leave the file alone).
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: MemoryFileError.self) { try MemoryFile.read(path: path) }
    }

    @Test func unreadableFileIsNotSetAside() throws {
        let dir = try TempDirectory()
        let path = dir.file("memory.json")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        let (memory, warning) = MemoryFile.load(path: path, now: t0)
        #expect(memory == EntranceMemory())
        #expect(warning?.kind == .unreadable)
        #expect(warning?.reason.hasPrefix("cannot read") == true)
        #expect(warning?.setAside == nil)
        #expect(dir.entries == ["memory.json"])
    }

    /// Audit 11 A11-2: a file moved in at the memory path during the store's own save — after
    /// its check of the path, before its rename (a unit seam, `beforeReplacing`, runs there) —
    /// is merged, not written over unread. Before, the family's building was gone, unsaid.
    @Test(arguments: [false, true]) func aFileMovedInDuringTheSaveIsMergedNotWrittenOver(
        changedBefore: Bool
    )
        throws
    {
        let dir = try TempDirectory()
        let path = dir.file("memory.json")
        try MemoryFile.save(sampleMemory(), path: path)
        var store = MemoryStore(path: path)
        _ = store.load(now: t0)
        if changedBefore {  // the save merges a file replaced before it too
            var first = sampleMemory()
            let oulu = Coordinate(latitude: 65.0, longitude: 25.47)
            first.confirm(Door(coordinate: oulu), name: "Oulu", center: oulu, now: t0 + 30)
            try MemoryFile.save(first, path: path)
        }
        var family = try MemoryFile.read(path: path)
        let tampere = Coordinate(latitude: 61.5, longitude: 23.8)
        family.confirm(Door(coordinate: tampere, label: "T"), name: "Tampere", center: tampere, now: t0 + 60)
        let moved = dir.file("family.json")
        try MemoryFile.save(family, path: moved)
        store.beforeReplacing = {
            if FileManager.default.fileExists(atPath: moved) { rename(moved, path) }
        }
        var session = sampleMemory()
        let pasila = Coordinate(latitude: 60.199, longitude: 24.934)
        session.confirm(Door(coordinate: pasila), name: "Pasila", center: pasila, now: t0 + 120)

        let merge = try #require(try store.saveMerging(session, now: t0 + 200), "the moved file was not read")
        #expect(merge.cause == .replaced)
        #expect(merge.file.building(near: tampere) != nil)
        let written = try MemoryFile.read(path: path)
        #expect(written.building(near: tampere)?.confirmed?.label == "T", "\(written.buildings.map(\.name))")
        #expect(written.building(near: pasila) != nil)
        #expect(written == merge.merged)
        #expect(!store.changedOnDisk)
        #expect(dir.entries == ["memory.json"])
    }

    /// A11-2, bounded: a file moved in at every attempt of a save is never written over; the save
    /// gives up after three (unwritable: the daemon retries it as any failed save).
    @Test func aFileMovedInAtEveryAttemptIsNeverWrittenOver() throws {
        let dir = try TempDirectory()
        let path = dir.file("memory.json")
        try MemoryFile.save(sampleMemory(), path: path)
        var store = MemoryStore(path: path)
        _ = store.load(now: t0)
        let tampere = Coordinate(latitude: 61.5, longitude: 23.8)
        let moved = dir.file("family.json")
        store.beforeReplacing = { [t0] in
            var family = EntranceMemory()
            family.confirm(Door(coordinate: tampere), name: "Tampere", center: tampere, now: t0)
            try? MemoryFile.save(family, path: moved)
            rename(moved, path)
        }
        #expect {
            try store.save(sampleMemory(), now: t0 + 200)
        } throws: { error in
            (error as? MemoryFileError)?.kind == .unwritable
                && "\(error)".contains("during each of 3 saves in a row")
        }
        #expect(try MemoryFile.read(path: path).buildings.map(\.name) == ["Tampere"])
        #expect(dir.entries == ["memory.json"])
    }

    /// Issue #11 item 3: a file that could not be read loaded as empty, and the next save
    /// renamed a new file over it. (A directory stands in for EACCES/EIO here, since the
    /// tests may run as root; the daemon and CLI tests drop root's read-any-file capabilities for a real
    /// EACCES.)
    @Test func theStoreNeverWritesOverAFileItCouldNotRead() throws {
        let dir = try TempDirectory()
        let path = dir.file("memory.json")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        try Data("keep".utf8).write(to: URL(fileURLWithPath: path + "/inside"))
        var store = MemoryStore(path: path)
        let loaded = store.load(now: t0)
        #expect(loaded.warning?.kind == .unreadable)
        #expect(store.unreadable != nil)
        #expect {
            try store.save(sampleMemory())
        } throws: { error in
            (error as? MemoryFileError)?.kind == .unreadable
                && "\(error)".contains("not writing over a file that could not be read")
        }
        #expect(dir.entries == ["memory.json"])
        #expect(FileManager.default.contents(atPath: path + "/inside") == Data("keep".utf8))

        // Readable at last: the file's buildings merged under the session's, and written.
        try FileManager.default.removeItem(atPath: path)
        var file = EntranceMemory()
        let far = Coordinate(latitude: 61.5, longitude: 23.8)
        file.confirm(Door(coordinate: far), name: "Tampere", center: far, now: t0 - 3600)
        try MemoryFile.save(file, path: path)
        let read = try #require(try store.save(sampleMemory()))
        #expect(read == file)
        #expect(store.unreadable == nil)
        let written = try MemoryFile.read(path: path)
        #expect(written.buildings.map(\.name) == ["Kamppi", "Rautatieasema", "Tampere"])
        #expect(written == file.merging(sampleMemory()))
    }
}
