import Foundation
import Geo

/// Groups decoded sentences into epochs (one per time stamp) and turns each into a `Fix`
/// or a `.noFix`.
///
/// An epoch ends when a sentence with another time stamp arrives, or — so a live stream
/// does not wait a whole second — when the sentence type that ended the previous epoch
/// arrives again (gpsd's cycle-end detection). If a sentence of the epoch just closed turns
/// up before the next, the learnt ender was wrong and is forgotten. The ender does not close a
/// dead-reckoned epoch still without its σ: its GST, sent on only some epochs after the end,
/// closes it, else the next time stamp. Nor, once the receiver has been seen to send a GST
/// after the end, a satellite epoch without one yet: its GST closes it, else ``lateGSTWait``
/// of the live clock (``received(at:)``), else the next time stamp; after
/// ``epochsWithoutGSTToForget`` satellite epochs in a row without a GST, no longer (until a GST
/// after the end is seen again). A sentence stamped with an
/// earlier epoch's time (one closed within ``recentSpanMilliseconds`` of the newest closed) is
/// late or repeated: it is dropped and counted, never a new epoch.
struct EpochAssembler {
    struct Epoch {
        var milliseconds: Int
        var days: Int?
        var latitude: Double?
        var longitude: Double?
        /// Some sentence said "valid fix" (RMC A, GGA quality > 0, GNS mode, GLL A).
        var saysValid = false
        /// Some sentence said "no fix"; one is enough, a wrong position is worse than none.
        var saysInvalid = false
        /// Some sentence said the position is its simulator's or typed in (GGA quality 8/7,
        /// mode S/M), or dead reckoning it calls void (RMC/GLL status V with mode E, the NMEA
        /// standard's mark for it): not where the walker is, whatever else says "valid".
        var saysNotGNSS = false
        /// Some sentence said dead reckoning alone (GGA quality 6, mode E, GNS all E/N).
        var saysEstimated = false
        var altitudeMSL: Double?
        var geoidSeparation: Double?
        var gsaFixType: Int?
        var hdop: Double?
        var vdop: Double?
        var gstLatitude: Double?
        var gstLongitude: Double?
        var gstAltitude: Double?
        var rmcSpeed: Double?
        var rmcCourse: Double?
        var vtgSpeed: Double?
        var vtgCourse: Double?
        /// A GST of its time came (its σ may still be empty).
        var hasGST = false
        /// The learnt cycle end came while it waited for its own σ (``awaitsItsSigma``) or, the
        /// receiver sending GST after the end, for its GST (``awaitsALateGST``): its GST closes
        /// it, else the next time stamp (or, for a satellite fix, ``lateGSTWait``).
        var pastTheEnd = false

        /// A satellite fix as it stands, without a GST yet: one that comes after the learnt end
        /// gives its accuracy, where HDOP would.
        var awaitsALateGST: Bool {
            saysValid && !saysInvalid && !saysNotGNSS && !saysEstimated && !hasGST
        }

        /// Dead reckoning alone, no "no fix" or "not GNSS" said, and no GST σ yet: the one
        /// epoch a GST still to come turns from no fix into a fix.
        var awaitsItsSigma: Bool {
            saysEstimated && saysValid && !saysInvalid && !saysNotGNSS
                && !((gstLatitude ?? 0) > 0 && (gstLongitude ?? 0) > 0)
        }

        var verdict: Verdict {
            Verdict(invalid: saysInvalid, notGNSS: saysNotGNSS, deadReckoningAlone: saysEstimated)
        }
    }

    /// What an epoch's sentences said of its position, for a gpsd TPV of the same time: gpsd
    /// 3.22 sets its `status` from GGA's quality alone, not from RMC's, GNS's or GLL's mode
    /// letters.
    struct Verdict: Sendable, Hashable {
        /// Some sentence said "no fix".
        var invalid = false
        /// Some sentence said simulated or typed in.
        var notGNSS = false
        /// Some sentence said dead reckoning alone (a fix only with its own GST σ).
        var deadReckoningAlone = false
    }

    /// The day assumed for epochs before the first RMC/ZDA date.
    enum Fallback {
        /// This UTC day (days since 1970).
        case day(Int)
        /// The day that puts the epoch nearest this instant (seconds since 1970), the system
        /// clock when the epoch's bytes were read: a live receiver's epochs are within seconds
        /// of it, so an epoch at 23:59:59 read at 00:00:01 is yesterday's. Each undated epoch
        /// is dated so, on its own, until a fix dated by the receiver (RMC/ZDA) comes: a cold
        /// start's bogus times (23:59:48, 00:00:02, …) must not set the day for the fixes after.
        case near(Double)
    }

    private(set) var fallback: Fallback?
    private var current: Epoch?
    private var lastType: String?
    private var cycleEnder: String?
    private var closedMilliseconds: Int?
    /// The times of day of the epochs closed within ``recentSpanMilliseconds`` of the newest
    /// closed, oldest first.
    private var recentlyClosed: [Int] = []
    /// How far back (ms) from the newest closed epoch a late or repeated sentence is
    /// recognised, whatever the rate: 16 s (a receiver's buffer replayed after a stall is a
    /// few seconds), so a clock that jumps back further (receiver reset, two logs joined)
    /// still opens a new epoch and shows. (Before: the last 16 epochs, 1.6 s at 10 Hz.)
    static let recentSpanMilliseconds = 16_000
    static let dayMilliseconds = 86_400_000
    /// The last few closed epochs' verdicts, oldest first (``verdict(atMilliseconds:)``).
    private var recentVerdicts: [(milliseconds: Int, verdict: Verdict)] = []
    /// How many closed epochs' verdicts are kept: a TPV comes right after its epoch's sentences.
    static let verdictsKept = 8
    /// The sentence being taken belonged to a closed epoch and was dropped.
    private var dropped = false
    /// The system clock (seconds since 1970) when a live source last read bytes; `nil` for a
    /// file, whose epochs are never let go by time.
    private var clock: Double?
    /// This receiver was seen to send a GST after the learnt end, stamped with the epoch the end
    /// had closed (GST on only some epochs, after the sentence that ends the others): from then
    /// on a satellite epoch is held past the end for it (``awaitsALateGST``). Before, that GST
    /// was dropped (HDOP accuracy instead) and the end forgotten, so the next epoch came a
    /// cycle late. A receiver that never does so is never held, nor one that stopped
    /// (``epochsWithoutGSTToForget``).
    private var gstTrailsTheEnd = false
    /// Satellite epochs closed in a row without a GST since the last GST came.
    private var epochsWithoutGST = 0
    /// After this many satellite epochs in a row without a GST, a receiver seen to send GST after
    /// the end is held for it no more: its GST was switched off, or came only at start-up.
    /// Before, every fix after was held ``lateGSTWait`` for as long as the source ran. GST on
    /// every other epoch, or every fourth, keeps it.
    static let epochsWithoutGSTToForget = 5
    /// The clock when the learnt end came in the last epoch (closing or holding it).
    private var endedAt: Double?
    /// How long after the end of their epoch (seconds, live clock) the last few GSTs that came
    /// there did, oldest first.
    private var gstLags: [Double] = []
    /// How many of those lags are kept: the wait follows the receiver's recent lags, not the
    /// longest ever seen (one slow second at start-up held every fix after at 0.5 s).
    static let gstLagsKept = 5
    /// How long (seconds) a live receiver's satellite fix is held past the learnt end for its
    /// GST: twice the longest of the recent lags (``gstLagsKept``), at least 0.1 s (bytes of one
    /// burst read apart), at most 0.5 s (a walker at 1.4 m/s moves 0.7 m meanwhile). A file's
    /// waits until the next time stamp, which costs it nothing.
    static let lateGSTWaits = 0.1...0.5
    var lateGSTWait: Double {
        min(max(2 * (gstLags.max() ?? 0), Self.lateGSTWaits.lowerBound), Self.lateGSTWaits.upperBound)
    }
    /// The last epoch's day and time, to carry the date over to undated epochs.
    private var lastDays: Int?
    private var lastMilliseconds: Int?
    /// A live receiver's last fix dated by the receiver (RMC/ZDA) or carried on from one: the
    /// only date its undated epochs carry on from.
    private var receiverDated: (days: Int, milliseconds: Int)?

    init(fallback: Fallback?) {
        self.fallback = fallback
    }

    /// The system clock now (seconds since 1970), as a live source reads bytes: it dates a
    /// live receiver's undated epochs, and lets go a fix held for a late GST (``release``).
    mutating func received(at seconds: Double) {
        clock = seconds
        if case .near = fallback { fallback = .near(seconds) }
    }

    /// Closes a satellite epoch held past the learnt end for its GST once ``lateGSTWait`` has
    /// passed on the clock (``received(at:)``) since the end came: its fix goes out with HDOP's
    /// accuracy. A dead-reckoned one waiting for its σ is no fix as it stands and keeps waiting.
    mutating func release(into events: inout [PositionEvent], stats: inout NMEAParser.Stats) {
        guard let e = current, e.pastTheEnd, !e.awaitsItsSigma, let clock, let endedAt,
            clock - endedAt >= lateGSTWait
        else { return }
        flush(into: &events, stats: &stats, learn: false)
    }

    /// Takes one checksum-valid sentence; returns `false` if its type is not one we use.
    mutating func take(
        _ s: NMEASentence, into events: inout [PositionEvent], stats: inout NMEAParser.Stats
    ) -> Bool {
        let address = s.fields[0]
        let type: String
        if let first = address.first, s.bytes[first] == 0x50 {  // "P": proprietary, whole name
            type = String(decoding: s.bytes[address], as: UTF8.self)
        } else if address.count == 5 {
            type = String(decoding: s.bytes[(address.lowerBound + 2)..<address.upperBound], as: UTF8.self)
        } else {
            return false
        }
        dropped = false
        switch type {
        case "RMC": rmc(s, into: &events, stats: &stats)
        case "GGA": gga(s, into: &events, stats: &stats)
        case "GNS": gns(s, into: &events, stats: &stats)
        case "GLL": gll(s, into: &events, stats: &stats)
        case "GSA": gsa(s)
        case "GST": gst(s, into: &events, stats: &stats)
        case "VTG": vtg(s)
        case "ZDA": zda(s, into: &events, stats: &stats)
        case "XDR", "MDA", "MMB", "PGRMZ":
            // Rounded to 0.001 hPa (1 cm), far below any sensor's resolution, so 1.00870 bar
            // reads as 1008.7, not 1008.6999999999999.
            if let raw = Self.pressure(s, type: type), PressureReading.plausibleHPa.contains(raw) {
                let hPa = (raw * 1000).rounded() / 1000
                events.append(
                    .pressure(PressureReading(time: currentTime(), hPa: hPa, source: Self.source(type))))
                stats.pressures += 1
            }
            return true
        default:
            return false
        }
        // A dropped sentence is no part of the cycle: it must not end the open epoch.
        if dropped { return true }
        lastType = type
        if type == cycleEnder, let open = current {
            endedAt = clock
            // A dead-reckoned epoch without its σ is kept open past the end for a GST that
            // comes on only some epochs: closed then, it was no fix and the GST, after the end,
            // was dropped (the end is learnt from an epoch without one). So is a satellite fix
            // without its GST, once this receiver was seen to send one after the end.
            if open.awaitsItsSigma || (gstTrailsTheEnd && open.awaitsALateGST) {
                current?.pastTheEnd = true
            } else {
                flush(into: &events, stats: &stats, learn: false)
            }
        } else if type == "GST", current?.pastTheEnd == true {
            flush(into: &events, stats: &stats, learn: false)
        }
        return true
    }

    // MARK: Epochs

    /// Makes sure the open epoch is the one for `ms`; returns `false` for a sentence of an
    /// epoch already closed (ignored).
    private mutating func enter(
        _ ms: Int, into events: inout [PositionEvent], stats: inout NMEAParser.Stats
    ) -> Bool {
        if current?.milliseconds == ms { return true }
        if current == nil, closedMilliseconds == ms {
            cycleEnder = nil
            dropped = true
            return false
        }
        // Late or repeated (before: it closed the open epoch early and came out again as a
        // stale fix, time going backwards).
        if recentlyClosed.contains(ms) {
            stats.late += 1
            dropped = true
            return false
        }
        if current != nil { flush(into: &events, stats: &stats, learn: true) }
        current = Epoch(milliseconds: ms)
        return true
    }

    /// Closes the open epoch, emitting its fix or no-fix.
    mutating func flush(
        into events: inout [PositionEvent], stats: inout NMEAParser.Stats, learn: Bool = false
    ) {
        guard let e = current else { return }
        current = nil
        closedMilliseconds = e.milliseconds
        recentlyClosed.append(e.milliseconds)
        // Time of day, so modulo a day: 23:59:59 is 2 s before 00:00:01.
        recentlyClosed.removeAll {
            (e.milliseconds - $0 + Self.dayMilliseconds) % Self.dayMilliseconds > Self.recentSpanMilliseconds
        }
        if learn { cycleEnder = lastType }
        if gstTrailsTheEnd, e.awaitsALateGST {
            epochsWithoutGST += 1
            if epochsWithoutGST >= Self.epochsWithoutGSTToForget {
                gstTrailsTheEnd = false
                gstLags = []
                epochsWithoutGST = 0
            }
        }
        recentVerdicts.append((e.milliseconds, e.verdict))
        if recentVerdicts.count > Self.verdictsKept { recentVerdicts.removeFirst() }
        let days = resolveDays(e)
        lastMilliseconds = e.milliseconds
        if let days { lastDays = days }
        let time = days.map { UTCTime.date(days: $0, milliseconds: e.milliseconds) }
        guard e.saysValid || e.saysInvalid || e.saysNotGNSS else { return }  // only ZDA/GST: nothing to say
        // Dead reckoning alone is a fix only with the receiver's own σ (GST): a DOP describes
        // satellites it does not use, and a fix of unknown accuracy counts as a good one.
        let ownSigma = (e.gstLatitude ?? 0) > 0 && (e.gstLongitude ?? 0) > 0
        let notGNSS = e.saysNotGNSS || (e.saysEstimated && !ownSigma)
        guard e.saysValid, !e.saysInvalid, !notGNSS, let lat = e.latitude, let lon = e.longitude else {
            events.append(.noFix(time: time))
            stats.noFix += 1
            if notGNSS, !e.saysInvalid { stats.notGNSS += 1 }
            return
        }
        guard let time else {
            stats.undated += 1
            return
        }
        let mode: Fix.Mode =
            switch e.gsaFixType {
            case 2: .twoD
            case 3: .threeD
            default: e.altitudeMSL != nil ? .threeD : .twoD
            }
        var fix = Fix(time: time, coordinate: Coordinate(latitude: lat, longitude: lon), mode: mode)
        if let a = e.gstLatitude, let b = e.gstLongitude, a > 0, b > 0 {
            fix.horizontalAccuracy = (a * a + b * b).squareRoot()
        } else if let h = e.hdop, h > 0, !e.saysEstimated {
            fix.horizontalAccuracy = h * NMEAParser.uereMetres
        }
        if mode == .threeD {
            fix.altitudeMSL = e.altitudeMSL
            if let msl = e.altitudeMSL, let n = e.geoidSeparation { fix.altitudeHAE = msl + n }
            if let z = e.gstAltitude, z > 0 {
                fix.verticalAccuracy = z
            } else if let v = e.vdop, v > 0, !e.saysEstimated {
                fix.verticalAccuracy = v * NMEAParser.uereMetres
            }
        }
        fix.speed = e.rmcSpeed ?? e.vtgSpeed
        fix.course = e.rmcCourse ?? e.vtgCourse
        guard fix.isPlausible else {
            // Values are range-checked field by field; this only guards the combination.
            events.append(.noFix(time: time))
            stats.noFix += 1
            return
        }
        if let days, e.days != nil || receiverDated != nil { receiverDated = (days, e.milliseconds) }
        events.append(.fix(fix))
        stats.fixes += 1
    }

    /// Whether an epoch has ended yet: until one has, the open epoch may have more sentences
    /// to come, and which type ends a cycle is not known.
    var hasClosedAnEpoch: Bool { closedMilliseconds != nil }

    /// What the sentences of the epoch at `milliseconds` into its day said so far (the open
    /// epoch, or one of the last closed), or `nil` when none came. A leap second's epochs
    /// (23:59:60.x) all answer for 23:59:59.999, as gpsd stamps them.
    func verdict(atMilliseconds milliseconds: Int) -> Verdict? {
        let ms = min(milliseconds, UTCTime.lastMillisecondOfDay)
        if let e = current, min(e.milliseconds, UTCTime.lastMillisecondOfDay) == ms { return e.verdict }
        return recentVerdicts.last { min($0.milliseconds, UTCTime.lastMillisecondOfDay) == ms }?.verdict
    }

    private func resolveDays(_ e: Epoch) -> Int? {
        if let d = e.days { return d }
        if case .near = fallback {
            guard let (days, ms) = receiverDated else { return fallbackDays(e.milliseconds) }
            return Self.nearest(e.milliseconds, after: days, ms)
        }
        guard let lastDays, let lastMilliseconds else { return fallbackDays(e.milliseconds) }
        return Self.nearest(e.milliseconds, after: lastDays, lastMilliseconds)
    }

    private static func nearest(_ milliseconds: Int, after lastDays: Int, _ lastMilliseconds: Int) -> Int {
        // The day that puts it nearest the last epoch: a time of day more than half a day
        // before the last one's is past midnight, one more than half a day after it is a
        // late sentence from before midnight (before: dated the new day, and every undated
        // epoch after it a day ahead).
        if milliseconds + dayMilliseconds / 2 < lastMilliseconds { return lastDays + 1 }
        if milliseconds > lastMilliseconds + dayMilliseconds / 2 { return lastDays - 1 }
        return lastDays
    }

    private func fallbackDays(_ milliseconds: Int) -> Int? {
        switch fallback {
        case nil: return nil
        case .day(let days): return days
        case .near(let seconds):
            let days = Int((seconds / 86_400).rounded(.down))
            let offset = milliseconds - Int(((seconds - Double(days) * 86_400) * 1000).rounded())
            if offset > 43_200_000 { return days - 1 }
            if offset < -43_200_000 { return days + 1 }
            return days
        }
    }

    /// The open epoch's time; between epochs, the last one's: a receiver sends its pressure
    /// after the sentence that ends its cycle (XDR after GST), which has closed the epoch
    /// already (before, every reading but the first came without a time, and the altimeter
    /// skipped its pairing-gap and drift checks for them).
    private func currentTime() -> Date? {
        guard let e = current else {
            guard let days = lastDays, let ms = lastMilliseconds else { return nil }
            return UTCTime.date(days: days, milliseconds: ms)
        }
        guard let days = resolveDays(e) else { return nil }
        return UTCTime.date(days: days, milliseconds: e.milliseconds)
    }

    // MARK: Sentences

    private static func knotsToMetresPerSecond(_ knots: Double?) -> Double? {
        guard let knots, knots >= 0, knots < 4_000 else { return nil }
        return knots * 0.514444
    }

    private static func course(_ degrees: Double?) -> Double? {
        guard let degrees, degrees >= 0, degrees <= 360 else { return nil }
        return degrees == 360 || degrees == 0 ? 0 : degrees  // 0 for -0 too (-0 ≥ 0)
    }

    private static func altitude(_ value: Double?) -> Double? {
        guard let value, (-1_000...100_000).contains(value) else { return nil }
        return value
    }

    private static func dop(_ value: Double?) -> Double? {
        guard let value, value > 0, value < 99 else { return nil }  // 99.99 is receivers' "unknown"
        return value
    }

    private static func sigma(_ value: Double?) -> Double? {
        guard let value, value > 0, value < 100_000 else { return nil }
        return value
    }

    /// The time stamp in field `i`, or `nil`; one that is there but no time (hour 24, second
    /// 60 outside 23:59) is counted (before, dropped unsaid).
    private static func time(_ s: NMEASentence, _ i: Int, _ stats: inout NMEAParser.Stats) -> Int? {
        let ms = s.timeOfDay(i)
        if ms == nil, !s.isEmpty(i) { stats.badTime += 1 }
        return ms
    }

    private mutating func setPosition(_ s: NMEASentence, latitude: Int) {
        if let lat = s.latitude(latitude), let lon = s.longitude(latitude + 2) {
            current?.latitude = lat
            current?.longitude = lon
        }
    }

    /// `$--RMC,hhmmss.ss,A,llll.ll,a,yyyyy.yy,a,x.x,x.x,ddmmyy,x.x,a,m[,s]`
    private mutating func rmc(
        _ s: NMEASentence, into events: inout [PositionEvent], stats: inout NMEAParser.Stats
    ) {
        guard let ms = Self.time(s, 1, &stats), enter(ms, into: &events, stats: &stats) else { return }
        status(s.char(2), mode: s.char(12))  // the mode: NMEA 2.3
        setPosition(s, latitude: 3)
        current?.rmcSpeed = Self.knotsToMetresPerSecond(s.double(7))
        current?.rmcCourse = Self.course(s.double(8))
        if let d = s.int(9), s.fields[9].count == 6 {
            let day = d / 10_000
            let month = d / 100 % 100
            let yy = d % 100
            // Two-digit years: NMEA has no century; receivers this parser meets are ≥ 1980.
            let year = yy < 80 ? 2000 + yy : 1900 + yy
            if UTCTime.isValid(year: year, month: month, day: day) {
                current?.days = UTCTime.days(year: year, month: month, day: day)
            }
        }
    }

    /// `$--GGA,hhmmss.ss,llll.ll,a,yyyyy.yy,a,q,nn,hdop,alt,M,sep,M,age,station`
    private mutating func gga(
        _ s: NMEASentence, into events: inout [PositionEvent], stats: inout NMEAParser.Stats
    ) {
        guard let ms = Self.time(s, 1, &stats), enter(ms, into: &events, stats: &stats) else { return }
        switch s.int(6) {
        case nil: break
        case 0: current?.saysInvalid = true
        case 6:  // estimated (dead reckoning)
            current?.saysValid = true
            current?.saysEstimated = true
        case 7, 8: current?.saysNotGNSS = true  // manual input, simulator
        default: current?.saysValid = true
        }
        setPosition(s, latitude: 2)
        if let h = Self.dop(s.double(8)) { current?.hdop = h }
        current?.altitudeMSL = Self.altitude(s.double(9))
        if let n = s.double(11), abs(n) < 200 { current?.geoidSeparation = n }
    }

    /// `$--GNS,hhmmss.ss,llll.ll,a,yyyyy.yy,a,modes,nn,hdop,alt,sep,age,station[,status]`
    private mutating func gns(
        _ s: NMEASentence, into events: inout [PositionEvent], stats: inout NMEAParser.Stats
    ) {
        guard let ms = Self.time(s, 1, &stats), enter(ms, into: &events, stats: &stats) else { return }
        if s.count > 6, !s.fields[6].isEmpty {
            // One letter per constellation; N = no fix for that one. Any satellite fix is a fix;
            // one simulated or typed in (S, M) makes the position not the walker's; dead
            // reckoning (E) with no satellite fix beside it is dead reckoning alone.
            let letters = s.bytes[s.fields[6]]
            if letters.contains(where: { $0 == 0x53 || $0 == 0x4D }) {
                current?.saysNotGNSS = true
            } else if letters.contains(where: { $0 != 0x4E && $0 != 0x45 }) {
                current?.saysValid = true
            } else if letters.contains(0x45) {
                current?.saysValid = true
                current?.saysEstimated = true
            } else {
                current?.saysInvalid = true
            }
        }
        setPosition(s, latitude: 2)
        if let h = Self.dop(s.double(8)) { current?.hdop = h }
        current?.altitudeMSL = Self.altitude(s.double(9))
        if let n = s.double(10), abs(n) < 200 { current?.geoidSeparation = n }
    }

    /// `$--GLL,llll.ll,a,yyyyy.yy,a,hhmmss.ss,A[,m]`
    private mutating func gll(
        _ s: NMEASentence, into events: inout [PositionEvent], stats: inout NMEAParser.Stats
    ) {
        guard let ms = Self.time(s, 5, &stats), enter(ms, into: &events, stats: &stats) else { return }
        status(s.char(6), mode: s.char(7))
        if current?.latitude == nil { setPosition(s, latitude: 1) }
    }

    /// RMC's and GLL's status (A valid, V not) and mode indicator (NMEA 2.3): N not valid, E
    /// estimated (dead reckoning), M manual input, S simulator; A, D and the rest are satellite
    /// fixes. V with E is how the NMEA standard marks dead reckoning: no fix, and said to be no
    /// GNSS (before, a plain no-fix, counted nowhere).
    private mutating func status(_ status: UInt8?, mode letter: UInt8?) {
        switch status {
        case 0x41: current?.saysValid = true  // A
        case 0x56 where letter == 0x45: current?.saysNotGNSS = true  // V, E
        case 0x56: current?.saysInvalid = true  // V
        default: break
        }
        switch letter {
        case 0x4E: current?.saysInvalid = true  // N
        case 0x45: current?.saysEstimated = true  // E
        case 0x4D, 0x53: current?.saysNotGNSS = true  // M, S
        default: break
        }
    }

    /// A sentence without a time stamp arrived after the learnt ender closed the epoch: it
    /// was part of that cycle, so the ender was learnt wrong (one garbled GSA at a cycle's end
    /// taught GGA) and is forgotten; the next epoch closes at a new time stamp and teaches the
    /// right one. Before, every later GSA found no open epoch: vertical accuracy was lost for
    /// the rest of the stream and a 2D fix was reported as 3D. Several GSAs a cycle (one per
    /// constellation) with GSA as the ender keep it: the same type again is no proof.
    private mutating func untimedAfterTheEnd(_ type: String) {
        if let ender = cycleEnder, ender != type { cycleEnder = nil }
    }

    /// `$--GSA,A,3,sv×12,pdop,hdop,vdop[,system]` — no time stamp: belongs to the open epoch.
    private mutating func gsa(_ s: NMEASentence) {
        guard current != nil else { return untimedAfterTheEnd("GSA") }
        if let t = s.int(2), (1...3).contains(t) {
            let known = current?.gsaFixType ?? 0
            current?.gsaFixType = max(known, t)
        }
        guard s.count >= 18 else { return }
        if current?.hdop == nil { current?.hdop = Self.dop(s.double(16)) }
        if let v = Self.dop(s.double(17)) { current?.vdop = v }
    }

    /// `$--GST,hhmmss.ss,rms,major,minor,orient,latσ,lonσ,altσ` (metres, 1σ)
    private mutating func gst(
        _ s: NMEASentence, into events: inout [PositionEvent], stats: inout NMEAParser.Stats
    ) {
        guard let ms = Self.time(s, 1, &stats) else { return }
        // The GST of the epoch the learnt end (or the wait after it) has closed: this receiver
        // sends it after the end, on some epochs. Learnt (not taken as proof the end is wrong),
        // and how late it came, for the epochs after; this one's fix is out already.
        if current == nil, closedMilliseconds == ms {
            gstTrailsTheEnd = true
            epochsWithoutGST = 0
            noteLag()
            dropped = true
            return
        }
        guard enter(ms, into: &events, stats: &stats) else { return }
        epochsWithoutGST = 0
        // The GST of an epoch held past the end for it: how late it came counts as well, or the
        // wait would never come down once it is long enough to catch them.
        if current?.pastTheEnd == true { noteLag() }
        current?.hasGST = true
        current?.gstLatitude = Self.sigma(s.double(6))
        current?.gstLongitude = Self.sigma(s.double(7))
        current?.gstAltitude = Self.sigma(s.double(8))
    }

    /// Keeps how long after the learnt end (live clock) a GST of that epoch came.
    private mutating func noteLag() {
        guard let clock, let endedAt else { return }
        gstLags.append(clock - endedAt)
        if gstLags.count > Self.gstLagsKept { gstLags.removeFirst() }
    }

    /// `$--VTG,cog,T,cogm,M,knots,N,kmh,K[,m]` — no time stamp.
    private mutating func vtg(_ s: NMEASentence) {
        guard current != nil else { return untimedAfterTheEnd("VTG") }
        guard s.char(2) == 0x54 else { return }  // old VTG without unit letters: skip
        if s.char(9) == 0x4E { return }
        current?.vtgCourse = Self.course(s.double(1))
        if let knots = Self.knotsToMetresPerSecond(s.double(5)) {
            current?.vtgSpeed = knots
        } else if let kmh = s.double(7), kmh >= 0, kmh < 7_000 {
            current?.vtgSpeed = kmh / 3.6
        }
    }

    /// `$--ZDA,hhmmss.ss,dd,mm,yyyy,tzh,tzm`
    private mutating func zda(
        _ s: NMEASentence, into events: inout [PositionEvent], stats: inout NMEAParser.Stats
    ) {
        guard let ms = Self.time(s, 1, &stats), enter(ms, into: &events, stats: &stats) else { return }
        if let d = s.int(2), let m = s.int(3), let y = s.int(4), s.fields[4].count == 4,
            UTCTime.isValid(year: y, month: m, day: d)
        {
            current?.days = UTCTime.days(year: y, month: m, day: d)
        }
    }

    // MARK: Pressure

    private static func source(_ type: String) -> PressureReading.Source {
        switch type {
        case "XDR": .nmeaXDR
        case "MDA": .nmeaMDA
        case "MMB": .nmeaMMB
        default: .pgrmz
        }
    }

    /// What an XDR transducer id says of an air-pressure sensor (`Barometer`, `BARO`,
    /// `AirPressure`, `ATMOS`), upper-cased.
    static let barometerIDs = ["BARO", "AIR", "ATM"]

    /// hPa from XDR (groups of type,value,units,name; type P, units B bar or P pascal; empty
    /// values and implausible air pressures skipped; a group named a barometer preferred), MDA/MMB (bar preferred, else inches of mercury), PGRMZ (barometric
    /// altitude against the standard 1013.25 hPa, turned back into pressure).
    static func pressure(_ s: NMEASentence, type: String) -> Double? {
        switch type {
        case "XDR":
            // Every pressure transducer a walker could breathe in: the one named a barometer
            // first (an oil or tyre pressure before it is not the air's; before, the first group
            // was taken whatever it measured).
            var plausible: [(hPa: Double, barometric: Bool)] = []
            var i = 1
            while i + 2 < s.count {
                if s.char(i) == 0x50, let v = s.double(i + 1) {
                    let hPa: Double? =
                        switch s.char(i + 2) {
                        case 0x42: v * 1000  // bar
                        case 0x50: v / 100  // pascal
                        default: nil
                        }
                    if let hPa, PressureReading.plausibleHPa.contains(hPa) {
                        let id = (s.string(i + 3) ?? "").uppercased()
                        plausible.append((hPa, barometerIDs.contains { id.contains($0) }))
                    }
                }
                i += 4
            }
            return (plausible.first { $0.barometric } ?? plausible.first)?.hPa
        case "MDA", "MMB":
            if s.char(4) == 0x42, let bar = s.double(3) { return bar * 1000 }
            if s.char(2) == 0x49, let inHg = s.double(1) { return inHg * 33.863_886 }
            return nil
        default:  // PGRMZ,alt,f|m,fixdim
            guard let alt = s.double(1) else { return nil }
            let metres: Double
            switch s.char(2) {
            case 0x66: metres = alt * 0.3048  // f
            case 0x6D: metres = alt  // m
            default: return nil
            }
            guard (-1_000...12_000).contains(metres) else { return nil }
            return ISA.pressure(altitude: metres, seaLevel: ISA.standardSeaLevelHPa)
        }
    }
}
