// swift-tools-version:6.0
import PackageDescription

// Each module owns one domain; dependencies point one way (see docs/ARCHITECTURE.md).
let package = Package(
    name: "Pathfinder",
    products: [
        .executable(name: "pathfinder", targets: ["pathfinder"])
    ],
    targets: [
        // MARK: Pure core
        .target(name: "Geo"),
        .target(name: "Arrival", dependencies: ["Geo"]),

        // MARK: C libraries from Debian
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),

        // MARK: I/O at the edges
        .target(name: "SQLite", dependencies: ["CSQLite"]),
        .target(name: "OSM", dependencies: ["Geo", "Arrival"]),
        .target(name: "Gazetteer", dependencies: ["Geo", "SQLite"]),

        // MARK: Command line
        .target(name: "PathfinderCLI", dependencies: ["Geo", "Arrival", "Gazetteer"]),
        .executableTarget(name: "pathfinder", dependencies: ["PathfinderCLI"]),

        // MARK: Tests
        .testTarget(name: "GeoTests", dependencies: ["Geo"]),
        .testTarget(name: "ArrivalTests", dependencies: ["Arrival", "Geo"]),
        .testTarget(name: "SQLiteTests", dependencies: ["SQLite"]),
        .testTarget(name: "OSMTests", dependencies: ["OSM", "Arrival", "Geo"]),
        .testTarget(
            name: "GazetteerTests",
            dependencies: ["Gazetteer", "Geo", "SQLite"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "PathfinderCLITests",
            dependencies: ["PathfinderCLI", "Arrival", "Geo"],
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Strictness for every target in one place, as apple/swift-log does.
for target in package.targets where target.type != .system {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("MemberImportVisibility"),
            .enableUpcomingFeature("InternalImportsByDefault"),
        ]
}
