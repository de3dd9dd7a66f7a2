import Arrival
import EntranceIndex
import Foundation
import Gazetteer
import Geo
import SQLite

/// The daemon's read-only databases, opened on first use and kept: the door indexes (OSM's
/// doors around a destination, buildings by name or address) and the gazetteer
/// (`go {"query"}`, `where`). Used only on the loop (one SQLite connection each, not shared
/// between threads).
final class DaemonLookups {
    /// A destination farther than this from the walker's fix is refused unless the request
    /// says `"far": true`: a walk to a door is a walk, and "Paris" from Helsinki is a typo
    /// or the wrong Paris.
    static let farMetres = 50_000.0

    private let doorsPath: String?
    private let gazetteerPath: String?
    private var doorIndexes: DoorIndexes?
    private var gazetteer: GazetteerDatabase?

    init(doors: String?, gazetteer: String?) {
        doorsPath = doors
        gazetteerPath = gazetteer
    }

    /// OSM's ranked doors of the building at `destination`'s centre, from the index
    /// covering it.
    /// - Throws: a message naming the index when there is none, it cannot be read, or no
    ///   index covers the destination.
    func doors(for destination: Destination) throws(LookupError) -> [Door] {
        guard let doorsPath else { throw LookupError("no door index configured (\"doors\")") }
        do {
            return try openDoors().doors(near: destination.center).doors
        } catch {
            throw LookupError("door index \(doorsPath): \(error)")
        }
    }

    /// One place a query found.
    struct Found {
        var destination: Destination
        /// Where it came from: "doors" (a building of the door index) or "gazetteer".
        var source: String
        var address: String?
        /// "way/49209325", for a building.
        var osm: String?
        /// Metres from the walker's fix; nil without one.
        var metres: Double?

        /// The reply's description of it.
        var json: JSONValue {
            var fields: [String: JSONValue] = [
                "name": .string(destination.name), "source": .string(source),
                "center": .from(destination.center),
            ]
            if let address { fields["address"] = .string(address) }
            if let osm { fields["osm"] = .string(osm) }
            if let metres { fields["metres"] = .number((metres).rounded()) }
            return .object(fields)
        }
    }

    /// What `go QUERY` chose, and what else matched.
    struct GoAnswer {
        var chosen: Found
        /// Up to three other matches, best first, for a companion app to offer.
        var alternatives: [Found]
        /// Whether a fix ordered the matches by distance (without one: the best text match).
        var nearFix: Bool
    }

    /// The destination for `query` near the walker at `fix`.
    ///
    /// The door indexes first (the index nearest the fix; the best text match, nearest the
    /// fix): an exact name or address wins; then a gazetteer place of exactly that name;
    /// then any other door-index match; then any gazetteer match. A destination more than
    /// ``farMetres`` from the fix is refused unless `far`.
    /// - Throws: nothing found, the distance when too far, or a database failure.
    func destination(for query: String, near fix: Coordinate?, far: Bool) throws(LookupError) -> GoAnswer {
        var doorMatches: [Found] = []
        var exactDoor = false
        // A missing or unreadable door index does not stop the gazetteer from answering;
        // its reason is told only when nothing is found.
        var doorFailure: String?
        if let doorsPath {
            do {
                let matches = try openDoors().search(query, near: fix, limit: 4)
                exactDoor = matches.first?.quality == .exact
                doorMatches = matches.map { m in
                    Found(
                        destination: Destination(
                            name: m.building.name ?? m.address ?? query, center: m.building.centroid),
                        source: "doors", address: m.address, osm: m.osm, metres: m.metres)
                }
            } catch {
                doorFailure = "door index \(doorsPath): \(error)"
            }
        }
        var places: [Found] = []
        var exactPlace = false
        if !exactDoor && gazetteerPath != nil {
            let hits: [SearchHit]
            do {
                hits = try openGazetteer().search(query, limit: 5)
            } catch let error as LookupError {
                throw error
            } catch {
                throw LookupError("gazetteer search: \(error)")
            }
            places = hits.compactMap { hit in
                guard let lat = hit.lat, let lon = hit.lon else { return nil }
                let center = Coordinate(latitude: lat, longitude: lon)
                return Found(
                    destination: Destination(name: hit.name, center: center), source: "gazetteer",
                    address: nil, osm: nil, metres: fix.map { center.distance(to: $0) })
            }
            // Of equally named places, the one near the walker.
            if let near = places.firstIndex(where: { ($0.metres ?? .infinity) <= Self.farMetres }), near > 0,
                Fold.fold(places[near].destination.name) == Fold.fold(places[0].destination.name)
            {
                places.insert(places.remove(at: near), at: 0)
            }
            exactPlace = places.first.map { Fold.fold($0.destination.name) == Fold.fold(query) } ?? false
        }
        let ordered = exactDoor || !exactPlace ? doorMatches + places : places + doorMatches
        guard let chosen = ordered.first else {
            throw LookupError(
                "no place called \"\(query)\" in the gazetteer or the door index"
                    + (doorFailure.map { " (\($0))" } ?? ""))
        }
        if let metres = chosen.metres, metres > Self.farMetres, !far {
            let km = Int((metres / 1000).rounded())
            throw LookupError(
                "\"\(query)\" found \(chosen.destination.name), \(km) km away: more than "
                    + "\(Int(Self.farMetres / 1000)) km from here; send \"far\": true to walk there anyway")
        }
        return GoAnswer(
            chosen: chosen, alternatives: Array(ordered.dropFirst().prefix(3)), nearFix: fix != nil)
    }

    /// The place at `point` (country, region, nearest city, airport) as the gazetteer's
    /// `where` answer. By SQL on each call (`ReferenceGeocoder`, the same answers): the fast
    /// path's in-memory world (35 MB) is for batches, not an all-day process.
    func place(at point: Coordinate) throws(LookupError) -> JSONValue {
        do {
            let text = try ReferenceGeocoder(database: try openGazetteer()).locate(point).json
            return try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        } catch let error as LookupError {
            throw error
        } catch {
            throw LookupError("gazetteer: \(error)")
        }
    }

    private func openDoors() throws -> DoorIndexes {
        if let doorIndexes { return doorIndexes }
        guard let doorsPath else { throw LookupError("no door index configured (\"doors\")") }
        let opened = try DoorIndexes(path: doorsPath)
        doorIndexes = opened
        return opened
    }

    private func openGazetteer() throws -> GazetteerDatabase {
        if let gazetteer { return gazetteer }
        guard let gazetteerPath else { throw LookupError("no gazetteer configured (\"gazetteer\")") }
        guard FileManager.default.fileExists(atPath: gazetteerPath) else {
            throw LookupError("gazetteer \(gazetteerPath): no such file")
        }
        let opened = try GazetteerDatabase(path: gazetteerPath)
        gazetteer = opened
        return opened
    }
}

/// Why a lookup gave nothing; the message goes into an error reply or the log.
struct LookupError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
