import Foundation

/// Finds the bundled, read-only data in the repository's `artifacts/` directory.
///
/// `PATHFINDER_ARTIFACTS` names the directory outright; otherwise it is found by walking up
/// from the executable (`.build/release/pathfinder` sits three levels below the root) and
/// then from the working directory to the first directory holding `artifacts/` (other than
/// SwiftPM's `.build/artifacts/`).
package enum Artifacts {
    /// The path of `relative` (e.g. "doors/helsinki.db") inside the artifacts directory.
    /// - Throws: `CLIError.runtime` saying where it looked when there is none.
    package static func path(
        _ relative: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(CLIError) -> String {
        if let directory = environment["PATHFINDER_ARTIFACTS"], !directory.isEmpty {
            return URL(fileURLWithPath: directory).appendingPathComponent(relative).path
        }
        let starts = [
            URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
                .deletingLastPathComponent(),
            Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent(),
            URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
        ].compactMap { $0 }
        for start in starts {
            if let directory = directory(above: start) {
                return directory.appendingPathComponent(relative).path
            }
        }
        throw .runtime(
            "cannot find the artifacts/ directory above \(starts.map(\.path).joined(separator: " or ")); "
                + "set PATHFINDER_ARTIFACTS or pass the file explicitly")
    }

    /// The first `artifacts/` directory in `start` or one of its parents.
    static func directory(above start: URL) -> URL? {
        var current = start.standardizedFileURL
        while true {
            let candidate = current.appendingPathComponent("artifacts")
            var isDirectory: ObjCBool = false
            // SwiftPM keeps its own `.build/artifacts/` (binary dependencies): not ours.
            if current.lastPathComponent != ".build",
                FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory),
                isDirectory.boolValue
            {
                return candidate
            }
            let parent = current.deletingLastPathComponent()
            if parent.path == current.path { return nil }
            current = parent
        }
    }
}
