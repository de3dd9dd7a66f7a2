import Foundation
import Testing

@testable import Positioning

/// A leap second, 23:59:60 UTC (the last was 2016-12-31), in NMEA and in gpsd's times.
@Suite struct LeapSecondTests {
    /// A 10 Hz receiver across the leap second: 23:59:59.0 … 23:59:60.9, then 00:00:00.0 ….
    static func tenHertz() -> [String] {
        var bodies: [String] = []
        for (hhmmss, date) in [("235959", "311216"), ("235960", "311216"), ("000000", "010117")] {
            for tenth in 0..<10 {
                let t = "\(hhmmss).\(tenth)0"
                bodies += [
                    "GPRMC,\(t),A,3733.0000,N,12658.0000,E,0.5,90.0,\(date),,,A",
                    "GPGGA,\(t),3733.0000,N,12658.0000,E,1,08,1.0,50.0,M,20.0,M,,",
                ]
            }
        }
        return bodies
    }

    /// The leap second's epochs read as the last instant of 23:59:59 (23:59:59.999), each still
    /// its own epoch, so time never goes back. Before, 23:59:60.x read as 00:00:00.x of the next
    /// day, and the real 00:00:00.0 that followed went back by 0.9 s (a replay refused it).
    @Test func aLeapSecondReadsAsTheLastInstantOf235959() throws {
        let (events, stats) = parse(Self.tenHertz())
        let times = fixes(events).map(\.time)
        #expect(stats.fixes == 30 && stats.late == 0, "\(stats)")
        #expect(times.count == 30)
        #expect(
            zip(times, times.dropFirst()).allSatisfy { $0 <= $1 }, "\(times.map(FixStreamRecord.timeString))")
        let last = utc("2016-12-31T23:59:59.999Z")
        #expect(times[10..<20].allSatisfy { $0 == last }, "\(times.map(FixStreamRecord.timeString))")
        #expect(times[20] == utc("2017-01-01T00:00:00Z"))
        #expect(times[9] == utc("2016-12-31T23:59:59.900Z"))
    }

    /// A late repeat of the leap second's sentence after midnight is still recognised as late.
    @Test func aLateLeapSecondSentenceIsLate() {
        let bodies = Self.tenHertz()
        let (events, stats) = parse(bodies + [bodies[22], bodies[23]])  // 23:59:60.1 again
        #expect(fixes(events).count == 30)
        #expect(stats.late == 2)
    }

    /// 60 seconds anywhere but 23:59 is no time: the sentence gives no epoch.
    @Test func sixtySecondsBeforeAnotherMinuteIsNoTime() {
        let (events, _) = parse(["GPRMC,123060.00,A,3733.0000,N,12658.0000,E,0.5,90.0,010124,,,A"])
        #expect(events.isEmpty)
    }

    /// A sentence whose time stamp is no time (second 60 of another minute, hour 24, letters)
    /// is counted, as bad checksums are; an empty time (a cold start's RMC) is not. Before:
    /// dropped and counted nowhere.
    @Test func aTimeStampThatIsNoTimeIsCounted() {
        let (_, stats) = parse([
            "GPRMC,123060.00,A,3733.0000,N,12658.0000,E,0.5,90.0,010124,,,A",
            "GPGGA,240000.00,3733.0000,N,12658.0000,E,1,08,1.0,50.0,M,20.0,M,,",
            "GPGST,12x000.00,1.0,,,,0.8,0.6,1.5", "GPRMC,,V,,,,,,,,,,N",
        ])
        #expect(stats.badTime == 3 && stats.sentences == 4)
    }

    /// gpsd's form: "…T23:59:60.000Z" (and any fraction of it) reads as 23:59:59.999. Before,
    /// as the next day's 00:00:00, the same as the second after it, and a fraction went back.
    @Test(arguments: ["2016-12-31T23:59:60Z", "2016-12-31T23:59:60.000Z", "2016-12-31T23:59:60.500Z"])
    func gpsdsLeapSecondReadsAsTheLastInstantOf235959(_ text: String) throws {
        let time = try #require(FixStreamRecord.parseTime(text))
        #expect(FixStreamRecord.timeString(time) == "2016-12-31T23:59:59.999Z")
        var decoder = GPSDDecoder()
        let tpv = #"{"class":"TPV","mode":2,"time":"\#(text)","lat":37.55,"lon":126.96}"#
        guard case .fix(let fix) = try #require(decoder.feed(Array((tpv + "\n").utf8)).first) else {
            Issue.record("no fix")
            return
        }
        #expect(fix.time == time)
    }
}
