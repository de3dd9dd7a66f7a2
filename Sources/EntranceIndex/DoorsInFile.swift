import Diagnostics
import Foundation
public import Geo
import Glibc
public import OSM
import SystemCalls

/// The door index's answer for an OSM file read whole (`plan --osm`, `memory osm`, `replay
/// --osm`): the file is imported into a door index in a temporary folder, asked
/// ``DoorIndex/doors(near:radius:)`` as the daemon asks its index, and the index removed.
///
/// Before, these took every usable entrance within a radius of the centre, ranked by kind
/// before distance, so a city extract led first to a neighbour's `entrance=main`; the index
/// knows whose outline each entrance lies on.
public enum DoorsInFile {
    /// With no building within 50 m, the entrances this close to the point are the doors: the
    /// radius the daemon asks its index with (``DoorIndex/doors(near:radius:)``'s default).
    public static let radiusMetres = 150.0

    /// The doors of the building at `point` in `data` (its outline's entrances and the loose
    /// ones within 3 m, ranked around its centroid), or, with no building within 50 m, the
    /// entrances within `radius` metres of the point. Data with no `entrance=*` node has no
    /// doors (and is not imported).
    /// - Parameters:
    ///   - source: the file's name, for messages.
    ///   - osm: the building ("way/2008", ``Destination/osm``) whose doors are asked for, when
    ///     known: its own, if `data` holds it, not those of the building at `point`
    ///     (``DoorIndex/doors(ofBuilding:near:radius:)``).
    /// - Throws: ``DoorIndexError``: `.badInput` for data the importer refuses, `.storage` when
    ///   the temporary folder or index cannot be made or read.
    public static func doors(
        in data: OSMData, source: String, near point: Coordinate, radius: Double, building osm: String? = nil
    ) throws(DoorIndexError) -> DoorsNearResult {
        // Two versions of an element are refused whatever the file holds (before: in a file
        // without entrances the refusal was taken for "nothing to index", exit 0).
        let data = try Self.once(data, source: source)
        // Nothing the index would hold: no doors, and no building to draw (the importer
        // refuses an index of nothing).
        guard
            data.nodes.contains(where: { $0.tags["entrance"] != nil })
                || data.ways.contains(where: { OSMDoors.isBuilding($0.tags) })
                || data.relations.contains(where: { OSMDoors.isBuilding($0.tags) })
        else {
            return DoorsNearResult(building: nil, doors: [], center: point)
        }
        let template = TemporaryFolder.path() + "/pathfinder-doors-XXXXXX"
        // Ctrl-C or a kill while it is made, read or removed leaves no folder behind (before:
        // one empty `pathfinder-doors-*` each time, also when the signal came just after it was
        // made, or between the end of the read and the folder's removal).
        let found = try RemoveOnSignal.inTemporaryFolder(template, files: ["doors.db"]) {
            (folder) throws(DoorIndexError) -> DoorsNearResult in
            let path = folder + "/doors.db"
            do throws(DoorIndexError) {
                _ = try DoorImporter.write(data, to: path, source: source, makingFolder: false)
            } catch .badInput(let error) where error.reason.hasPrefix(DoorImporter.nothingToIndex) {
                // Buildings without located nodes and no entrance: nothing to find. Only this:
                // any other refusal is the file's fault, said.
                return DoorsNearResult(building: nil, doors: [], center: point)
            }
            let index = try DoorIndex(path: path)
            do {
                return try index.doors(ofBuilding: osm, near: point, radius: radius)
            } catch {
                throw .storage(path: source, message: "cannot read the door index made from it: \(error)")
            }
        }
        guard let found else {
            let code = errno
            throw .storage(
                path: TemporaryFolder.named(),
                message: TemporaryFolder.cannotMake("a temporary folder for the door index", errno: code))
        }
        return found
    }

    /// `data` with each element once: a file written by hand or joined from two downloads may
    /// hold one twice, which a whole import refuses but one building's doors need not (before
    /// stop 43 these commands read only nodes, and took it). A copy that only lacks tags (the
    /// same place, node list or members) is the same element, and the tagged copy is kept,
    /// whichever comes first: Overpass Turbo's usual `out body; >; out skel qt;` lists each
    /// door on a building so, tagged, then bare (before: refused as two versions); the
    /// importer stores no untagged node either.
    /// - Throws: `.badInput` naming the element when its two copies differ otherwise (two
    ///   versions of it: before, the first was taken and the other dropped unsaid, whichever
    ///   was newer).
    static func once(_ data: OSMData, source: String) throws(DoorIndexError) -> OSMData {
        func once<Element: Hashable>(
            _ elements: [Element], _ kind: String, id: KeyPath<Element, Int64>,
            tags: WritableKeyPath<Element, [String: String]>, shape: String
        ) throws(DoorIndexError) -> [Element] {
            var at: [Int64: Int] = [:]
            var out: [Element] = []
            for element in elements {
                guard let i = at[element[keyPath: id]] else {
                    at[element[keyPath: id]] = out.count
                    out.append(element)
                    continue
                }
                let seen = out[i]
                var bare = element, seenBare = seen
                bare[keyPath: tags] = [:]
                seenBare[keyPath: tags] = [:]
                let (old, new) = (seen[keyPath: tags], element[keyPath: tags])
                let differs =
                    bare != seenBare ? shape : old != new && !old.isEmpty && !new.isEmpty ? "other tags" : nil
                if let differs {
                    throw .badInput(
                        OSMError(
                            path: source, element: "\(kind) \(element[keyPath: id])",
                            reason:
                                "appears twice with different content (two versions of it: \(differs)): keep one, e.g. join the files with `osmium merge`, which keeps the newer"
                        ))
                }
                if old.isEmpty { out[i] = element }
            }
            return out
        }
        return OSMData(
            nodes: try once(data.nodes, "node", id: \.id, tags: \.tags, shape: "another place"),
            ways: try once(data.ways, "way", id: \.id, tags: \.tags, shape: "other nodes"),
            relations: try once(data.relations, "relation", id: \.id, tags: \.tags, shape: "other members"))
    }
}
