import Foundation
import Geo
import Positioning
import Testing

/// The real receiver logs from gpsd's regression suite, against what gpsd itself reports.
@Suite struct GPSDLogTests {
    /// gpsd moves dates before the last GPS week rollover (2019-04-06) on by 1024 weeks; a
    /// raw parser sees the receiver's real date.
    static let rolloverShift: TimeInterval = 1024 * 7 * 86_400
    static let lastRollover = Date(timeIntervalSince1970: 1_554_508_800)  // 2019-04-06T00:00Z

    func fixes(_ name: String) throws -> (fixes: [Fix], stats: NMEAParser.Stats) {
        let (events, stats) = NMEAParser.parse(try Fixtures.log(name))
        let fixes = events.compactMap { if case .fix(let f) = $0 { f } else { nil } }
        return (fixes, stats)
    }

    func expectSame(_ ours: Fix, _ theirs: Fixtures.Expected.TPV, _ name: String) throws {
        var gpsdTime = try #require(
            FixStreamRecord.parseTime(theirs.time), "\(name): gpsd time \(theirs.time)")
        if ours.time < Self.lastRollover { gpsdTime -= Self.rolloverShift }
        #expect(ours.time == gpsdTime, "\(name): time \(ours.time) vs gpsd \(theirs.time)")
        // gpsd prints 9 decimals.
        #expect(abs(ours.coordinate.latitude - theirs.lat) < 1e-8, "\(name): lat")
        #expect(abs(ours.coordinate.longitude - theirs.lon) < 1e-8, "\(name): lon")
    }

    @Test(arguments: Fixtures.logs)
    func fixCountAndEndsMatchGPSD(_ name: String) throws {
        let (fixes, _) = try fixes(name)
        let expected = try Fixtures.expected(name)
        #expect(fixes.count == expected.fixCount, "\(name)")
        let first = try #require(fixes.first)
        let last = try #require(fixes.last)
        try expectSame(first, try #require(expected.fixes.first), name)
        try expectSame(last, try #require(expected.fixes.last), name)
        #expect(fixes.allSatisfy { $0.isPlausible })
    }

    /// Every fix, not just the ends: same times and positions, same altitude where gpsd
    /// gives one, same speed to gpsd's rounding.
    @Test(arguments: Fixtures.logs)
    func everyFixMatchesGPSD(_ name: String) throws {
        let (fixes, _) = try fixes(name)
        let expected = try Fixtures.expected(name)
        for (ours, theirs) in zip(fixes, expected.fixes) {
            try expectSame(ours, theirs, name)
            if let alt = theirs.altMSL, let mine = ours.altitudeMSL {
                #expect(abs(alt - mine) < 0.001, "\(name) \(theirs.time): altMSL \(mine) vs \(alt)")
            }
            if let hae = theirs.altHAE, let mine = ours.altitudeHAE {
                #expect(abs(hae - mine) < 0.001, "\(name) \(theirs.time): altHAE \(mine) vs \(hae)")
            }
            if let speed = theirs.speed, let mine = ours.speed {
                #expect(abs(speed - mine) < 0.001, "\(name) \(theirs.time): speed \(mine) vs \(speed)")
            }
        }
    }

    @Test func coldBootLogIsCountedNotTrusted() throws {
        let (fixes, stats) = try fixes("gp-320fw-2019-04-07-coldboot")
        #expect(fixes.count == 1)
        #expect(stats.badChecksum >= 15)
        #expect(stats.junk > 0)
        #expect(stats.noFix > 10)
        #expect(stats.unknown > 0)  // $PLCS, GSV
        #expect(stats.undated == 1)  // 00:03:43 has a GGA fix but no date yet
    }

    @Test func chunkingDoesNotChangeEvents() throws {
        let bytes = try Fixtures.log("ublox-neo-m9n-nmea")
        let whole = NMEAParser.parse(bytes).events
        for chunk in [1, 7, 64, 4096] {
            var parser = NMEAParser()
            var events: [PositionEvent] = []
            var i = 0
            while i < bytes.count {
                events += parser.feed(bytes[i..<min(i + chunk, bytes.count)])
                i += chunk
            }
            events += parser.finish()
            #expect(events == whole, "chunk \(chunk)")
        }
    }
}
