import Arrival
import EntranceIndex
import Foundation
import Gazetteer
import Geo
import SQLite

/// The daemon's read-only databases, opened on first use and kept: the door index (OSM's
/// doors around a destination) and the gazetteer (`go {"query"}`, `where`). Used only on
/// the loop (one SQLite connection each, not shared between threads).
final class DaemonLookups {
    private let doorsPath: String?
    private let gazetteerPath: String?
    private var doorIndex: DoorIndex?
    private var gazetteer: GazetteerDatabase?

    init(doors: String?, gazetteer: String?) {
        doorsPath = doors
        gazetteerPath = gazetteer
    }

    /// OSM's ranked doors of the building at `destination`'s centre.
    /// - Throws: a message naming the index when there is none or it cannot be read.
    func doors(for destination: Destination) throws(LookupError) -> [Door] {
        guard let doorsPath else { throw LookupError("no door index configured (\"doors\")") }
        do {
            if doorIndex == nil { doorIndex = try DoorIndex(path: doorsPath) }
            return try doorIndex!.doors(near: destination.center).doors
        } catch {
            throw LookupError("door index \(doorsPath): \(error)")
        }
    }

    /// The best gazetteer match for `query` as a destination (its centre; OSM's doors
    /// follow from the door index when the walk asks for them).
    func destination(for query: String) throws(LookupError) -> Destination {
        let hits: [SearchHit]
        do {
            hits = try openGazetteer().search(query, limit: 5)
        } catch let error as LookupError {
            throw error
        } catch {
            throw LookupError("gazetteer search: \(error)")
        }
        if let hit = hits.first(where: { $0.lat != nil && $0.lon != nil }), let lat = hit.lat,
            let lon = hit.lon
        {
            return Destination(name: hit.name, center: Coordinate(latitude: lat, longitude: lon))
        }
        if let building = try buildingNamed(query) { return building }
        throw LookupError("no place called \"\(query)\" in the gazetteer or the door index")
    }

    /// A named building of the door index ("Rautatieasema" is no gazetteer place but the
    /// station building "Helsingin päärautatieasema" is in the index): the largest whose
    /// name contains the query, case-insensitively.
    /// Interim: reads the index's documented `buildings` table directly, until EntranceIndex
    /// offers a name search.
    private func buildingNamed(_ query: String) throws(LookupError) -> Destination? {
        guard let doorsPath, FileManager.default.fileExists(atPath: doorsPath) else { return nil }
        do {
            let db = try Connection(path: doorsPath, mode: .readOnly(immutable: true))
            var found: Destination?
            try db.prepare(
                """
                SELECT name, centroid_lat, centroid_lon FROM buildings
                WHERE name IS NOT NULL AND centroid_lat IS NOT NULL AND instr(lower(name), lower(?)) > 0
                ORDER BY area DESC, id LIMIT 1
                """
            ).forEach([.text(query)]) { row in
                found = Destination(
                    name: row.text(0) ?? query,
                    center: Coordinate(latitude: row.double(1), longitude: row.double(2)))
            }
            return found
        } catch {
            throw LookupError("door index \(doorsPath): \(error)")
        }
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
