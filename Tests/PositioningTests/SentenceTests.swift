import Foundation
import Geo
import Positioning
import Testing

/// `$BODY*hh\r\n` with the right checksum.
func nmea(_ body: String) -> String {
    let sum = body.utf8.reduce(UInt8(0), ^)
    let hex = String(sum, radix: 16, uppercase: true)
    return "$\(body)*\(hex.count == 1 ? "0" + hex : hex)\r\n"
}

func parse(
    _ bodies: [String], fallbackDate: Date? = nil
) -> (events: [PositionEvent], stats: NMEAParser.Stats) {
    NMEAParser.parse(Array(bodies.map(nmea).joined().utf8), fallbackDate: fallbackDate)
}

func fixes(_ events: [PositionEvent]) -> [Fix] {
    events.compactMap { if case .fix(let f) = $0 { f } else { nil } }
}

func utc(_ text: String) -> Date { FixStreamRecord.parseTime(text)! }

/// Hand-made sentences, one behaviour each.
@Suite struct SentenceTests {
    @Test func rmcSouthWestWithTwoDigitYear() throws {
        let (events, stats) = parse(["GPRMC,123519,A,4807.038,S,01131.000,W,022.4,084.4,230394,003.1,W"])
        let fix = try #require(fixes(events).first)
        #expect(abs(fix.coordinate.latitude - -48.1173) < 1e-9)
        #expect(abs(fix.coordinate.longitude - -11.516_666_666_7) < 1e-9)
        #expect(fix.time == utc("1994-03-23T12:35:19Z"))
        #expect(abs(try #require(fix.speed) - 22.4 * 0.514444) < 1e-9)
        #expect(fix.course == 84.4)
        // RMC alone: 2D, no height, no accuracy known.
        #expect(fix.mode == .twoD)
        #expect(fix.altitudeMSL == nil && fix.horizontalAccuracy == nil && fix.verticalAccuracy == nil)
        #expect(stats.fixes == 1 && stats.sentences == 1)
    }

    @Test(arguments: [
        ("050607", "2007-06-05"), ("311299", "1999-12-31"), ("010180", "1980-01-01"),
        ("290224", "2024-02-29"),
    ])
    func rmcDates(_ ddmmyy: String, _ iso: String) throws {
        let (events, _) = parse(["GNRMC,000000.00,A,0000.001,N,00000.001,E,,,\(ddmmyy),,"])
        #expect(try #require(fixes(events).first).time == utc("\(iso)T00:00:00Z"))
    }

    @Test func impossibleDateIsNotUsed() {
        let (events, stats) = parse(["GPRMC,101010,A,1000.0,N,01000.0,E,,,310299,,"])
        #expect(fixes(events).isEmpty)
        #expect(stats.undated == 1)
    }

    @Test func ggaGsaAndRmcMakeOne3DFixWithDOPAccuracy() throws {
        let (events, _) = parse([
            "GPGGA,092750.000,5321.6802,N,00630.3372,W,1,8,1.03,61.7,M,55.2,M,,",
            "GPGSA,A,3,10,07,05,02,29,04,08,13,,,,,1.72,1.03,1.38",
            "GPRMC,092750.000,A,5321.6802,N,00630.3372,W,0.02,31.66,280511,,,A",
        ])
        #expect(fixes(events).count == 1)
        let fix = try #require(fixes(events).first)
        #expect(fix.mode == .threeD)
        #expect(fix.altitudeMSL == 61.7)
        #expect(abs(try #require(fix.altitudeHAE) - 116.9) < 1e-9)
        #expect(abs(try #require(fix.horizontalAccuracy) - 1.03 * NMEAParser.uereMetres) < 1e-9)
        #expect(abs(try #require(fix.verticalAccuracy) - 1.38 * NMEAParser.uereMetres) < 1e-9)
        #expect(fix.time == utc("2011-05-28T09:27:50Z"))
    }

    @Test func gstSigmaWinsOverDOP() throws {
        let (events, _) = parse([
            "GNGGA,120000.00,6010.0000,N,02456.0000,E,1,12,0.80,20.0,M,18.0,M,,",
            "GNGSA,A,3,01,02,03,04,,,,,,,,,1.5,0.8,1.2,1",
            "GNGST,120000.00,1.2,5.0,3.0,45.0,3.0,4.0,6.5",
            "GNRMC,120000.00,A,6010.0000,N,02456.0000,E,0.1,,010624,,,A",
        ])
        let fix = try #require(fixes(events).first)
        #expect(fix.horizontalAccuracy == 5.0)  // √(3² + 4²)
        #expect(fix.verticalAccuracy == 6.5)
    }

    @Test func emptyGSTFallsBackToHDOP() throws {
        let (events, _) = parse([
            "GNGGA,120000.00,6010.0000,N,02456.0000,E,1,12,0.80,20.0,M,18.0,M,,",
            "GNGST,120000.00,,,,,,,",
            "GNRMC,120000.00,A,6010.0000,N,02456.0000,E,0.1,,010624,,,A",
        ])
        let fix = try #require(fixes(events).first)
        #expect(abs(try #require(fix.horizontalAccuracy) - 0.8 * NMEAParser.uereMetres) < 1e-9)
        #expect(fix.verticalAccuracy == nil)  // no VDOP, no GST: unknown, not 0
    }

    @Test(arguments: ["", "0.0", "99.99"])
    func unknownHDOPStaysUnknown(_ hdop: String) throws {
        let (events, _) = parse([
            "GPGGA,120000.00,6010.0000,N,02456.0000,E,1,04,\(hdop),20.0,M,,M,,",
            "GPRMC,120000.00,A,6010.0000,N,02456.0000,E,,,010624,,,A",
        ])
        let fix = try #require(fixes(events).first)
        #expect(fix.horizontalAccuracy == nil)
        #expect(fix.altitudeHAE == nil)  // no geoid separation given
        #expect(fix.speed == nil && fix.course == nil)
    }

    @Test func missingDateDropsFixUnlessAFallbackDateIsGiven() throws {
        let lines = ["GPGGA,235959.50,6010.0000,N,02456.0000,E,1,04,1.0,20.0,M,,M,,"]
        let (events, stats) = parse(lines)
        #expect(fixes(events).isEmpty)
        #expect(stats.undated == 1)
        let (withDate, _) = parse(lines, fallbackDate: utc("2024-06-01T13:00:00Z"))
        #expect(try #require(fixes(withDate).first).time == utc("2024-06-01T23:59:59.500Z"))
    }

    /// A live receiver's undated epochs take the day nearest the system clock, so one read
    /// across midnight keeps its own day (before: a device's parser had no fallback, and
    /// every GGA-only fix was dropped as undated).
    @Test(arguments: [
        ("2024-06-01T12:00:00Z", "120000.00", "2024-06-01T12:00:00Z"),
        ("2024-06-02T00:00:01Z", "235959.00", "2024-06-01T23:59:59Z"),
        ("2024-06-01T23:59:59Z", "000001.00", "2024-06-02T00:00:01Z"),
    ])
    func liveReceiverWithoutADateIsDatedByTheClockNearest(
        _ now: String, _ hhmmss: String, _ expected: String
    ) throws {
        var parser = NMEAParser(receivedAround: utc(now))
        let bytes = [
            "GPGGA,\(hhmmss),6010.0000,N,02456.0000,E,1,04,1.0,20.0,M,,M,,",
            "GPGGA,000002.00,6010.0000,N,02456.0000,E,1,04,1.0,20.0,M,,M,,",
        ].map(nmea).joined()
        let events = parser.feed(Array(bytes.utf8)) + parser.finish()
        let first = try #require(fixes(events).first)
        #expect(first.time == utc(expected))
        // 00:00:02 is after the first epoch: the next day when that was 23:59:59.
        let day = expected.hasPrefix("2024-06-01T23") ? "2024-06-02" : String(expected.prefix(10))
        #expect(fixes(events).last?.time == utc(day + "T00:00:02Z"))
        #expect(parser.stats.undated == 0)
    }

    /// A GGA-only receiver starting cold says "no fix" under bogus times first (the bundled
    /// cold-boot log: 23:59:48, 23:59:59, 00:00:02, 00:04:10 before the real time); its fixes
    /// are still dated by the clock. Before: the first epoch set the day and the rest carried
    /// it on, so with the clock at 12:00 a cold start at 23:00 then 10:00 ("past midnight")
    /// dated every fix a day ahead.
    @Test func aLiveReceiversColdStartTimesDoNotDateItsFixes() throws {
        var parser = NMEAParser(receivedAround: utc("2024-06-01T12:00:00Z"))
        let bytes = [
            "GPGGA,230000.00,0000.0000,N,00000.0000,E,0,00,0.0,,M,,M,,",
            "GPGGA,100000.00,0000.0000,N,00000.0000,E,0,00,0.0,,M,,M,,",
            "GPGGA,120001.00,6010.0000,N,02456.0000,E,1,04,1.0,20.0,M,,M,,",
            "GPGGA,120002.00,6010.0000,N,02456.0000,E,1,04,1.0,20.0,M,,M,,",
        ].map(nmea).joined()
        let events = parser.feed(Array(bytes.utf8)) + parser.finish()
        #expect(fixes(events).map(\.time) == [utc("2024-06-01T12:00:01Z"), utc("2024-06-01T12:00:02Z")])
    }

    /// The clock is the one read with each epoch's bytes, not the one when the device opened:
    /// a receiver read two days after opening is dated that day.
    @Test func aLiveReceiverIsDatedByTheClockAtEachRead() throws {
        var parser = NMEAParser(receivedAround: utc("2024-06-01T12:00:00Z"))
        let gga = nmea("GPGGA,235959.00,6010.0000,N,02456.0000,E,1,04,1.0,20.0,M,,M,,")
        let events =
            parser.feed(Array(gga.utf8), receivedAt: utc("2024-06-04T00:00:01Z"))
            + parser.finish()
        #expect(fixes(events).map(\.time) == [utc("2024-06-03T23:59:59Z")])
    }

    @Test func dateCarriesOverMidnight() throws {
        let (events, _) = parse([
            "GPRMC,235959.00,A,6010.0000,N,02456.0000,E,,,311223,,,A",
            "GPGGA,000000.00,6010.0000,N,02456.0000,E,1,04,1.0,20.0,M,,M,,",
            "GPGGA,000001.00,6010.0000,N,02456.0000,E,1,04,1.0,20.0,M,,M,,",
        ])
        #expect(
            fixes(events).map(\.time) == [
                utc("2023-12-31T23:59:59Z"), utc("2024-01-01T00:00:00Z"), utc("2024-01-01T00:00:01Z"),
            ])
    }

    @Test func zdaGivesTheDate() throws {
        let (events, _) = parse([
            "GPGGA,202640.000,4404.1306,N,12118.8515,W,2,10,0.98,1127.7,M,-19.6,M,0000,0000",
            "GPZDA,202640.000,13,04,2015,,",
        ])
        #expect(try #require(fixes(events).first).time == utc("2015-04-13T20:26:40Z"))
    }

    @Test func noFixEpochsAreReportedWithTheirTime() {
        let (events, stats) = parse([
            "GPRMC,235948.00,V,0000.0000,N,00000.0000,E,,,161206,,,N",
            "GPGGA,235949.00,,,,,0,00,99.99,,,,,,",
            "GPGGA,235950.00,4807.038,N,01131.000,E,0,00,,,,,,,",
        ])
        #expect(
            events == [
                .noFix(time: utc("2006-12-16T23:59:48Z")), .noFix(time: utc("2006-12-16T23:59:49Z")),
                .noFix(time: utc("2006-12-16T23:59:50Z")),
            ])
        #expect(stats.noFix == 3 && stats.fixes == 0)
    }

    @Test func validStatusWithoutPositionIsNoFix() {
        let (events, _) = parse(["GPRMC,101010,A,,,,,,,010624,,"])
        #expect(events == [.noFix(time: utc("2024-06-01T10:10:10Z"))])
    }

    @Test func oneSayingInvalidIsEnough() {
        let (events, _) = parse([
            "GPGGA,101010,1000.0,N,01000.0,E,0,04,1.0,20.0,M,,M,,",
            "GPRMC,101010,A,1000.0,N,01000.0,E,,,010624,,",
        ])
        #expect(fixes(events).isEmpty)
    }

    @Test(arguments: ["GP", "GN", "GL", "GA", "GB", "BD", "GQ", "GI"])
    func anyTalker(_ talker: String) {
        let (events, _) = parse(["\(talker)RMC,101010,A,1000.0,N,01000.0,E,,,010624,,"])
        #expect(fixes(events).count == 1)
    }

    @Test func gnsModes() throws {
        let valid = parse([
            "GNGNS,101010.00,3723.46587704,N,12202.26957864,W,AAN,14,0.9,6.0,-32.1,,",
            "GNZDA,101010.00,01,06,2024,,",
        ])
        let fix = try #require(fixes(valid.events).first)
        #expect(fix.mode == .threeD && fix.altitudeMSL == 6.0)
        #expect(abs(try #require(fix.altitudeHAE) - -26.1) < 1e-9)
        let invalid = parse([
            "GNGNS,101010.00,3723.4658,N,12202.2695,W,NNN,00,,,,,", "GNZDA,101010.00,01,06,2024,,",
        ])
        #expect(invalid.events == [.noFix(time: utc("2024-06-01T10:10:10Z"))])
    }

    @Test func vtgGivesSpeedAndCourseWhenRMCHasNone() throws {
        let (events, _) = parse([
            "GPRMC,101010,A,1000.0,N,01000.0,E,,,010624,,",
            "GPVTG,054.7,T,034.4,M,,N,010.8,K",
        ])
        let fix = try #require(fixes(events).first)
        #expect(fix.course == 54.7)
        #expect(abs(try #require(fix.speed) - 3.0) < 1e-9)
    }

    @Test func tenHertzTimesKeepTheirFraction() throws {
        let (events, _) = parse([
            "GNRMC,132820.60,A,4134.49821229,N,09345.03351845,W,3.252,92.308,180320,11.5985,E,D",
            "GNRMC,132820.70,A,4134.49822493,N,09345.03347183,W,3.019,89.298,180320,11.5985,E,D",
        ])
        #expect(
            fixes(events).map(\.time) == [utc("2020-03-18T13:28:20.600Z"), utc("2020-03-18T13:28:20.700Z")])
        let record = try #require(FixStreamRecord(.fix(fixes(events)[0])))
        #expect(record.time == "2020-03-18T13:28:20.600Z")
    }

    @Test(arguments: [
        "GPRMC,101010,A,1060.0,N,01000.0,E,,,010624,,",  // 60 minutes
        "GPRMC,101010,A,9100.0,N,01000.0,E,,,010624,,",  // latitude > 90
        "GPRMC,101010,A,1000.0,N,18100.0,E,,,010624,,",  // longitude > 180
        "GPRMC,101010,A,1000.0,X,01000.0,E,,,010624,,",  // no hemisphere
        "GPRMC,101010,A,-1000.0,N,01000.0,E,,,010624,,",
        "GPRMC,101010,A,1e3,N,01000.0,E,,,010624,,",
        "GPRMC,251010,A,1000.0,N,01000.0,E,,,010624,,",  // hour 25
    ])
    func outOfRangeValuesGiveNoFix(_ body: String) {
        let (events, _) = parse([body])
        #expect(fixes(events).isEmpty)
    }

    @Test func learntCycleEndEmitsWithoutWaitingForTheNextEpoch() {
        var parser = NMEAParser()
        let first = parser.feed(
            Array(
                (nmea("GPGGA,101010,1000.0,N,01000.0,E,1,04,1.0,20.0,M,,M,,")
                    + nmea("GPRMC,101010,A,1000.0,N,01000.0,E,,,010624,,")).utf8))
        #expect(first.isEmpty)  // the end of the epoch is not known yet
        let second = parser.feed(
            Array(
                (nmea("GPGGA,101011,1000.0,N,01000.0,E,1,04,1.0,20.0,M,,M,,")
                    + nmea("GPRMC,101011,A,1000.0,N,01000.0,E,,,010624,,")).utf8))
        // The first epoch closes at the new time stamp; the second at its RMC, which ended the first.
        #expect(fixes(second).map(\.time) == [utc("2024-06-01T10:10:10Z"), utc("2024-06-01T10:10:11Z")])
        #expect(parser.finish().isEmpty)
    }

    /// A GGA of 12:00:01 late, after 12:00:02's RMC, is dropped and counted. Before: it closed
    /// 12:00:02 early (a 2D fix without its GGA) and 12:00:01 came out again: 01, 02, 01, 02.
    @Test func aLateSentenceOfAnEarlierEpochIsDroppedNotANewEpoch() throws {
        let (events, stats) = parse([
            "GPRMC,120000,A,6010.0000,N,02456.0000,E,1.0,90,010125,,,A",
            "GPGGA,120000,6010.0000,N,02456.0000,E,1,08,0.9,10.0,M,17.0,M,,",
            "GPRMC,120001,A,6010.0010,N,02456.0000,E,1.0,90,010125,,,A",
            "GPGGA,120001,6010.0010,N,02456.0000,E,1,08,0.9,10.0,M,17.0,M,,",
            "GPRMC,120002,A,6010.0020,N,02456.0000,E,1.0,90,010125,,,A",
            "GPGGA,120001,6010.0010,N,02456.0000,E,1,08,0.9,10.0,M,17.0,M,,",
            "GPGGA,120002,6010.0020,N,02456.0000,E,1,08,0.9,10.0,M,17.0,M,,",
            "GPGGA,120000,6010.0000,N,02456.0000,E,1,08,0.9,10.0,M,17.0,M,,",
            "GPRMC,120003,A,6010.0030,N,02456.0000,E,1.0,90,010125,,,A",
            "GPGGA,120003,6010.0030,N,02456.0000,E,1,08,0.9,10.0,M,17.0,M,,",
        ])
        let all = fixes(events)
        #expect(all.map(\.time) == (0...3).map { utc("2025-01-01T12:00:0\($0)Z") })
        #expect(all.allSatisfy { $0.mode == .threeD && $0.altitudeMSL == 10 })
        #expect(stats.late == 2)
    }

    /// `hhmmss.ss` of a time of day in tenths of a second (may be negative: the day before).
    static func stamp(tenths: Int) -> String {
        let t = (tenths + 864_000) % 864_000
        return String(format: "%02d%02d%02d.%d0", t / 36_000, t / 600 % 60, t / 10 % 60, t % 10)
    }

    /// A 10 Hz receiver, RMC (dated `ddmmyy`, the next day from midnight) and GGA, from
    /// `from` to `to` (tenths of a second of the day; negative before midnight); `ggaOnlyFrom`
    /// on, GGA alone.
    static func tenHertz(
        from: Int, to: Int, ddmmyy: (before: String, after: String), ggaOnlyFrom: Int = .max
    )
        -> [(tenths: Int, bodies: [String])]
    {
        (from...to).map { tenths in
            let t = stamp(tenths: tenths)
            let date = tenths < 0 ? ddmmyy.before : ddmmyy.after
            let gga = "GPGGA,\(t),6010.0000,N,02456.0000,E,1,08,0.9,10.0,M,17.0,M,,"
            return tenths >= ggaOnlyFrom
                ? (tenths, [gga])
                : (tenths, ["GPRMC,\(t),A,6010.0000,N,02456.0000,E,1.0,90,\(date),,,A", gga])
        }
    }

    /// At 10 Hz a GGA repeated 2 s or 15 s after its epoch is late: dropped and counted, time
    /// never goes back. Before: only the last 16 epochs (1.6 s at 10 Hz) were remembered, and
    /// the repeat came out as a stale fix (a replay refused the walk, exit 2).
    @Test(arguments: [20, 150])
    func aRepeatAtTenHertzWithinSixteenSecondsIsLate(_ ageTenths: Int) throws {
        let end = 432_000 + 170  // 12:00:17.0
        var bodies: [String] = []
        for (tenths, epoch) in Self.tenHertz(from: 432_000, to: end, ddmmyy: ("010125", "010125")) {
            bodies += epoch
            if tenths == end - 10 {
                bodies.append(
                    epoch[1].replacingOccurrences(
                        of: Self.stamp(tenths: tenths), with: Self.stamp(tenths: tenths - ageTenths)))
            }
        }
        let (events, stats) = parse(bodies)
        let times = fixes(events).map(\.time)
        #expect(times.count == 171)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
        #expect(stats.late == 1)
    }

    /// Just after midnight at 10 Hz, a GGA of 23:59:59.0 repeated after 00:00:01.0, then GGA
    /// alone (no date): dropped as late, and every fix after is dated the new day. Before: it
    /// came out dated the new day, a day ahead, and every undated fix after it a day ahead.
    @Test func aRepeatJustAfterMidnightIsLateNotADayAhead() throws {
        var bodies: [String] = []
        for (tenths, epoch) in Self.tenHertz(from: -20, to: 20, ddmmyy: ("041226", "051226"), ggaOnlyFrom: 10)
        {
            bodies += epoch
            if tenths == 10 {
                bodies.append(epoch[0].replacingOccurrences(of: "000001.00", with: "235959.00"))
            }
        }
        let (events, stats) = parse(bodies)
        let times = fixes(events).map(\.time)
        #expect(stats.late == 1)
        #expect(times.count == 41)
        #expect(times.last == utc("2026-12-05T00:00:02Z"))
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
    }

    /// A sentence from before midnight too old to be recognised (20 s) opens an epoch of its
    /// own, dated the day it belongs to, and the undated epochs after it stay on the new day.
    /// Before: dated the new day (a day ahead), and every later fix a day ahead with it.
    @Test func anOldSentenceFromBeforeMidnightIsDatedItsOwnDay() throws {
        var bodies: [String] = []
        for (tenths, epoch) in Self.tenHertz(from: -20, to: 20, ddmmyy: ("041226", "051226"), ggaOnlyFrom: 10)
        {
            bodies += epoch
            if tenths == 10 {
                bodies.append(epoch[0].replacingOccurrences(of: "000001.00", with: "235941.00"))
            }
        }
        let (events, stats) = parse(bodies)
        let times = fixes(events).map(\.time)
        #expect(stats.late == 0)
        #expect(times.contains(utc("2026-12-04T23:59:41Z")))
        #expect(times.last == utc("2026-12-05T00:00:02Z"))
        #expect(times.allSatisfy { $0 <= utc("2026-12-05T00:00:02Z") })
    }

    /// One garbled GSA taught GGA as the cycle's end; the next GSA, after it, unteaches it, so
    /// from the epoch after that on each fix has its GSA again: vertical accuracy from VDOP,
    /// and 2D when GSA says 2D. Before: every later GSA was ignored, vertical accuracy lost
    /// for the rest of the stream and a 2D fix reported as 3D (GGA gives an altitude).
    @Test(arguments: [2, 3])
    func oneGarbledGSADoesNotLoseTheRest(_ fixType: Int) throws {
        var text = ""
        for second in 0..<6 {
            text += nmea("GPRMC,12000\(second).00,A,6010.0000,N,02456.0000,E,1.0,90.0,010125,,,A")
            text += nmea("GPGGA,12000\(second).00,6010.0000,N,02456.0000,E,1,08,0.9,10.0,M,17.0,M,,")
            let gsa = nmea("GPGSA,A,\(fixType),01,02,03,04,,,,,,,,,1.5,0.9,1.2")
            // The second epoch's GSA arrives garbled (its checksum is wrong).
            text += second == 1 ? gsa.replacingOccurrences(of: "1.2*", with: "1.3*") : gsa
        }
        let (events, stats) = NMEAParser.parse(Array(text.utf8))
        #expect(stats.badChecksum == 1)
        let all = fixes(events)
        try #require(all.count == 6)
        for fix in all[3...] {
            #expect(fix.mode == (fixType == 2 ? .twoD : .threeD), "\(fix.time)")
            if fixType == 3 { #expect(fix.verticalAccuracy == 1.2 * NMEAParser.uereMetres, "\(fix.time)") }
        }
    }

    /// Dead reckoning with the receiver's own GST on every other epoch, after its GGA (the
    /// auditor's gsthalf pattern): the learnt cycle end (GGA, taught by an epoch without GST)
    /// does not close a dead-reckoned epoch still without its σ; it waits for its GST, and is
    /// a fix as that GST comes (not an epoch later), or no fix at the next time stamp. Before:
    /// it closed at GGA as no fix and its GST, after the end, was dropped: of four such epochs
    /// one fix (the first, before any end was learnt), or none.
    @Test(arguments: [0, 1])
    func deadReckoningWithGSTOnSomeEpochsAfterTheLearntEndIsAFixAtItsGST(_ firstWithGST: Int) throws {
        var parser = NMEAParser()
        var byEpoch: [[PositionEvent]] = []
        for second in 0..<8 {
            let t = "12000\(second).00"
            var text =
                nmea("GPRMC,\(t),A,6010.0000,N,02456.0000,E,0.5,40.5,150625,,,E")
                + nmea("GPGGA,\(t),6010.0000,N,02456.0000,E,6,09,0.7,10.7,M,17.9,M,,")
            if second % 2 == firstWithGST { text += nmea("GPGST,\(t),1.0,,,,0.6,0.8,1.5") }
            byEpoch.append(parser.feed(Array(text.utf8)))
        }
        let events = byEpoch.joined() + parser.finish()
        let withGST = (0..<8).filter { $0 % 2 == firstWithGST }
        let all = fixes(Array(events))
        #expect(all.map(\.time) == withGST.map { utc("2025-06-15T12:00:0\($0)Z") }, "\(events)")
        #expect(all.allSatisfy { $0.horizontalAccuracy == 1 && $0.verticalAccuracy == 1.5 }, "\(all)")
        // Each comes as its own GST is read (the first epoch's at the next time stamp: no end
        // is known yet).
        for second in withGST where second > 0 {
            let own = fixes(byEpoch[second]).map(\.time)
            #expect(own == [utc("2025-06-15T12:00:0\(second)Z")], "epoch \(second): \(byEpoch[second])")
        }
        let stats = parser.stats
        #expect(stats.late == 0)
        #expect(stats.noFix == 8 - withGST.count && stats.notGNSS == stats.noFix)
    }

    /// A clock that jumps back past the epochs remembered (a receiver reset, two logs joined)
    /// is not a late sentence: the new epochs come out, for the consumer to judge.
    @Test func aClockJumpingBackFarOpensNewEpochs() throws {
        let (events, stats) = parse([
            "GPRMC,120000,A,6010.0000,N,02456.0000,E,1.0,90,010125,,,A",
            "GPRMC,110000,A,6010.0000,N,02456.0000,E,1.0,90,010125,,,A",
            "GPRMC,110001,A,6010.0000,N,02456.0000,E,1.0,90,010125,,,A",
        ])
        #expect(fixes(events).count == 3)
        #expect(stats.late == 0)
    }
}

@Suite struct PressureSentenceTests {
    func pressures(_ bodies: [String]) -> [PressureReading] {
        parse(bodies).events.compactMap { if case .pressure(let p) = $0 { p } else { nil } }
    }

    @Test(
        arguments: [
            ("IIXDR,P,1.02481,B,Barometer", 1024.81, PressureReading.Source.nmeaXDR),
            ("WIXDR,P,101325,P,BARO", 1013.25, .nmeaXDR),
            ("IIXDR,C,,C,AIRTEMP,P,,B,BARO,P,1.00870,B,BARO2", 1008.7, .nmeaXDR),
            // An oil pressure (0.5 bar) before the barometer; a tyre (2.2 bar) before another
            // transducer; a named barometer preferred to an unnamed one before it.
            ("IIXDR,P,0.5,B,OILP,P,1.01300,B,BARO", 1013, .nmeaXDR),
            ("IIXDR,P,2.2,B,TYRE,P,1.00100,B,P2", 1001, .nmeaXDR),
            ("IIXDR,P,0.99000,B,P1,P,1.01300,B,Barometer", 1013, .nmeaXDR),
            ("WIMDA,29.9213,I,1.01325,B,21.5,C,,C,45.0,,9.2,C,,T,,M,,N,,M", 1013.25, .nmeaMDA),
            ("WIMDA,29.9213,I,,B,21.5,C,,C,45.0,,9.2,C,,T,,M,,N,,M", 1013.25, .nmeaMDA),
            ("WIMMB,29.9213,I,1.01325,B", 1013.25, .nmeaMMB),
            ("PGRMZ,0,f,2", 1013.25, .pgrmz),
        ] as [(String, Double, PressureReading.Source)])
    func pressureSentences(_ body: String, _ hPa: Double, _ source: PressureReading.Source) throws {
        let p = try #require(pressures([body]).first)
        #expect(abs(p.hPa - hPa) < 0.01)
        #expect(p.source == source)
    }

    @Test func pgrmzFeetAreTurnedIntoPressure() throws {
        let p = try #require(pressures(["PGRMZ,1000,f,3"]).first)
        #expect(abs(p.hPa - ISA.pressure(altitude: 304.8, seaLevel: 1013.25)) < 0.001)
    }

    @Test(arguments: [
        "IIXDR,C,,C,AIRTEMP,P,,B,BARO", "IIXDR,P,1.0,X,BARO", "IIXDR,P,12.0,B,BARO", "WIMMB,,I,,B",
        "PGRMZ,93,x,3",
    ])
    func emptyOrImplausiblePressureIsSkipped(_ body: String) {
        #expect(pressures([body]).isEmpty)
    }

    @Test func pressureTakesTheEpochTime() throws {
        let p = try #require(
            pressures(["GPRMC,101010,A,1000.0,N,01000.0,E,,,010624,,", "IIXDR,P,1.00870,B,Barometer"]).first)
        #expect(p.time == utc("2024-06-01T10:10:10Z"))
    }
}

@Suite struct LineTests {
    @Test func countsWhatItSkips() {
        let good = nmea("GPRMC,101010,A,1000.0,N,01000.0,E,,,010624,,")
        var bad = Array(good.utf8)
        bad[10] = UInt8(ascii: "7")  // one changed digit: checksum no longer matches
        let input: [UInt8] =
            Array("# comment\r\n".utf8) + [0x00, 0xFF, 0x13, 0x0A] + bad
            + Array(("$GPRMC,101010,A,10" + "\r\n").utf8)  // cut short
            + Array(("$GPGGA," + String(repeating: "9", count: 200) + "*00\r\n").utf8)
            + Array(nmea("GPGSV,3,1,12,20,76,058,40").utf8)
            + Array(good.lowercased().replacingOccurrences(of: "$gprmc", with: "$GPRMC").utf8)
        let (events, stats) = NMEAParser.parse(input)
        #expect(stats.comments == 1)
        #expect(stats.junk == 2)  // the binary bytes and the cut line
        #expect(stats.badChecksum == 1 + 1)  // the changed digit; the lower-cased letters change the sum too
        #expect(stats.overlong == 1)
        #expect(stats.unknown == 1)
        #expect(events.isEmpty)
    }

    /// Trailing spaces after the checksum are stripped; a trailing NUL is a non-printable byte,
    /// so the line is junk (the parser's comment said NULs were stripped too).
    @Test func trailingSpacesAreStrippedAndATrailingNULIsJunk() {
        let good = nmea("GPRMC,101010,A,1000.0,N,01000.0,E,,,010624,,").dropLast()  // "\r\n" is one Character
        let spaces = NMEAParser.parse(Array((good + "  \r\n").utf8))
        #expect(spaces.stats.fixes == 1 && spaces.stats.junk == 0)
        let nul = NMEAParser.parse(Array(good.utf8) + [0x00, 0x0D, 0x0A])
        #expect(nul.stats.fixes == 0 && nul.stats.junk == 1)
    }

    @Test func lowercaseChecksumHexIsAccepted() {
        let line = nmea("GPRMC,101010,A,1000.0,N,01000.0,W,,,010624,,")
        let (events, stats) = NMEAParser.parse(
            Array(line.replacingOccurrences(of: "*3", with: "*3").lowercasedHex.utf8))
        #expect(stats.badChecksum == 0)
        #expect(fixes(events).count == 1)
    }

    @Test func bareCRAndBareLFEndLinesAndADollarResyncs() {
        let a = nmea("GPRMC,101010,A,1000.0,N,01000.0,E,,,010624,,").dropLast(1)  // "\r\n" is one Character
        let b = nmea("GPRMC,101011,A,1000.0,N,01000.0,E,,,010624,,").dropLast(1)  // "\r\n" is one Character
        let c = nmea("GPRMC,101012,A,1000.0,N,01000.0,E,,,010624,,").dropLast(1)  // "\r\n" is one Character
        // a and b glued together (a lost line end), then \r, then c with \n.
        let (events, stats) = NMEAParser.parse(Array((a + b + "\r" + c + "\n").utf8))
        #expect(fixes(events).count == 3)
        #expect(stats.lines == 3)
    }
}

extension String {
    /// The checksum's hex digits in lower case (`*3A` → `*3a`).
    var lowercasedHex: String {
        guard let star = lastIndex(of: "*") else { return self }
        return String(self[..<star]) + self[star...].lowercased()
    }
}

/// A receiver's pressure after the sentence that ends its cycle (XDR after GST: the demo walk's
/// order) carries that epoch's time, every epoch (before, only the first, before the cycle's
/// end was learnt; later readings came without a time and the altimeter skipped its checks).
@Test func pressureAfterTheCycleEndCarriesTheEpochsTime() throws {
    var bodies: [String] = []
    for second in 1...3 {
        let t = String(format: "1000%02d.00", second)
        bodies += [
            "GPRMC,\(t),A,6010.000,N,02456.000,E,0.5,90.0,150625,,,A",
            "GPGGA,\(t),6010.000,N,02456.000,E,1,08,0.9,20.0,M,17.0,M,,",
            "GPGST,\(t),1.0,2.0,1.5,0.0,2.0,1.5,3.0",
            "IIXDR,P,1.00870,B,Barometer",
        ]
    }
    let times = parse(bodies).events.compactMap { event -> Date?? in
        if case .pressure(let reading) = event { reading.time } else { nil }
    }
    let expected = (1...3).map { Date?(ISO8601DateFormatter().date(from: "2025-06-15T10:00:0\($0)Z")!) }
    #expect(times == expected)
}
