import Arrival
public import EntranceIndex
import Foundation
public import Geo
public import OSM

/// Reading the replay's side inputs: heard sentences and OSM doors.
public enum ReplayInputs {
    /// A bad line in a `--heard` file.
    public struct HeardError: Error, Sendable, CustomStringConvertible {
        public var line: Int
        public var reason: String
        public var description: String { "line \(line): \(reason)" }
    }

    /// Parses `T<TAB>text` lines (T seconds from the trace's start, ≥ 0); blank lines and
    /// `#` comments are skipped.
    public static func heard(tsv text: String) throws(HeardError) -> [Replayer.Heard] {
        var heard: [Replayer.Heard] = []
        // "\r\n" is one Character: split on it as on "\n" (before, a CRLF file was one line,
        // a comment when it started with "#", and every answer in it was lost unsaid).
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
        for (i, raw) in lines.enumerated() {
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw  // a last line ending in a lone CR
            if line.trimmingCharacters(in: .whitespaces).isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
            guard fields.count == 2 else {
                throw HeardError(line: i + 1, reason: "expected \"T<TAB>text\", got \"\(line)\"")
            }
            guard let t = Double(fields[0].trimmingCharacters(in: .whitespaces)), t.isFinite, t >= 0 else {
                throw HeardError(line: i + 1, reason: "T must be seconds ≥ 0, got \"\(fields[0])\"")
            }
            heard.append(Replayer.Heard(t: t, text: String(fields[1])))
        }
        return heard
    }

    /// The door index's answer around `center` in OSM data read whole (``DoorsInFile``): the
    /// building there and its ranked doors, as the daemon's index gives them. Before, every
    /// usable entrance within 100 m of the centre, so an extract holding the neighbours led
    /// first to a neighbour's main door.
    /// - Throws: `DoorIndexError` (see ``DoorsInFile/doors(in:source:near:radius:)``).
    public static func building(
        in data: OSMData, source: String, around center: Coordinate
    ) throws(DoorIndexError) -> DoorsNearResult {
        try DoorsInFile.doors(in: data, source: source, near: center, radius: DoorsInFile.radiusMetres)
    }

    /// The building's outline for the map (its first outer ring), if one was found.
    public static func outline(of found: DoorsNearResult) -> [Coordinate]? {
        found.building?.outline.rings.first { $0.role == .outer && $0.points.count >= 3 }?.points
    }
}
