import Foundation
import Glibc
import SystemCalls
import Testing

@testable import Storage

/// The writes of a folder whose files are each written once and whose list only grows
/// (`pathfinder record`'s takes and manifest), and the lock that keeps one writer in it.
@Suite("Write once: new files, appended lines, a folder's lock")
struct WriteOnceTests {
    /// A take is never written over: a file already at the name stays as it was, and the new
    /// bytes leave nothing behind (before, `record` checked the name, then renamed over it, so
    /// two sessions at once replaced each other's takes).
    @Test func createNeverReplacesAFile() throws {
        let folder = try TempDirectory()
        let path = folder.file("mom-1-01.wav")
        try AtomicFile.create(Array("first".utf8), at: path, mode: 0o644)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "first")
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o644)
        #expect(throws: SystemCallError.self) {
            try AtomicFile.create(Array("second".utf8), at: path, mode: 0o644)
        }
        do {
            try AtomicFile.create(Array("second".utf8), at: path, mode: 0o644)
        } catch {
            #expect(error.code == EEXIST, "\(error)")
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "first")
        #expect(folder.entries == ["mom-1-01.wav"])
        // A link there, even one to nowhere, is a name taken too.
        symlink(folder.file("gone"), folder.file("mom-1-02.wav"))
        #expect(throws: SystemCallError.self) {
            try AtomicFile.create(Array("x".utf8), at: folder.file("mom-1-02.wav"), mode: 0o644)
        }
        #expect(!FileManager.default.fileExists(atPath: folder.file("gone")))
    }

    /// Lines appended by several writers at once all arrive whole (before, each writer moved to
    /// the end, then wrote there: two that moved at once wrote over each other's lines).
    @Test func linesAppendedAtOnceAllArriveWhole() async throws {
        let folder = try TempDirectory()
        let path = folder.file("manifest.jsonl")
        let writers = 8, lines = 200
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    for line in 0..<lines {
                        // Lengths differ from writer to writer, as speaker IDs do.
                        let text =
                            "\(writer)-\(line)-" + String(repeating: "x", count: 40 + 13 * writer) + "\n"
                        try? AppendFile.append(Array(text.utf8), to: path, mode: 0o644)
                    }
                }
            }
        }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let got = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(got.count == writers * lines)
        for line in got {
            let parts = line.split(separator: "-")
            let writer = try #require(parts.first.flatMap { Int($0) }, "\(line)")
            #expect(
                parts.count == 3 && parts[2] == String(repeating: "x", count: 40 + 13 * writer), "\(line)")
        }
        #expect(Set(got).count == got.count)
    }

    /// A second holder of a folder's lock is refused at once and told who holds it; the lock
    /// goes with its holder.
    @Test func aFoldersLockIsHeldByOneAndNamesItsHolder() throws {
        let folder = try TempDirectory()
        var lock: FolderLock? = try FolderLock(folder.path, file: "manifest.jsonl")
        // `flock` locks belong to the open file: a second open in this process is a second holder.
        do {
            _ = try FolderLock(folder.path, file: "manifest.jsonl")
            Issue.record("a second lock was taken")
        } catch {
            #expect(error.code == EWOULDBLOCK, "\(error)")
            #expect(error.holder == getpid(), "\(error)")
        }
        #expect(lock != nil)
        lock = nil
        _ = try FolderLock(folder.path, file: "manifest.jsonl")
    }
}
