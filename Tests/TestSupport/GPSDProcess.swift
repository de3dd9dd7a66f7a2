package import Foundation
import Glibc

/// A real gpsd, as a child process on a private port (never 2947), reading NMEA from a
/// TCP feeder at `tcp://127.0.0.1:FEED`. Shared by the positioning and daemon tests.
package final class GPSDProcess {
    package let process = Process()
    package let port: UInt16
    package let socketPath: String

    /// gpsd is not installed: the test fails saying how to install it.
    package struct Missing: Error, CustomStringConvertible {
        package var description: String { "gpsd is not installed: apt-get install gpsd (see Scripts/setup)" }
    }

    package static func executable() throws -> URL {
        for dir in ["/usr/sbin", "/usr/local/sbin", "/usr/bin", "/sbin"] {
            let url = URL(fileURLWithPath: dir).appendingPathComponent("gpsd")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        throw Missing()
    }

    /// Starts gpsd (`-N`, no `-n`: it opens the feed when a client sends WATCH).
    package init(port: UInt16, feed: UInt16) throws {
        self.port = port
        socketPath =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("pathfinder-gpsd-\(port)-\(getpid()).sock").path
        process.executableURL = try Self.executable()
        process.arguments = ["-N", "-S", String(port), "-F", socketPath, "tcp://127.0.0.1:\(feed)"]
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
    }

    /// Kills gpsd outright (as a crash would) and reaps it.
    package func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        unlink(socketPath)  // gpsd killed outright leaves its control socket behind
    }

    deinit { stop() }
}
