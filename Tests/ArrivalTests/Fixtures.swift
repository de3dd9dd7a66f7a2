import Arrival
import Foundation
import Geo

/// Places and times shared by the Arrival tests.
enum Place {
    /// Helsinki Central railway station, roughly its middle.
    static let station = Coordinate(latitude: 60.1712, longitude: 24.9413)
    static let t0 = Date(timeIntervalSince1970: 1_746_000_000)

    /// A point `metres` from `origin` towards `bearing` degrees.
    static func at(_ metres: Double, _ bearing: Double, from origin: Coordinate = station) -> Coordinate {
        origin.offset(metres: metres, bearing: bearing)
    }

    static func osmDoor(
        _ coordinate: Coordinate, label: String? = nil, level: String? = nil, note: String? = nil
    )
        -> Door
    {
        Door(coordinate: coordinate, source: .osm, level: level, note: note, label: label)
    }
}

extension Date {
    static func + (date: Date, seconds: TimeInterval) -> Date { date.addingTimeInterval(seconds) }
}
