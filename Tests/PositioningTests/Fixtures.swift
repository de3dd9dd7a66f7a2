import Foundation
import Testing

/// The test fixtures (see Fixtures/README.md), found through the bundle.
enum Fixtures {
    static let logs = [
        "bu353s4", "gp-320fw-2019-04-07-coldboot", "mt3339", "nmea-fuzzy-cases", "ublox-neo-m9n-nmea",
    ]

    static func url(_ relative: String) throws -> URL {
        let base = try #require(Bundle.module.resourceURL).appendingPathComponent("Fixtures")
        return base.appendingPathComponent(relative)
    }

    static func log(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: url("nmea/\(name).log")))
    }

    /// What a real gpsd 3.22 reported for a log (made by Fixtures/gpsd-expected/make-expected.py).
    struct Expected: Decodable {
        struct TPV: Decodable {
            var time: String
            var mode: Int
            var lat: Double
            var lon: Double
            var altMSL: Double?
            var altHAE: Double?
            var speed: Double?
            var track: Double?
        }
        var fixCount: Int
        var fixes: [TPV]
    }

    static func expected(_ name: String) throws -> Expected {
        try JSONDecoder().decode(Expected.self, from: Data(contentsOf: url("gpsd-expected/\(name).json")))
    }
}
