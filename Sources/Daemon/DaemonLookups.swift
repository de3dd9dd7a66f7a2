import Arrival
import EntranceIndex
import Foundation
import Gazetteer
import Geo

/// The daemon's read-only databases, opened on first use and kept: the door index (OSM's
/// doors around a destination) and the gazetteer (`go {"query"}`, `where`). Used only on
/// the loop (one SQLite connection each, not shared between threads).
final class DaemonLookups {
    private let doorsPath: String?
    private let gazetteerPath: String?
    private var doorIndex: DoorIndex?
    private var gazetteer: GazetteerDatabase?
    private var geocoder: ReverseGeocoder?

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
        guard let hit = hits.first(where: { $0.lat != nil && $0.lon != nil }), let lat = hit.lat,
            let lon = hit.lon
        else { throw LookupError("no place called \"\(query)\" in the gazetteer") }
        return Destination(name: hit.name, center: Coordinate(latitude: lat, longitude: lon))
    }

    /// The place at `point` (country, region, nearest city, airport) as the gazetteer's
    /// `where` answer.
    func place(at point: Coordinate) throws(LookupError) -> JSONValue {
        do {
            if geocoder == nil { geocoder = try ReverseGeocoder(database: try openGazetteer()) }
            let text = try geocoder!.locate(point).json
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
