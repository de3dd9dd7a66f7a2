import Foundation

/// A fresh directory under the system temp directory, removed when the test is done.
final class TempDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "pathfinder-storage-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { "\(path)/\(name)" }

    var entries: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
}
