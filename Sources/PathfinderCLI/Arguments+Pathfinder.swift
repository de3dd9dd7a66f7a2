package import Arrival
import Diagnostics
package import Foundation
package import Geo

/// Option types shared by the commands: coordinates, times, altitudes.
extension Arguments {
    /// `--name LAT,LON` in degrees.
    package mutating func coordinateOption(_ name: String) throws(CLIError) -> Coordinate? {
        try option(name, expected: "LAT,LON in degrees (60.1712,24.9413)") {
            Arguments.coordinate($0).map { Coordinate(latitude: $0.0, longitude: $0.1) }
        }
    }

    /// A required `--name LAT,LON`.
    package mutating func requiredCoordinate(_ name: String) throws(CLIError) -> Coordinate {
        try requiredCoordinateAsTyped(name).coordinate
    }

    /// A required `--name LAT,LON`, and its text as typed (blanks around each number left
    /// out), for a message that names it: the stored numbers print as `1e-05` or `-0.0`, forms
    /// the command itself refuses.
    package mutating func requiredCoordinateAsTyped(
        _ name: String
    ) throws(CLIError) -> (coordinate: Coordinate, text: String) {
        var text = ""
        let value = try option(name, expected: "LAT,LON in degrees (60.1712,24.9413)") { raw -> Coordinate? in
            text = raw.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingWhitespace() }
                .joined(separator: ",")
            return Arguments.coordinate(raw).map { Coordinate(latitude: $0.0, longitude: $0.1) }
        }
        guard let value else { throw .usage("\(command): \(name) is required") }
        return (value, text)
    }

    /// `--now T`: an ISO 8601 time with zone, else the real clock; whole seconds, because
    /// the memory file stores whole seconds and a time must read back as it was used.
    package mutating func now() throws(CLIError) -> Date {
        let given = try option("--now", expected: "an ISO 8601 time with zone (2025-05-01T12:00:00Z)") {
            Arguments.time($0)
        }
        return Date(timeIntervalSince1970: (given ?? Date()).timeIntervalSince1970.rounded(.down))
    }

    /// Parses an ISO 8601 time that names its zone ("Z" or "+03:00").
    package static func time(_ text: String) -> Date? {
        guard text.count > 19,
            text.hasSuffix("Z") || text.dropFirst(19).contains(where: { $0 == "+" || $0 == "-" })
        else { return nil }
        // Before, "2025-02-30T00:00:00Z" was taken as 2 March.
        guard TimeDiagnostics.calendarFault(in: text) == nil else { return nil }
        return try? Date(text, strategy: .iso8601)
    }

    /// `--altitude METRES,ACCURACY`: metres above sea level (a door's: within
    /// ``BarometricAltitude/plausibleMetres``) and its accuracy in metres (≥ 0).
    package mutating func altitude() throws(CLIError) -> BarometricAltitude? {
        let altitude = try option("--altitude", expected: "METRES,ACCURACY (12.4,3.1)") {
            text -> BarometricAltitude? in
            let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 2, let metres = Arguments.decimal(parts[0].trimmingWhitespace()),
                let accuracy = Arguments.decimal(parts[1].trimmingWhitespace()), metres.isFinite,
                accuracy.isFinite,
                accuracy >= 0
            else { return nil }
            return BarometricAltitude(metres: metres, accuracy: accuracy)
        }
        // Before, 99999 m was stored with the door, and every level check then said "아래에 있어".
        if let altitude, let reason = BarometricAltitude.implausible(metres: altitude.metres) {
            throw .usage("\(command): --altitude: \(reason)")
        }
        return altitude
    }
}
