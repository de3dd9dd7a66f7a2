public import Arrival
import EntranceIndex
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

    /// Doors further than this (metres) from the building's centre are another building's:
    /// an OSM extract usually holds the neighbours too.
    public static let doorRadiusMetres = 100.0

    /// OSM's ranked doors around `center` (see `OSMDoors.ranked`), within ``doorRadiusMetres``.
    public static func doors(in data: OSMData, around center: Coordinate) -> [Door] {
        OSMDoors.ranked(
            data.nodes.filter { $0.coordinate.distance(to: center) <= doorRadiusMetres }, around: center)
    }

    /// The outline of the building at `center`: the closed building way containing it (not
    /// `building=no`: ``OSMDoors/isBuilding(_:)``), else
    /// the one with a door node nearest to it; `nil` when the data has none.
    public static func outline(in data: OSMData, around center: Coordinate) -> [Coordinate]? {
        let nodes = Dictionary(data.nodes.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let rings: [[Coordinate]] = data.ways.compactMap { way in
            guard OSMDoors.isBuilding(way.tags), way.nodeIDs.count >= 4, way.nodeIDs.first == way.nodeIDs.last
            else { return nil }
            let ring = way.nodeIDs.compactMap { nodes[$0]?.coordinate }
            return ring.count == way.nodeIDs.count ? ring : nil
        }
        if let containing = rings.first(where: { contains($0, center) }) { return containing }
        return rings.min { a, b in
            (a.map { $0.distance(to: center) }.min() ?? .infinity)
                < (b.map { $0.distance(to: center) }.min() ?? .infinity)
        }.flatMap { ring in ring.map { $0.distance(to: center) }.min()! <= doorRadiusMetres ? ring : nil }
    }

    /// Even–odd ray casting in degrees: fine for one building.
    static func contains(_ ring: [Coordinate], _ p: Coordinate) -> Bool {
        var inside = false
        var j = ring.count - 1
        for i in 0..<ring.count {
            let a = ring[i]
            let b = ring[j]
            if (a.latitude > p.latitude) != (b.latitude > p.latitude),
                p.longitude
                    < (b.longitude - a.longitude) * (p.latitude - a.latitude) / (b.latitude - a.latitude)
                    + a.longitude
            {
                inside.toggle()
            }
            j = i
        }
        return inside
    }
}
