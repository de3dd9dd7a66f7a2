import Foundation

@testable import PathfinderCLI

/// Runs `pathfinder` in-process and returns the exit code, stdout and stderr.
func runPathfinder(_ argv: [String]) async -> (code: Int32, out: String, err: String) {
    let captured = CapturedConsole()
    let code = await Pathfinder.main(argv, console: captured.console)
    return (code, captured.out, captured.err)
}

/// A fixture file's path inside the test bundle.
func fixture(_ name: String) throws -> String {
    guard let url = Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil) else {
        throw FixtureMissing(name: name)
    }
    return url.path
}

struct FixtureMissing: Error { var name: String }

/// A fresh directory, removed when the value goes away.
final class Scratch {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "pathfinder-cli-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { "\(path)/\(name)" }

    func write(_ name: String, _ text: String) throws -> String {
        try Data(text.utf8).write(to: URL(fileURLWithPath: file(name)))
        return file(name)
    }

    var entries: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
}
