public import Foundation
public import Geo

/// One position solution from a receiver: where, when, and how sure.
///
/// Every optional value is *unknown* when `nil` — never 0. Accuracies are 1σ-style
/// estimates in metres (see `docs/positioning.md` for where each comes from).
public struct Fix: Sendable, Hashable {
    /// Whether the receiver solved for height too.
    public enum Mode: String, Sendable, Hashable, Codable {
        /// Latitude and longitude only.
        case twoD = "2d"
        /// Latitude, longitude and height.
        case threeD = "3d"
    }

    /// The epoch's UTC time, from the receiver (date from RMC/ZDA). Deterministic: replaying
    /// the same log gives the same times.
    public var time: Date
    /// WGS84 position, degrees.
    public var coordinate: Coordinate
    public var mode: Mode
    /// Height above mean sea level (the receiver's geoid), metres.
    public var altitudeMSL: Double?
    /// Height above the WGS84 ellipsoid, metres.
    public var altitudeHAE: Double?
    /// Horizontal position error estimate, metres (radial, ≈1σ).
    public var horizontalAccuracy: Double?
    /// Vertical position error estimate, metres (≈1σ).
    public var verticalAccuracy: Double?
    /// Speed over ground, metres per second.
    public var speed: Double?
    /// Course over ground, degrees clockwise from true north, 0..<360.
    public var course: Double?

    public init(
        time: Date, coordinate: Coordinate, mode: Mode, altitudeMSL: Double? = nil,
        altitudeHAE: Double? = nil, horizontalAccuracy: Double? = nil,
        verticalAccuracy: Double? = nil, speed: Double? = nil, course: Double? = nil
    ) {
        self.time = time
        self.coordinate = coordinate
        self.mode = mode
        self.altitudeMSL = altitudeMSL
        self.altitudeHAE = altitudeHAE
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.speed = speed
        self.course = course
    }

    /// Whether every value lies in its valid range (the parser never emits one that does not).
    public var isPlausible: Bool {
        func ok(_ v: Double?, _ range: ClosedRange<Double>) -> Bool { v.map { range.contains($0) } ?? true }
        return coordinate.isValid
            && ok(altitudeMSL, -1_000...100_000) && ok(altitudeHAE, -1_000...100_000)
            && ok(horizontalAccuracy, 0.000_001...1_000_000) && ok(verticalAccuracy, 0.000_001...1_000_000)
            && ok(speed, 0...2_000) && (course.map { $0 >= 0 && $0 < 360 } ?? true)
    }
}

/// One air-pressure measurement.
public struct PressureReading: Sendable, Hashable {
    /// Where the reading came from.
    public enum Source: String, Sendable, Hashable, Codable, CaseIterable {
        /// NMEA `$--XDR` transducer sentence, type P.
        case nmeaXDR = "nmea-xdr"
        /// NMEA `$--MDA` meteorological composite.
        case nmeaMDA = "nmea-mda"
        /// NMEA `$--MMB` barometer.
        case nmeaMMB = "nmea-mmb"
        /// Garmin `$PGRMZ` barometric altitude, turned back into pressure (standard atmosphere).
        case pgrmz = "nmea-pgrmz"
        /// Linux IIO sysfs pressure sensor.
        case iio
    }

    /// When it was measured: the NMEA epoch's time, or the reading's wall-clock time; `nil`
    /// when unknown (e.g. before the first dated NMEA epoch).
    public var time: Date?
    /// Pressure in hectopascals.
    public var hPa: Double
    public var source: Source

    public init(time: Date?, hPa: Double, source: Source) {
        self.time = time
        self.hPa = hPa
        self.source = source
    }

    /// Pressures a walker on Earth can meet, hPa (Everest's summit ≈ 330 hPa).
    public static let plausibleHPa: ClosedRange<Double> = 250...1_100
}

/// What a position source reports, in order.
public enum PositionEvent: Sendable, Hashable {
    /// A valid 2D/3D fix.
    case fix(Fix)
    /// The receiver reported an epoch without a fix (RMC V, GGA quality 0, gpsd mode < 2);
    /// `time` when the epoch's date and time are known.
    case noFix(time: Date?)
    /// A barometer reading.
    case pressure(PressureReading)
}
