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
        .systemLibrary(
            name: "CPocketSphinx", pkgConfig: "pocketsphinx",
            providers: [.apt(["libpocketsphinx-dev", "libsphinxbase-dev", "pocketsphinx-en-us"])]
        ),
        .systemLibrary(name: "CEspeakNG", pkgConfig: "espeak-ng", providers: [.apt(["libespeak-ng-dev"])]),
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        // WebRTC's noise suppression is C++: three C functions for Swift (docs/speech.md). Its
        // pkg-config file's flags by hand: SwiftPM drops a pkg-config file's defines.
        .target(
            name: "CNoiseSuppression",
            cxxSettings: [
                .define("WEBRTC_POSIX"), .define("WEBRTC_AUDIO_PROCESSING_ONLY_BUILD"),
                .unsafeFlags(["-I/usr/include/webrtc_audio_processing"]),
            ],
            linkerSettings: [.linkedLibrary("webrtc_audio_processing")]),
        // Linux's <linux/input.h> (evdev buttons): kernel headers, no library.
        .systemLibrary(name: "CInput", providers: [.apt(["linux-libc-dev"])]),

        // MARK: I/O at the edges
        .target(name: "SystemCalls"),
        // The one wording of bad input (JSON, XML, unreadable files) for every reader.
        .target(name: "Diagnostics"),
        .target(name: "SQLite", dependencies: ["CSQLite"]),
        .target(name: "OSM", dependencies: ["Geo", "Diagnostics"]),
        .target(name: "Storage", dependencies: ["Arrival", "Geo", "SystemCalls", "Diagnostics"]),
        // Test-only: saves a memory in a loop until killed (StorageTests' SIGKILL test).
        .executableTarget(name: "memory-writer", dependencies: ["Storage", "Arrival", "Geo"]),
        .target(name: "Positioning", dependencies: ["Geo", "SystemCalls"]),
        .target(
            name: "Speech",
            dependencies: [
                "Arrival", "Geo", "Diagnostics", "CPocketSphinx", "CEspeakNG", "CALSA", "CNoiseSuppression",
            ]),
        .target(name: "Gazetteer", dependencies: ["Geo", "SQLite", "Diagnostics"]),
        .target(
            name: "EntranceIndex",
            dependencies: ["Geo", "Arrival", "OSM", "SQLite", "Storage", "SystemCalls", "Diagnostics"]),
        .target(
            name: "Daemon",
            dependencies: [
                "Geo", "Arrival", "Storage", "Positioning", "Speech", "Gazetteer", "EntranceIndex", "SQLite",
                "SystemCalls", "Diagnostics", "CInput",
            ]),

        .target(name: "Replay", dependencies: ["Arrival", "Geo", "Positioning", "OSM", "EntranceIndex"]),

        // MARK: Command line
        .target(
            name: "PathfinderCLI",
            dependencies: [
                "Geo", "Arrival", "OSM", "Storage", "Positioning", "Speech", "Replay", "EntranceIndex",
                "Daemon", "Gazetteer", "SystemCalls", "Diagnostics",
            ]),
        .executableTarget(
            name: "pathfinder", dependencies: ["PathfinderCLI"], linkerSettings: [.linkedLibrary("mimalloc")]),
        .executableTarget(
            name: "PositioningBench", dependencies: ["Positioning", "Geo"],
            path: "Benchmarks/PositioningBench"),

        // MARK: Benchmarks (release builds, run by Scripts/voice-eval and Scripts/bench-*)
        .executableTarget(
            name: "VoiceEval", dependencies: ["Speech", "Arrival", "Geo", "SystemCalls", "Diagnostics"],
            linkerSettings: [.linkedLibrary("mimalloc")]),
        .executableTarget(
            name: "SpatialBench", dependencies: ["Geo", "EntranceIndex", "OSM", "Arrival", "SystemCalls"]),
        .executableTarget(
            name: "DoorsBench", dependencies: ["EntranceIndex", "Geo", "SystemCalls"],
            path: "Benchmarks/DoorsBench"),

        // MARK: Tests
        // Shared by the test targets: a real gpsd on a private port, the built executables.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "GeoTests", dependencies: ["Geo"]),
        .testTarget(name: "ArrivalTests", dependencies: ["Arrival", "Geo"]),
        .testTarget(name: "SQLiteTests", dependencies: ["SQLite"]),
        .testTarget(name: "SystemCallsTests", dependencies: ["SystemCalls"]),
        .testTarget(name: "DiagnosticsTests", dependencies: ["Diagnostics"]),
        .testTarget(name: "OSMTests", dependencies: ["OSM", "Geo"]),
        .testTarget(name: "StorageTests", dependencies: ["Storage", "Arrival", "Geo", "TestSupport"]),
        .testTarget(
            name: "PositioningTests",
            dependencies: ["Positioning", "Geo", "TestSupport"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "ReplayTests",
            dependencies: ["Replay", "Arrival", "EntranceIndex", "Geo", "Positioning", "OSM", "TestSupport"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(name: "SpeechTests", dependencies: ["Speech", "Arrival", "Geo", "TestSupport"]),
        // The benchmark's own decisions, on its values; its runs are SpeechTests' (the binary).
        .testTarget(name: "VoiceEvalTests", dependencies: ["VoiceEval"]),
        .testTarget(
            name: "DaemonTests",
            dependencies: ["Daemon", "Arrival", "Geo", "Speech", "Storage", "TestSupport"],
            resources: [.copy("Fixtures")]),
        .testTarget(
            name: "GazetteerTests",
            dependencies: ["Gazetteer", "Geo", "SQLite"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "EntranceIndexTests",
            dependencies: ["EntranceIndex", "OSM", "Arrival", "Geo", "SQLite", "TestSupport"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "PathfinderCLITests",
            dependencies: [
                "PathfinderCLI", "Arrival", "Daemon", "Geo", "Replay", "Speech", "Storage", "TestSupport",
            ],
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Strictness for every target in one place, as apple/swift-log does.
for target in package.targets where target.type != .system && target.name != "CNoiseSuppression" {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("MemberImportVisibility"),
            .enableUpcomingFeature("InternalImportsByDefault"),
        ]
}
