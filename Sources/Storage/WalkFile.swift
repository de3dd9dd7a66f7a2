public import Arrival
import Diagnostics
public import Foundation
import Glibc
import SystemCalls

/// The walk a daemon is leading: the destination `go` set, and when.
///
/// JSON: `{"version": 1, "destination": Destination, "since": "2025-05-01T08:00:00Z"}`.
public struct ActiveWalk: Sendable, Hashable, Codable {
    /// The file format's version.
    public static let currentVersion = 1
    /// A walk begun longer ago than this (seconds) is not resumed at a start: a daemon down
    /// that long was stopped or the device put away, and the walker is no longer on that walk;
    /// a restart by the service manager comes within seconds.
    public static let resumeWithin: TimeInterval = 2 * 60 * 60

    public var version: Int
    public var destination: Destination
    /// When `go` set it (the wall clock): kept when the walk is resumed.
    public var since: Date
    /// The boot the walk began in (`/proc/sys/kernel/random/boot_id`); nil in files written
    /// before it was kept, or where it could not be read.
    public var bootID: String?
    /// CLOCK_BOOTTIME (seconds) when the walk began: within the same boot its age is judged by
    /// this clock, which steps of the wall clock (a Pi without a real-time clock, set by NTP
    /// during the walk) do not move.
    public var bootSeconds: Double?

    public init(destination: Destination, since: Date, boot: BootClock.Reading? = nil) {
        version = Self.currentVersion
        self.destination = destination
        self.since = since
        bootID = boot?.id
        bootSeconds = boot?.seconds
    }

    /// Whether `other` is the same walk (destination and start), whatever boot it was stamped in.
    public func isSameWalk(as other: ActiveWalk?) -> Bool {
        other.map { $0.destination == destination && $0.since == since } ?? false
    }
}

/// The boot and its clock (CLOCK_BOOTTIME: seconds since boot, suspend included, never stepped).
public enum BootClock {
    public struct Reading: Sendable, Hashable {
        public var id: String
        public var seconds: Double
        public init(id: String, seconds: Double) {
            self.id = id
            self.seconds = seconds
        }
    }

    /// This boot's id and clock now; nil when the id cannot be read (no /proc).
    public static func now() -> Reading? {
        guard
            let id = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines), !id.isEmpty
        else { return nil }
        var time = timespec()
        guard clock_gettime(CLOCK_BOOTTIME, &time) == 0 else { return nil }
        return Reading(id: id, seconds: Double(time.tv_sec) + Double(time.tv_nsec) / 1e9)
    }
}

/// The file that keeps the ``ActiveWalk`` beside the memory (`<memory>.walk`), so that a
/// daemon stopped mid-walk (SIGTERM, SIGKILL, a crash and systemd's `Restart=`) resumes it at
/// its next start instead of leaving the walker in silence. Written as the memory is: a temp
/// file, fsync, rename, mode 0600, on the device only; removed when the walk ends.
public enum WalkFile {
    /// What a start finds.
    public enum Found: Sendable, Equatable {
        /// No file: no walk was under way.
        case none
        case walk(ActiveWalk)
        /// The file did not parse: renamed aside (`<path>.corrupt-<time>`, or left where it is
        /// when that failed); the message says what and where.
        case setAside(String)
        /// The file exists but cannot be read (permissions, I/O): left as it is.
        case unreadable(String)
    }

    /// The walk file of the memory at `memory` (its link followed, as saves are): beside it.
    public static func path(forMemory memory: String) -> String {
        ((try? AtomicFile.resolvingLink(memory)) ?? memory) + ".walk"
    }

    /// Reads the walk file at `path`; one that does not parse is set aside, never fatal.
    /// - Parameter now: the time that names the set-aside file.
    public static func load(path: String, now: Date = Date()) -> Found {
        let data: Data
        do {
            // Empty: a walk file emptied in place because it could not be removed (``empty(path:)``).
            guard let bytes = try MemoryFile.bytes(path: path), !bytes.isEmpty else { return .none }
            data = bytes
        } catch {
            return .unreadable("walk file \(path): \(error.reason)")
        }
        // Worded as every JSON file Pathfinder reads (JSONDiagnostics: the line and field).
        let fault: String
        do {
            if let version = try JSONDiagnostics.versionFault(in: data, current: ActiveWalk.currentVersion) {
                fault = version.description
            } else {
                let decoder = JSONDecoder()
                decoder.dateDecodingStrategy = .iso8601
                return .walk(try decoder.decode(ActiveWalk.self, from: data))
            }
        } catch {
            fault = JSONDiagnostics.describe(error, in: data)
        }
        return .setAside(setAside(path, why: "walk file \(path): \(fault)", now: now))
    }

    /// Renames the file at `path` aside; `why` and where it went (or why it could not).
    private static func setAside(_ path: String, why: String, now: Date) -> String {
        let aside: String
        do {
            aside = try MemoryFile.setAside(path, now: now)
        } catch {
            return "\(why); could not set it aside (\(error.description))"
        }
        return "\(why); set aside as \(aside)"
    }

    /// Writes `walk` to `path` atomically, mode 0600, its folder made (0700) if missing.
    /// - Throws: `SystemCallError` naming the call and file; the old file is then untouched.
    public static func save(_ walk: ActiveWalk, path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        var bytes = [UInt8](try encoder.encode(walk))
        bytes.append(UInt8(ascii: "\n"))
        try PrivateDirectory.make(AtomicFile.split(path).directory)
        try AtomicFile.write(bytes, to: path, mode: MemoryFile.mode)
    }

    /// Removes the walk file (none there is fine).
    /// - Throws: `SystemCallError` naming the call and file.
    public static func remove(path: String) throws {
        guard unlink(path) != 0 else { return }
        let code = errno
        guard code != ENOENT else { return }
        throw SystemCallError(call: "unlink \(path)", code: code)
    }

    /// Empties the walk file in place (truncated to zero: read as no walk), for when it could
    /// not be removed or replaced (its folder immutable or read-only while the file is not).
    /// - Returns: true when emptied; false when there is no file (ENOENT): no walk to resume,
    ///   nothing to empty (before, a failure: "could not empty it either").
    /// - Throws: `SystemCallError` naming the call and file; the file is then as it was.
    @discardableResult
    public static func empty(path: String) throws -> Bool {
        guard truncate(path, 0) != 0 else { return true }
        let code = errno
        guard code != ENOENT else { return false }
        throw SystemCallError(call: "truncate \(path)", code: code)
    }
}
