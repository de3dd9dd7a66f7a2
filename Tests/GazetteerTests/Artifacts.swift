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

/// SplitMix64: a fixed pseudo-random sequence, so every run tests the same points.
struct SplitMix {
    var state: UInt64
    mutating func next() -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
    }
}
