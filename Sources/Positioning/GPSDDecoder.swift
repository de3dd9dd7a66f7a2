import Foundation
import Geo

/// Turns gpsd's output (JSON objects and raw NMEA, one a line) into position events.
///
/// TPV → `.fix` (mode 2/3) or `.noFix` (mode 0/1); GST's latitude/longitude/altitude σ
/// (metres, 1σ) replace gpsd's `eph`/`epv` for the TPV of the same time, because gpsd 3.22
/// computes `eph` from HDOP alone. gpsd 3.22 sends an epoch's GST after its TPV: once a GST
/// has been seen to follow its TPV, each TPV is held until its GST, the next TPV, or
/// ``releaseHeld()`` (the client calls it when gpsd has been quiet for a poll, 0.1 s), so a
/// fix waits only for the rest of its own burst (before, each fix took the previous epoch's
/// GST, a second old). gpsd's `eph`/`epv` are 95 % figures;
/// they are halved to the ≈1σ the rest of Pathfinder uses. Raw `$…` lines go through an
/// `NMEAParser` for their pressure sentences only. Everything else is ignored.
struct GPSDDecoder {
    private struct Message: Decodable {
        var `class`: String
        var mode: Int?
        var time: String?
        var lat: Double?
        var lon: Double?
        var alt: Double?
        var altMSL: Double?
        var altHAE: Double?
        var eph: Double?
        var epx: Double?
        var epy: Double?
        var epv: Double?
        var speed: Double?
        var track: Double?
    }

    private struct Sigma {
        var time: Date
        var horizontal: Double?
        var vertical: Double?
    }

    /// gpsd's lines are short; anything longer than this without a newline is garbage.
    static let maximumLineLength = 65_536

    private var line: [UInt8] = []
    private var nmea = NMEAParser()
    private var lastGST: Sigma?
    /// A TPV's fix waiting for its GST.
    private var held: Fix?
    /// Learnt: this gpsd sends an epoch's GST after its TPV (gpsd 3.22 does), so a TPV is
    /// worth holding. Forgotten when a held TPV's GST does not come before the next TPV.
    private var gstFollowsTPV = false
    /// The time of the last TPV with a fix, to see a GST arrive after it.
    private var lastTPVTime: Date?
    /// The last fix passed on: gpsd repeats a new receiver's first epoch once a sentence
    /// until it knows which sentence ends the cycle, and a repeat that adds nothing is not
    /// another fix (`fixes --gpsd` counted one epoch seven times).
    private var lastFix: Fix?
    private let decoder = JSONDecoder()

    /// Passes on a fix held for its GST, with gpsd's own accuracy.
    mutating func releaseHeld() -> [PositionEvent] {
        var events: [PositionEvent] = []
        if let fix = held {
            held = nil
            emit(fix, &events)
        }
        return events
    }

    /// Forgets a half-read line (after a reconnect).
    mutating func reset() {
        line.removeAll(keepingCapacity: true)
        nmea = NMEAParser()
    }

    mutating func feed(_ bytes: some Collection<UInt8>) -> [PositionEvent] {
        var events: [PositionEvent] = []
        for b in bytes {
            if b == 0x0A {
                handle(&events)
                line.removeAll(keepingCapacity: true)
            } else if line.count < Self.maximumLineLength {
                line.append(b)
            }
        }
        return events
    }

    private mutating func handle(_ events: inout [PositionEvent]) {
        guard let first = line.first else { return }
        if first == 0x24 || first == 0x21 {
            for case .pressure(let p) in nmea.feed(line + [0x0A]) { events.append(.pressure(p)) }
            return
        }
        guard first == 0x7B, let m = try? decoder.decode(Message.self, from: Data(line)) else { return }
        switch m.class {
        case "TPV": tpv(m, &events)
        case "GST":
            guard let time = m.time.flatMap(UTCTime.parseISO8601) else { return }
            var h: Double?
            if let a = m.lat, let b = m.lon, a > 0, b > 0, a.isFinite, b.isFinite {
                h = (a * a + b * b).squareRoot()
            }
            let v = m.alt.flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
            let sigma = Sigma(time: time, horizontal: h, vertical: v)
            lastGST = sigma
            if let fix = held, Self.sameEpoch(fix.time, time) {
                held = nil
                emit(Self.applying(sigma, to: fix), &events)
            } else if let t = lastTPVTime, Self.sameEpoch(t, time) {
                gstFollowsTPV = true  // its TPV went out without it: hold the next ones
            }
        default: break
        }
    }

    private mutating func tpv(_ m: Message, _ events: inout [PositionEvent]) {
        let time = m.time.flatMap(UTCTime.parseISO8601)
        if let fix = held {
            // Its GST did not come before the next report: unless that is the same epoch again
            // (gpsd repeats a new receiver's first), this gpsd no longer sends one after.
            held = nil
            emit(fix, &events)
            if time.map({ !Self.sameEpoch($0, fix.time) }) ?? true { gstFollowsTPV = false }
        }
        guard let mode = m.mode, mode >= 2, let time, let lat = m.lat, let lon = m.lon else {
            if m.mode != nil { events.append(.noFix(time: time)) }
            return
        }
        lastTPVTime = time
        let threeD = mode >= 3
        var fix = Fix(
            time: time, coordinate: Coordinate(latitude: lat, longitude: lon), mode: threeD ? .threeD : .twoD)
        func positive(_ v: Double?) -> Double? { v.flatMap { $0 > 0 && $0.isFinite ? $0 : nil } }
        let eph = positive(m.eph) ?? positive(max(m.epx ?? 0, m.epy ?? 0))
        fix.horizontalAccuracy = eph.map { $0 / 2 }
        if threeD {
            fix.altitudeMSL = m.altMSL ?? m.alt
            fix.altitudeHAE = m.altHAE
            fix.verticalAccuracy = positive(m.epv).map { $0 / 2 }
        }
        fix.speed = m.speed.flatMap { $0 >= 0 ? $0 : nil }
        fix.course = m.track.flatMap { $0 >= 0 && $0 < 360 ? $0 : nil }
        if let gst = lastGST, Self.sameEpoch(gst.time, time) {
            emit(Self.applying(gst, to: fix), &events)
        } else if gstFollowsTPV {
            held = fix
        } else {
            emit(fix, &events)
        }
    }

    private mutating func emit(_ fix: Fix, _ events: inout [PositionEvent]) {
        if fix.isPlausible, fix != lastFix {
            events.append(.fix(fix))
            lastFix = fix
        }
    }

    /// GST and TPV of one epoch carry the same time stamp; a millisecond covers rounding.
    private static func sameEpoch(_ a: Date, _ b: Date) -> Bool { abs(a.timeIntervalSince(b)) < 0.001 }

    private static func applying(_ gst: Sigma, to fix: Fix) -> Fix {
        var fix = fix
        fix.horizontalAccuracy = gst.horizontal ?? fix.horizontalAccuracy
        if fix.mode == .threeD { fix.verticalAccuracy = gst.vertical ?? fix.verticalAccuracy }
        return fix
    }
}
