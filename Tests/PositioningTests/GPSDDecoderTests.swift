import Foundation
import Geo
import Testing

@testable import Positioning

/// gpsd's JSON as the client reads it (lines as gpsd 3.22 writes them).
@Suite struct GPSDDecoderTests {
    func decode(_ lines: [String]) -> [PositionEvent] {
        var d = GPSDDecoder()
        return d.feed(Array(lines.map { $0 + "\n" }.joined().utf8))
    }

    static let tpv =
        #"{"class":"TPV","device":"tcp://x","mode":3,"time":"2020-07-11T22:37:46.000Z","ept":0.005,"lat":38.110494333,"lon":-122.626897333,"altHAE":53.500,"altMSL":83.000,"alt":83.000,"epx":5.1,"epy":4.0,"epv":6.0,"track":12.5,"speed":0.031,"climb":0.0,"eph":10.26}"#

    @Test func tpvBecomesAFixWithHalvedGPSDAccuracy() throws {
        let events = decode([#"{"class":"VERSION","release":"3.22"}"#, Self.tpv])
        guard case .fix(let f) = try #require(events.first) else {
            Issue.record("expected a fix, got \(events)")
            return
        }
        #expect(events.count == 1)
        #expect(f.time == FixStreamRecord.parseTime("2020-07-11T22:37:46Z"))
        #expect(f.coordinate == Coordinate(latitude: 38.110494333, longitude: -122.626897333))
        #expect(f.mode == .threeD && f.altitudeMSL == 83 && f.altitudeHAE == 53.5)
        #expect(f.horizontalAccuracy == 5.13 && f.verticalAccuracy == 3)
        #expect(f.speed == 0.031 && f.course == 12.5)
    }

    @Test func gstOfTheSameEpochWins() throws {
        let gst =
            #"{"class":"GST","device":"tcp://x","time":"2020-07-11T22:37:46.000Z","rms":837.000,"major":2.500,"minor":2.400,"orient":127.0,"lat":3.000,"lon":4.000,"alt":3.500}"#
        guard case .fix(let f) = try #require(decode([gst, Self.tpv]).first) else {
            Issue.record("expected a fix")
            return
        }
        #expect(f.horizontalAccuracy == 5)
        #expect(f.verticalAccuracy == 3.5)
        // A GST from long ago does not count.
        let old = gst.replacingOccurrences(of: "22:37:46", with: "22:30:00")
        guard case .fix(let g) = try #require(decode([old, Self.tpv]).first) else {
            Issue.record("expected a fix after a stale GST")
            return
        }
        #expect(g.horizontalAccuracy == 5.13)
    }

    static func tpv(_ second: Int) -> String {
        tpv.replacingOccurrences(of: "22:37:46", with: "22:37:\(second)")
    }

    static func gst(_ second: Int, _ sigma: Double) -> String {
        #"{"class":"GST","device":"tcp://x","time":"2020-07-11T22:37:\#(second).000Z","rms":1.0,"lat":\#(sigma),"lon":0.001,"alt":\#(sigma)}"#
    }

    /// gpsd 3.22's order, an epoch's TPV then its GST, with GST on every other epoch and sky
    /// chatter between: each TPV is a fix the moment it is read, with the latest GST within
    /// 1.5 s (the previous epoch's), else gpsd's accuracy. Before: once a GST was seen after
    /// its TPV, every TPV was held for its GST until the next TPV or 0.1 s of quiet, which a
    /// busy link never has, so every other fix came a second late and no GST was ever used.
    @Test func everyTPVIsAFixAtOnceWithTheLatestGSTWithinReach() throws {
        var d = GPSDDecoder()
        var fixes: [Fix] = []
        let sky = #"{"class":"SKY","satellites":[]}"#
        for second in 46...51 {
            let events = d.feed(Array((Self.tpv(second) + "\n").utf8))
            guard case .fix(let f) = try #require(events.first, "TPV \(second) gave \(events)") else {
                Issue.record("TPV \(second) gave \(events)")
                return
            }
            #expect(f.time == FixStreamRecord.parseTime("2020-07-11T22:37:\(second)Z"))
            fixes.append(f)
            let after =
                (second.isMultiple(of: 2) ? [Self.gst(second, Double(second - 40))] : []) + [sky, sky]
            #expect(d.feed(Array(after.map { $0 + "\n" }.joined().utf8)).isEmpty)
        }
        // 46: no GST yet; 47: 46's; 48: 46's is 2 s old, gpsd's; 49: 48's; 50: gpsd's; 51: 50's.
        #expect(fixes.map(\.verticalAccuracy) == [3, 6, 3, 8, 3, 10])
        #expect(abs((fixes[3].horizontalAccuracy ?? 0) - 8) < 0.001)
        #expect(fixes[4].horizontalAccuracy == 5.13)
    }

    /// A GST comes first (other gpsd versions, other receivers): the fix takes it.
    @Test func aGSTBeforeItsTPVIsUsed() throws {
        let events = decode([Self.gst(46, 4), Self.gst(47, 7), Self.tpv(47)])
        guard case .fix(let f) = try #require(events.first) else {
            Issue.record("expected a fix, got \(events)")
            return
        }
        #expect(f.verticalAccuracy == 7)
    }

    /// After a reconnect (`reset()`), the last connection's GST is forgotten. Before: kept.
    @Test func resetForgetsTheLastGST() throws {
        var d = GPSDDecoder()
        _ = d.feed(Array((Self.gst(46, 4) + "\n").utf8))
        d.reset()
        guard case .fix(let f) = try #require(d.feed(Array((Self.tpv(46) + "\n").utf8)).first) else {
            Issue.record("expected a fix")
            return
        }
        #expect(f.verticalAccuracy == 3 && f.horizontalAccuracy == 5.13)
    }

    @Test func modeOneIsNoFixAndZeroEphIsUnknown() throws {
        let events = decode([
            #"{"class":"TPV","mode":1,"time":"2020-07-11T22:37:40.000Z"}"#,
            #"{"class":"TPV","mode":2,"time":"2020-07-11T22:37:41.000Z","lat":1.5,"lon":2.5,"eph":0,"altMSL":12.0}"#,
            #"{"class":"TPV","mode":3,"lat":1.5,"lon":2.5}"#,  // no time: not a fix we can use
            "not json", #"{"class":"SKY","satellites":[]}"#,
        ])
        #expect(events.count == 3)
        #expect(events[0] == .noFix(time: FixStreamRecord.parseTime("2020-07-11T22:37:40Z")))
        guard case .fix(let f) = events[1] else {
            Issue.record("expected a fix")
            return
        }
        #expect(f.mode == .twoD && f.horizontalAccuracy == nil && f.altitudeMSL == nil)
        #expect(events[2] == .noFix(time: nil))
    }

    /// gpsd reports a new receiver's first epoch once a sentence until it learns which
    /// sentence ends the cycle: with the u-blox log, seven TPVs for 22:37:45, the last five
    /// alike. A report that adds nothing is not another fix; one that adds to the epoch is.
    @Test func aRepeatedReportOfAnEpochIsOneFix() throws {
        let twoD = Self.tpv.replacingOccurrences(of: #""mode":3"#, with: #""mode":2"#)
        let events = decode([twoD, Self.tpv, Self.tpv, Self.tpv])
        #expect(events.count == 2, "\(events)")
        guard case .fix(let first) = events.first, case .fix(let second) = events.last else {
            Issue.record("expected two fixes, got \(events)")
            return
        }
        #expect(first.mode == .twoD && second.mode == .threeD)
        // The next epoch is a fix again, and so is the same epoch after another one.
        let next = Self.tpv.replacingOccurrences(of: "22:37:46", with: "22:37:47")
        #expect(decode([Self.tpv, next, Self.tpv]).count == 3)
    }

    static func tpv(status: Int) -> String {
        tpv.replacingOccurrences(of: #""mode":3"#, with: #""status":\#(status),"mode":3"#)
    }

    /// gpsd's `status` 7 (time only: a receiver's manual position, GGA quality 7) and 8
    /// (simulated) are no fix; so is 5, dead reckoning alone, unless a GST gives its σ (gpsd's
    /// `eph` is HDOP × 19 there, describing satellites it does not use). Before, each was a fix.
    /// Dead reckoning's no fix comes once the next epoch says its GST is not coming.
    @Test(arguments: [5, 7, 8])
    func simulatedTypedInAndBareDeadReckoningAreNoFix(_ status: Int) {
        let next = Self.tpv(status: status).replacingOccurrences(of: "22:37:46", with: "22:37:47")
        #expect(
            decode([Self.tpv(status: status), next]).first
                == .noFix(time: FixStreamRecord.parseTime("2020-07-11T22:37:46Z")))
    }

    /// DGPS, RTK fixed and float, GNSS with dead reckoning, and a PPS fix stay fixes; dead
    /// reckoning alone with a GST's σ is a fix of that σ.
    @Test(arguments: [2, 3, 4, 6, 9])
    func satelliteFixesOfEveryStatusStayFixes(_ status: Int) throws {
        guard case .fix(let f) = try #require(decode([Self.tpv(status: status)]).first) else {
            Issue.record("status \(status) was no fix")
            return
        }
        #expect(f.horizontalAccuracy == 5.13)
    }

    @Test func deadReckoningWithAGSTIsAFixOfItsSigma() throws {
        guard case .fix(let f) = try #require(decode([Self.gst(46, 4), Self.tpv(status: 5)]).first) else {
            Issue.record("dead reckoning with a GST was no fix")
            return
        }
        #expect(abs((f.horizontalAccuracy ?? 0) - 4) < 0.001 && f.verticalAccuracy == 4)
    }

    /// gpsd 3.22 sends an epoch's GST after its TPV: the GST just before a dead-reckoned TPV
    /// is the last satellite epoch's. Dead reckoning takes only a GST of its own time (before:
    /// the latest within 1.5 s, so the switch to dead reckoning carried the satellites' σ).
    @Test func bareDeadReckoningTakesOnlyTheGSTOfItsOwnTime() throws {
        let reckoned = Self.tpv(status: 5).replacingOccurrences(of: "22:37:46", with: "22:37:47")
        // No fix once the next epoch's GST shows its own is not coming.
        let events = decode([Self.tpv(46), Self.gst(46, 4), reckoned, Self.gst(48, 4)])
        #expect(events.count == 2, "\(events)")
        #expect(events.last == .noFix(time: FixStreamRecord.parseTime("2020-07-11T22:37:47Z")))
        // Its own GST, come first, still makes it a fix of that σ.
        guard case .fix(let f) = try #require(decode([Self.gst(47, 6), reckoned]).last) else {
            Issue.record("dead reckoning with its own GST was no fix")
            return
        }
        #expect(f.verticalAccuracy == 6)
    }

    /// gpsd may pass on a receiver's course of -0 (`"track":-0.0`): the fix's course is 0,
    /// and the fix stream prints `"course":0` (before: -0 ≥ 0 passed, and printed as -0).
    @Test func aTrackOfMinusZeroIsCourseZero() throws {
        let still = Self.tpv.replacingOccurrences(of: #""track":12.5"#, with: #""track":-0.0"#)
        guard case .fix(let f) = try #require(decode([still]).first) else {
            Issue.record("expected a fix")
            return
        }
        #expect(f.course == 0 && f.course?.sign == .plus)
        let record = try #require(FixStreamRecord(.fix(f)))
        let line = String(decoding: try JSONEncoder().encode(record), as: UTF8.self)
        #expect(record.course?.sign == .plus && !line.contains(":-0"), "\(line)")
    }

    @Test func rawPressureSentencesPassThrough() {
        let events = decode(["$WIMDA,29.9213,I,1.01325,B,21.5,C,,C,45.0,,9.2,C,,T,,M,,N,,M*20"])
        #expect(events == [.pressure(PressureReading(time: nil, hPa: 1013.25, source: .nmeaMDA))])
    }
}
