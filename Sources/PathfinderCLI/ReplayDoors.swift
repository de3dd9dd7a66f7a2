import Arrival
import EntranceIndex
import Geo
import OSM
import Replay

/// Where a replay's OpenStreetMap doors come from: an OSM file (`--osm`) or the door index
/// (`--doors`), the product's own path. Either way the ranked doors are found before the
/// replay starts and delivered late, as `.doorsArrived`, by the ``Replayer``.
enum ReplayDoors {
    /// An OSM XML or Overpass JSON file: its usable entrances within 100 m of the centre.
    case osm(path: String, data: OSMData)
    /// A door index: the doors of the building at the centre (`DoorIndex.doors(near:radius:)`);
    /// `skipped`, the directory's `*.db` files that are no door index, each with why.
    case index(path: String, found: DoorsNearResult, skipped: [String])

    /// Reads `path` as OSM data. Bad data names file and line: exit 2.
    static func osm(path: String, command: String) throws(CLIError) -> Self {
        do {
            return .osm(path: path, data: try OSMReader.read(path: path))
        } catch {
            throw .usage("\(command): \(error)")
        }
    }

    /// Opens the door index at `path` (a file, or a directory of them: the one nearest the
    /// centre, as `doors near` and the daemon choose) and asks it for the doors around
    /// `center`. A missing file or one that is not a door index: exit 2, naming it.
    static func index(path: String, around center: Coordinate, command: String) throws(CLIError) -> Self {
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
            // The radius only matters with no building within 50 m: then, as with --osm, the
            // entrances within 100 m of the centre.
            return .index(
                path: index.path, found: try index.doors(near: center, radius: ReplayInputs.doorRadiusMetres),
                skipped: skipped)
        } catch {
            throw .usage("\(command): --doors \(path): cannot read the door index: \(error)")
        }
    }

    /// The ranked doors, best first.
    func doors(around center: Coordinate) -> [Door] {
        switch self {
        case .osm(_, let data): ReplayInputs.doors(in: data, around: center)
        case .index(_, let found, _): found.doors
        }
    }

    /// The building's outline for the map (the index's first outer ring), if known.
    func outline(around center: Coordinate) -> [Coordinate]? {
        switch self {
        case .osm(_, let data): ReplayInputs.outline(in: data, around: center)
        case .index(_, let found, _):
            found.building?.outline.rings.first { $0.role == .outer && $0.points.count >= 3 }?.points
        }
    }

    /// One line saying where the doors came from, for stderr.
    func note(around center: Coordinate) -> String {
        switch self {
        case .osm(let path, _):
            "doors from \(path): \(doors(around: center).count) usable entrances within "
                + "\(Int(ReplayInputs.doorRadiusMetres)) m of the centre"
        case .index(let path, let found, let skipped):
            (found.building.map { b in
                "doors from the door index \(path): building \(b.kind.rawValue) \(b.id)"
                    + (b.metres > 0 ? " (\(Int(b.metres.rounded())) m away)" : "")
                    + ", \(found.doors.count) doors"
            }
                ?? "doors from the door index \(path): no building within "
                + "\(Int(DoorIndex.nearestOutlineMetres)) m; \(found.doors.count) entrances within "
                + "\(Int(ReplayInputs.doorRadiusMetres)) m")
                + skipped.map { "; warning: skipped \($0)" }.joined()
        }
    }
}
