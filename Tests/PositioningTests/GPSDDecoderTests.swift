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

    /// gpsd 3.22's order, an epoch's TPV then its GST: once a GST is seen to follow its TPV,
    /// each later fix waits for its own GST and takes its σ. Before: each fix took the GST
    /// before it, the previous epoch's (within 1.5 s), one epoch late.
    @Test func eachFixTakesTheGSTOfItsOwnEpochSentAfterIt() throws {
        func tpv(_ second: Int) -> String {
            Self.tpv.replacingOccurrences(of: "22:37:46", with: "22:37:\(second)")
        }
        func gst(_ second: Int, _ sigma: Double) -> String {
            #"{"class":"GST","device":"tcp://x","time":"2020-07-11T22:37:\#(second).000Z","rms":1.0,"lat":\#(sigma),"lon":0.001,"alt":\#(sigma)}"#
        }
        var d = GPSDDecoder()
        let events = d.feed(
            Array(
                [tpv(46), gst(46, 4), tpv(47), #"{"class":"SKY"}"#, gst(47, 7), tpv(48), gst(48, 9)]
                    .map { $0 + "\n" }.joined().utf8))
        let fixes = events.compactMap { if case .fix(let f) = $0 { f } else { nil } }
        try #require(fixes.count == 3, "\(events)")
        #expect(fixes[0].verticalAccuracy == 3)  // the first went out at once: gpsd's epv halved
        #expect(fixes[1].verticalAccuracy == 7 && fixes[2].verticalAccuracy == 9)
        #expect(abs((fixes[2].horizontalAccuracy ?? 0) - 9) < 0.001)
        // A TPV whose GST does not come is passed on with gpsd's accuracy when the client says
        // the burst is over, never with the GST before it.
        let late = d.feed(Array((tpv(49) + "\n").utf8))
        #expect(late.isEmpty)
        guard case .fix(let f) = try #require(d.releaseHeld().first) else {
            Issue.record("the held fix was not released")
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

    @Test func rawPressureSentencesPassThrough() {
        let events = decode(["$WIMDA,29.9213,I,1.01325,B,21.5,C,,C,45.0,,9.2,C,,T,,M,,N,,M*20"])
        #expect(events == [.pressure(PressureReading(time: nil, hPa: 1013.25, source: .nmeaMDA))])
    }
}
