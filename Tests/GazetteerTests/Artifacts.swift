import Foundation
import Testing

@testable import Gazetteer

/// The committed compact build, found from this file's place in the checkout.
enum Artifacts {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let database = root.appendingPathComponent("artifacts/gazetteer/gazetteer.sqlite").path

    static func open() throws -> GazetteerDatabase {
        guard FileManager.default.fileExists(atPath: database) else {
            Issue.record(
                "missing \(database): it is committed; run `pathfinder gazetteer build` to remake it")
            throw CocoaError(.fileNoSuchFile)
        }
        return try GazetteerDatabase(path: database)
    }

    /// One geocoder per process: loading it is the expensive part.
    nonisolated(unsafe) static var sharedGeocoder: ReverseGeocoder?
    static let lock = NSLock()

    /// Runs `body` with the shared geocoder, one test at a time (SQLite handles are not
    /// shared across threads; the lock makes this one connection serial).
    static func withGeocoder<T>(_ body: (ReverseGeocoder) throws -> T) throws -> T {
        try lock.withLock {
            if sharedGeocoder == nil { sharedGeocoder = try ReverseGeocoder(database: try open()) }
            return try body(sharedGeocoder!)
        }
    }
}
