public import Foundation
import Geo

/// One line of the contract's fix stream: `{"type":"fix",…}` or `{"type":"pressure",…}`.
///
/// Unknown values are absent (never 0). `time` is ISO 8601 UTC, with milliseconds only
/// when the epoch has a fraction of a second (10 Hz receivers).
public struct FixStreamRecord: Sendable, Hashable, Codable {
    /// "fix" or "pressure".
    public var type: String
    public var time: String?
    /// Degrees.
    public var lat: Double?
    /// Degrees.
    public var lon: Double?
    /// "2d" or "3d".
    public var mode: String?
    /// Metres above mean sea level.
    public var altitudeMSL: Double?
    /// Metres above the WGS84 ellipsoid.
    public var altitudeHAE: Double?
    /// Metres.
    public var horizontalAccuracy: Double?
    /// Metres.
    public var verticalAccuracy: Double?
    /// Metres per second.
    public var speed: Double?
    /// Degrees from true north.
    public var course: Double?
    /// Hectopascals.
    public var hPa: Double?
    /// "nmea-xdr", "nmea-mda", "nmea-mmb", "nmea-pgrmz" or "iio".
    public var source: String?

    /// The record for `event`; `nil` for `.noFix`, which the stream does not carry.
    public init?(_ event: PositionEvent) {
        switch event {
        case .fix(let f):
            type = "fix"
            time = UTCTime.iso8601(f.time)
            lat = Self.roundDegrees(f.coordinate.latitude)
            lon = Self.roundDegrees(f.coordinate.longitude)
            mode = f.mode.rawValue
            altitudeMSL = f.altitudeMSL.map(Self.round)
            altitudeHAE = f.altitudeHAE.map(Self.round)
            horizontalAccuracy = f.horizontalAccuracy.map(Self.roundAccuracy)
            verticalAccuracy = f.verticalAccuracy.map(Self.roundAccuracy)
            speed = f.speed.map(Self.round)
            course = f.course.map(Self.unsigned)
        case .pressure(let p):
            type = "pressure"
            time = p.time.map(UTCTime.iso8601)
            hPa = Self.round(p.hPa)
            source = p.source.rawValue
        case .noFix:
            return nil
        }
    }

    /// Millimetre (and 0.001 hPa) resolution: derived values would otherwise print as
    /// 0.30865999999999997. Never -0 (a value a hair below zero).
    private static func round(_ v: Double) -> Double { unsigned((v * 1000).rounded() / 1000) }
    /// An accuracy to the millimetre, never 0 when it is positive: 0 claims a perfect fix
    /// (before, a survey-grade σ of 0.4 mm printed as 0).
    private static func roundAccuracy(_ v: Double) -> Double { v > 0 ? max(round(v), 0.001) : round(v) }
    /// 1e-9 degrees (0.1 mm), as gpsd prints them; never -0.
    private static func roundDegrees(_ v: Double) -> Double { unsigned((v * 1e9).rounded() / 1e9) }
    /// 0 for -0, which JSON prints as "-0" (before: `"lat":-0` a hair south of the equator).
    private static func unsigned(_ v: Double) -> Double { v == 0 ? 0 : v }

    /// Formats a time as the stream does (ISO 8601 UTC, milliseconds when non-zero).
    public static func timeString(_ date: Date) -> String { UTCTime.iso8601(date) }

    /// Parses a time the stream (or gpsd) wrote.
    public static func parseTime(_ text: String) -> Date? { UTCTime.parseISO8601(text) }
}
