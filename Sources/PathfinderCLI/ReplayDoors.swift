import Arrival
import EntranceIndex
import Geo
import Replay

/// Where a replay's OpenStreetMap doors come from: an OSM file (`--osm`) or the door index
/// (`--doors`), the product's own path. Either way the ranked doors are found before the
/// replay starts and delivered late, as `.doorsArrived`, by the ``Replayer``.
enum ReplayDoors {
    /// An OSM XML or Overpass JSON file, imported into a door index of its own and asked as
    /// `--doors` asks (``DoorsInFile``).
    case osm(path: String, found: DoorsNearResult)
    /// A door index: the doors of the building at the centre (`DoorIndex.doors(near:radius:)`);
    /// `skipped`, the directory's `*.db` files that are no door index, each with why.
    case index(path: String, found: DoorsNearResult, skipped: [String])

    /// Reads `path` as OSM data and finds the doors of the building at `center` in it (of
    /// `building`, the destination's ``Destination/osm``, when it holds it). Bad data names
    /// file and line: exit 2.
    static func osm(
        path: String, around center: Coordinate, building: String?, command: String
    ) throws(CLIError) -> Self {
        .osm(
            path: path,
            found: try CLIFiles.osmFile(path, around: center, building: building, command: command).found)
    }

    /// Opens the door index at `path` (a file, or a directory of them: the one nearest the
    /// centre, as `doors near` and the daemon choose) and asks it for the doors around
    /// `center` (for `building`, the destination's ``Destination/osm``: its doors, when the
    /// index holds it). A missing file or one that is not a door index: exit 2, naming it.
    static func index(
        path: String, around center: Coordinate, building: String?, command: String
    ) throws(CLIError) -> Self {
        let index: DoorIndex
        let skipped: [String]
        do {
            // Before, a directory was opened as one SQLite file: "disk I/O error".
            let indexes = try DoorIndexes(path: path)
            guard let nearest = try indexes.nearest(to: center) else {
                throw CLIError.usage("\(command): --doors \(path): no door index in it")
            }
            index = nearest
            skipped = indexes.skipped.map(\.description)
        } catch let error as DoorIndexError {
            throw error.isBadInput ? .usage("\(command): --doors \(error)") : .runtime("\(command): \(error)")
        } catch let error as CLIError {
            throw error
        } catch {
            throw .runtime("\(command): \(error)")
        }
        do {
            // The radius only matters with no building within 50 m: then, as the daemon asks,
            // the entrances within 150 m of the centre.
            return .index(
                path: index.path,
                found: try index.doors(ofBuilding: building, near: center, radius: DoorsInFile.radiusMetres),
                skipped: skipped)
        } catch {
            throw .usage("\(command): --doors \(path): cannot read the door index: \(error)")
        }
    }

    /// What was found: the building and its ranked doors.
    var found: DoorsNearResult {
        switch self {
        case .osm(_, let found), .index(_, let found, _): found
        }
    }

    /// OSM's answer, as the replay delivers it: the building's doors, or, with no building
    /// within 50 m of the centre, the entrances near it (not remembered).
    var answer: OSMAnswer { found.answer }

    /// The building's outline for the map (its first outer ring), if known.
    var outline: [Coordinate]? { ReplayInputs.outline(of: found) }

    /// One line saying where the doors came from, for stderr.
    var note: String {
        let source =
            switch self {
            case .osm(let path, _): "doors from \(path)"
            case .index(let path, _, _): "doors from the door index \(path)"
            }
        let warnings =
            switch self {
            case .osm: ""
            case .index(_, _, let skipped): skipped.map { "; warning: skipped \($0)" }.joined()
            }
        if let b = found.building {
            return source + ": building \(b.kind.rawValue) \(b.id)"
                + (b.metres > 0 ? " (\(Int(b.metres.rounded())) m away)" : "")
                + ", \(found.doors.count) doors" + warnings
        }
        return source + ": no building within \(Int(DoorIndex.nearestOutlineMetres)) m; "
            + "\(found.doors.count) entrances within \(Int(DoorsInFile.radiusMetres)) m" + warnings
    }
}
