package import Foundation

/// The executables `swift build --build-tests` puts beside the test runner, for tests that
/// run a real binary (its exit codes, its standard streams, its signals).
package enum BuiltExecutable {
    /// The executable `name` (a product of this package) beside the test runner.
    /// - Throws: ``NotBuilt`` when it is missing, saying how to build it.
    package static func named(_ name: String) throws -> URL {
        let url = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: url.path) else { throw NotBuilt(path: url.path) }
        return url
    }

    /// The `pathfinder` executable.
    package static func pathfinder() throws -> URL { try named("pathfinder") }

    package struct NotBuilt: Error, CustomStringConvertible {
        package var path: String
        package var description: String { "\(path) is not built; run `swift build --build-tests` first" }
    }
}
