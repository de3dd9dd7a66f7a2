package import Foundation

/// Finds Pathfinder's read-only data — the door index, the gazetteer (both in `artifacts/`)
/// and the phrase model (`models/`) — the same way for every command and the daemon, from
/// any working directory:
///
/// 1. `$PATHFINDER_DATA` (a directory holding `artifacts/` and `models/`);
/// 2. else `../share/pathfinder` beside the executable, where `Scripts/install` puts them
///    (`P/bin/pathfinder` finds `P/share/pathfinder/`);
/// 3. else the checkout the executable was built in: the first parent of the executable
///    holding `artifacts/` (`.build/release/pathfinder` sits three levels below it; SwiftPM's
///    own `.build/artifacts/` is skipped).
///
/// `PATHFINDER_ARTIFACTS` (the `artifacts/` directory itself) and `PATHFINDER_MODELS` (the
/// models directory) still name one of the two outright.
package enum Artifacts {
    /// The path of `relative` (e.g. "doors/helsinki.db") inside the artifacts directory.
    /// - Throws: `CLIError.runtime` saying where it looked when there is none.
    package static func path(
        _ relative: String, environment: [String: String] = ProcessInfo.processInfo.environment,
        executable: String = executablePath()
    ) throws(CLIError) -> String {
        if let directory = environment["PATHFINDER_ARTIFACTS"], !directory.isEmpty {
            return URL(fileURLWithPath: directory).appendingPathComponent(relative).path
        }
        guard let data = dataDirectory(environment: environment, executable: executable) else {
            throw .runtime(
                "cannot find Pathfinder's data (looked in $PATHFINDER_DATA, "
                    + "\(installedDirectory(executable: executable).path) and above \(executable)); "
                    + "set PATHFINDER_DATA or pass the file explicitly")
        }
        return data.appendingPathComponent("artifacts").appendingPathComponent(relative).path
    }

    /// The phrase model's directory (`models/` of the data directory), or nil when there is
    /// no data directory; `$PATHFINDER_MODELS` names it outright.
    package static func models(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        executable: String = executablePath()
    ) -> String? {
        if let directory = environment["PATHFINDER_MODELS"], !directory.isEmpty { return directory }
        return dataDirectory(environment: environment, executable: executable)?
            .appendingPathComponent("models").path
    }

    /// The gazetteer (`artifacts/gazetteer/gazetteer.sqlite`); where an install would hold it
    /// when there is no data directory, so the error that follows names that place (before, a
    /// relative path: the working directory's copy, if any, was used instead).
    package static func gazetteer(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        executable: String = executablePath()
    ) -> String {
        let relative = "gazetteer/gazetteer.sqlite"
        return (try? path(relative, environment: environment, executable: executable))
            ?? installedDirectory(executable: executable).appendingPathComponent("artifacts/" + relative).path
    }

    /// The data directory by the three rules above, or nil when none exists.
    package static func dataDirectory(
        environment: [String: String], executable: String
    ) -> URL? {
        if let directory = environment["PATHFINDER_DATA"], !directory.isEmpty {
            return URL(fileURLWithPath: directory)
        }
        let installed = installedDirectory(executable: executable)
        if isDirectory(installed.appendingPathComponent("artifacts"))
            || isDirectory(installed.appendingPathComponent("models"))
        {
            return installed
        }
        let start = URL(fileURLWithPath: executable).deletingLastPathComponent()
        return directory(above: start)?.deletingLastPathComponent()
    }

    /// `../share/pathfinder` beside the executable.
    static func installedDirectory(executable: String) -> URL {
        URL(fileURLWithPath: executable).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("share/pathfinder").standardizedFileURL
    }

    /// The running executable with symbolic links resolved (`/proc/self/exe`): `argv[0]` is
    /// a bare name when the program was found on `PATH`.
    package static func executablePath() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? Bundle.main.executableURL?.resolvingSymlinksInPath().path
            ?? CommandLine.arguments.first ?? ""
    }

    /// The first `artifacts/` directory in `start` or one of its parents.
    static func directory(above start: URL) -> URL? {
        var current = start.standardizedFileURL
        while true {
            let candidate = current.appendingPathComponent("artifacts")
            // SwiftPM keeps its own `.build/artifacts/` (binary dependencies): not ours.
            if current.lastPathComponent != ".build", isDirectory(candidate) {
                return candidate
            }
            let parent = current.deletingLastPathComponent()
            if parent.path == current.path { return nil }
            current = parent
        }
    }

    private static func isDirectory(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
            && isDirectory.boolValue
    }
}
