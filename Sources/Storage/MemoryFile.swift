public import Arrival
import Diagnostics
public import Foundation
import Glibc
import SystemCalls

/// The EntranceMemory file: `{"version": 1, "buildings": [...]}` (see docs/CONTRACT.md),
/// written only by Pathfinder, mode 0600, replaced atomically, never overwritten when it
/// cannot be read.
public enum MemoryFile {
    /// Permission bits: the walker's doors are theirs alone.
    public static let mode: mode_t = 0o600

    /// Loads the memory for a program that will write it back.
    ///
    /// A missing file is an empty memory. A file that does not parse, or has a version this
    /// Pathfinder does not read, is renamed aside to `<path>.corrupt-<time>` (so the next save
    /// never overwrites it) and an empty memory is returned with the error as a warning:
    /// the walk goes on without what was remembered. A file that cannot be read at all
    /// (permissions, I/O) is left where it is, with a warning.
    /// - Parameter now: the time that names the set-aside file.
    public static func load(
        path: String, now: Date = Date()
    ) -> (
        memory: EntranceMemory, warning: MemoryFileError?
    ) {
        do {
            return (try read(path: path), nil)
        } catch var error {
            guard error.kind == .malformed else { return (EntranceMemory(), error) }
            do {
                error.setAside = try setAside(path, now: now)
            } catch let failure {
                error.reason += "; could not set it aside (\(failure.description))"
            }
            return (EntranceMemory(), error)
        }
    }

    /// Reads the memory without changing anything on disk (for read-only commands).
    /// A missing file is an empty memory.
    /// - Throws: `MemoryFileError` naming the file, line and field.
    public static func read(path: String) throws(MemoryFileError) -> EntranceMemory {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            return EntranceMemory()
        } catch {
            throw MemoryFileError(
                .unreadable, path: path, reason: "cannot read: \(FileDiagnostics.reason(error))")
        }
        return try decode(data, path: path)
    }

    /// Writes `memory` to `path` atomically (temp file in the same directory, fsync, rename,
    /// fsync of the directory), mode 0600.
    /// - Throws: `MemoryFileError` naming the system call that failed; the old file is then
    ///   untouched.
    public static func save(_ memory: EntranceMemory, path: String) throws(MemoryFileError) {
        let bytes: [UInt8]
        do {
            bytes = [UInt8](try encode(memory))
        } catch {
            throw MemoryFileError(.unwritable, path: path, reason: "cannot encode: \(error)")
        }
        do {
            try AtomicFile.write(bytes, to: path, mode: mode)
        } catch {
            throw MemoryFileError(.unwritable, path: path, reason: "cannot write: \(error.description)")
        }
    }

    /// The file's bytes: pretty-printed with sorted keys (so an error's line number points
    /// somewhere useful and two saves of one memory are identical), times ISO 8601 in UTC.
    public static func encode(_ memory: EntranceMemory) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        var data = try encoder.encode(memory)
        data.append(UInt8(ascii: "\n"))
        return data
    }

    /// Parses the file's bytes; `path` only names them in errors.
    /// - Throws: `MemoryFileError` with line and field for bad JSON, a wrong field or an
    ///   unknown version.
    public static func decode(_ data: Data, path: String) throws(MemoryFileError) -> EntranceMemory {
        struct Header: Decodable { var version: Int }
        let decoder = JSONDecoder()
        // Custom rather than `.iso8601` so that a bad time names its own field, not its parent.
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = try? Date(text, strategy: .iso8601) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "\"\(text)\" is not an ISO 8601 time with zone")
            }
            return date
        }
        do {
            let header = try decoder.decode(Header.self, from: data)
            guard header.version == EntranceMemory.currentVersion else {
                throw MemoryFileError(
                    path: path, line: JSONDiagnostics.line(of: [Key.version], in: data), field: "version",
                    reason:
                        "version \(header.version) is not one this Pathfinder reads (\(EntranceMemory.currentVersion))"
                )
            }
            return try decoder.decode(EntranceMemory.self, from: data)
        } catch let error as MemoryFileError {
            throw error
        } catch let error as DecodingError {
            let fault = JSONDiagnostics.fault(error, in: data)
            throw MemoryFileError(path: path, line: fault.line, field: fault.field, reason: fault.reason)
        } catch {
            throw MemoryFileError(
                path: path, reason: "not a memory file: \(JSONDiagnostics.describe(error, in: data))")
        }
    }

    private enum Key: String, CodingKey { case version }

    /// Renames `path` to `<path>.corrupt-<UTC time>` (with `-2`, `-3`… if taken: an earlier
    /// set-aside file is never overwritten either). Returns the new path.
    private static func setAside(_ path: String, now: Date) throws(SystemCallError) -> String {
        // Basic ISO 8601 (20250430T080000Z): sorts by time and has no ':' to trip up tools.
        let stamp =
            now.formatted(.iso8601).replacingOccurrences(of: ":", with: "")
            .replacingOccurrences(of: "-", with: "")
        var candidate = "\(path).corrupt-\(stamp)"
        var n = 1
        while access(candidate, F_OK) == 0 {
            n += 1
            candidate = "\(path).corrupt-\(stamp)-\(n)"
        }
        try retryingOnInterrupt("rename \(path) to \(candidate)") { rename(path, candidate) }
        return candidate
    }
}
