import Foundation
import Geo

/// Turns gpsd's output (JSON objects and raw NMEA, one a line) into position events.
///
/// TPV → `.fix` (mode 2/3) or `.noFix` (mode 0/1), passed on at once, held only on a new
/// receiver's first epoch (below) and, dead reckoning alone without its σ (no fix as it
/// stands), for the GST of its time that gpsd sends after it. GST's
/// latitude/longitude/altitude σ (metres, 1σ) replace gpsd's `eph`/`epv` (gpsd 3.22 computes
/// `eph` from HDOP alone): the GST of the TPV's own time when it came first, else the latest
/// within ``gstReach`` — gpsd 3.22 sends an epoch's GST after its TPV, so that is usually the
/// previous epoch's, an epoch late in accuracy but never in position. (A hold for the GST
/// after, released by quiet on the link, made every other fix a second late on a busy link
/// with GST on some epochs.) gpsd's `eph`/`epv` are 95 % figures; they are halved to the ≈1σ
/// the rest of Pathfinder uses. Raw `$…` lines go through an `NMEAParser` for their
/// pressure sentences and for what each epoch's sentences said of its position (simulated,
/// typed in, dead reckoning, no fix), which gpsd 3.22's TPV `status` does not always carry.
/// Until the raw NMEA has shown an epoch's end, gpsd does not know the receiver's cycle
/// either and reports after every sentence, so a TPV may come before the sentence that says
/// "simulated": the TPVs of that first epoch are held, the latest kept, until the raw
/// NMEA's next epoch begins (one epoch, once a connection). Everything else is ignored.
struct GPSDDecoder {
    private struct Message: Decodable {
        var `class`: String
        var mode: Int?
        var status: Int?
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
    /// How far apart (seconds) a GST and the TPV it sharpens may be: one epoch at 1 Hz and a
    /// half for jitter, so a GST that stopped coming is not used for long.
    static let gstReach = 1.5
    /// Two times within this (seconds) are the same epoch's: gpsd writes milliseconds.
    static let sameTime = 0.0005

    private var line: [UInt8] = []
    private var nmea = NMEAParser()
    private var lastGST: Sigma?
    /// The last fix passed on: gpsd repeats a new receiver's first epoch once a sentence
    /// until it knows which sentence ends the cycle, and a repeat that adds nothing is not
    /// another fix (`fixes --gpsd` counted one epoch seven times).
    private var lastFix: Fix?
    /// Fixes passed on.
    private(set) var fixes = 0
    /// Epochs whose position the receiver says is not from satellites (`status` 7/8, what
    /// the raw NMEA said, dead reckoning alone without its GST), each counted once however
    /// often gpsd reports it, as `NMEAParser.Stats.notGNSS`.
    private(set) var notGNSS = 0
    private var lastNotGNSS: Date?
    /// The latest TPV of the raw NMEA's first epoch and its time, held until that epoch ends.
    private var unsettled: (message: Message, time: Date)?
    /// A dead-reckoned TPV without the σ of a GST of its time, no fix as it stands: gpsd sends
    /// an epoch's GST after its TPV, so it waits for that GST (a fix of its σ) until a TPV or
    /// GST of another time says none is coming (no fix then, an epoch later). Only a no fix waits.
    private var awaitingGST: (message: Message, time: Date)?
    private let decoder = JSONDecoder()

    /// Forgets a half-read line and the last GST (after a reconnect: another gpsd, maybe
    /// another receiver).
    mutating func reset() {
        line.removeAll(keepingCapacity: true)
        nmea = NMEAParser()
        lastGST = nil
        unsettled = nil
        awaitingGST = nil
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
            let read = nmea.feed(line + [0x0A])
            // The first epoch has ended (this sentence began the next): its whole verdict is in.
            if let held = unsettled, nmea.hasClosedAnEpoch {
                unsettled = nil
                tpv(held.message, &events)
            }
            for case .pressure(let p) in read { events.append(.pressure(p)) }
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
            lastGST = Sigma(time: time, horizontal: h, vertical: v)
            // The GST a dead-reckoned TPV waits for, or one of a later epoch: it is no fix.
            if let waiting = awaitingGST {
                awaitingGST = nil
                if abs(waiting.time.timeIntervalSince(time)) <= Self.sameTime {
                    tpv(waiting.message, &events)
                } else {
                    noGSTCame(for: waiting.time, &events)
                }
            }
        default: break
        }
    }

    private mutating func tpv(_ m: Message, _ events: inout [PositionEvent]) {
        let time = m.time.flatMap(UTCTime.parseISO8601)
        // The raw NMEA of the TPV's time, if it came already (gpsd forwards each sentence before
        // the reports it makes of it; a TPV is never held for it): gpsd 3.22 sets `status` 7/8
        // from GGA's quality alone, so a position marked simulated or typed in only by a mode
        // letter (RMC, GNS, GLL `S`/`M`) was a fix here and no fix from `--nmea`. Now both say
        // what the NMEA reading says.
        let said = time.flatMap { nmea.verdict(atMilliseconds: Self.millisecondsOfDay($0)) }
        if let waiting = awaitingGST, waiting.time != time {
            awaitingGST = nil
            noGSTCame(for: waiting.time, &events)
        }
        if let held = unsettled, let time, held.time != time {
            unsettled = nil
            tpv(held.message, &events)
        }
        // The raw NMEA's first epoch, still open: gpsd, not knowing the new receiver's cycle
        // yet, reports after each of its sentences, and the one saying "simulated" or "typed
        // in" may be still to come (ZDA, GGA quality 1, then GNS `SS`): held, the latest report
        // kept, until the epoch ends. Before, the report after GGA was a fix at once. A TPV
        // without raw NMEA of its time (a binary receiver) is never held.
        if let time, said != nil, !nmea.hasClosedAnEpoch {
            unsettled = (m, time)
            return
        }
        // `status` 7 (time only: gpsd's reading of a manual position, GGA quality 7) and 8
        // (simulated) are not where the walker is; nor is a position a sentence said no fix of.
        let notGNSS = m.status == 7 || m.status == 8 || said?.notGNSS == true
        guard let mode = m.mode, mode >= 2, !notGNSS, said?.invalid != true, let time, let lat = m.lat,
            let lon = m.lon
        else {
            if m.mode != nil { events.append(.noFix(time: time)) }
            if notGNSS, m.mode != nil { countNotGNSS(time) }
            return
        }
        // Dead reckoning alone (5; 6 is GNSS with it) is a fix only with a GST's σ: gpsd's
        // `eph` there is HDOP × 19, of satellites it does not use, and a fix of unknown
        // accuracy counts as a good one. Only the GST of its own time: gpsd sends an epoch's
        // GST after its TPV, so the latest is the satellites' of an epoch before (before, up to
        // 1.5 s of dead reckoning took their σ); the TPV waits for its own (``awaitingGST``;
        // before, it was no fix at once, and its GST after it was never used).
        let deadReckoningAlone = m.status == 5 || said?.deadReckoningAlone == true
        let reach = deadReckoningAlone ? Self.sameTime : Self.gstReach
        let gst = lastGST.flatMap { abs($0.time.timeIntervalSince(time)) <= reach ? $0 : nil }
        if deadReckoningAlone, gst?.horizontal == nil {
            if gst == nil {
                awaitingGST = (m, time)
            } else {
                noGSTCame(for: time, &events)  // its own GST came, without a σ
            }
            return
        }
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
        fix.course = m.track.flatMap { $0 >= 0 && $0 < 360 ? ($0 == 0 ? 0 : $0) : nil }  // never -0
        if let gst { fix = Self.applying(gst, to: fix) }
        if deadReckoningAlone, threeD { fix.verticalAccuracy = gst?.vertical }  // never from gpsd's epv
        emit(fix, &events)
    }

    /// A dead-reckoned epoch's own GST did not come (or gave no σ): no fix, not from satellites.
    private mutating func noGSTCame(for time: Date, _ events: inout [PositionEvent]) {
        events.append(.noFix(time: time))
        countNotGNSS(time)
    }

    /// Milliseconds into the UTC day, as an NMEA time stamp counts them.
    private static func millisecondsOfDay(_ time: Date) -> Int {
        let seconds = time.timeIntervalSince1970
        let intoDay = seconds - (seconds / 86_400).rounded(.down) * 86_400
        return min(Int((intoDay * 1000).rounded()), UTCTime.lastMillisecondOfDay)
    }

    private mutating func emit(_ fix: Fix, _ events: inout [PositionEvent]) {
        if fix.isPlausible, fix != lastFix {
            events.append(.fix(fix))
            lastFix = fix
            fixes += 1
        }
    }

    private mutating func countNotGNSS(_ time: Date?) {
        if time == nil || time != lastNotGNSS { notGNSS += 1 }
        lastNotGNSS = time
    }

    private static func applying(_ gst: Sigma, to fix: Fix) -> Fix {
        var fix = fix
        fix.horizontalAccuracy = gst.horizontal ?? fix.horizontalAccuracy
        if fix.mode == .threeD { fix.verticalAccuracy = gst.vertical ?? fix.verticalAccuracy }
        return fix
    }
}
