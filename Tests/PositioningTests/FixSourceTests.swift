import Foundation
import Positioning
import Testing

/// What the receiver says its position came from: satellites, or a simulator, a position
/// typed in, dead reckoning (NMEA GGA quality 6/7/8, mode letters E/M/S).
@Suite struct FixSourceTests {
    static let gnss = [
        "GPGGA,120000.00,3733.0000,N,12658.0000,E,1,08,1.0,50.0,M,20.0,M,,",
        "GPRMC,120000.00,A,3733.0000,N,12658.0000,E,0.5,90.0,010124,,,A",
    ]

    /// A simulator's or a typed-in position is no fix, whichever sentence says so. Before, each
    /// was a fix like any other, and a walker would have been led by it.
    @Test(arguments: [
        // GGA quality 8 (simulator), 7 (manual input).
        ["GPGGA,120000.00,3733.0000,N,12658.0000,E,8,08,1.0,50.0,M,20.0,M,,", gnss[1]],
        ["GPGGA,120000.00,3733.0000,N,12658.0000,E,7,08,1.0,50.0,M,20.0,M,,", gnss[1]],
        // RMC mode S, M.
        [gnss[0], "GPRMC,120000.00,A,3733.0000,N,12658.0000,E,0.5,90.0,010124,,,S"],
        [gnss[0], "GPRMC,120000.00,A,3733.0000,N,12658.0000,E,0.5,90.0,010124,,,M"],
        // GLL mode S; GNS with a simulated or typed-in constellation.
        ["GPGLL,3733.0000,N,12658.0000,E,120000.00,A,S", "GPZDA,120000.00,01,01,2024,,"],
        ["GNGNS,120000.00,3733.0000,N,12658.0000,E,SS,08,1.0,50.0,20.0,,", "GPZDA,120000.00,01,01,2024,,"],
        ["GNGNS,120000.00,3733.0000,N,12658.0000,E,AM,08,1.0,50.0,20.0,,", "GPZDA,120000.00,01,01,2024,,"],
    ])
    func simulatedOrTypedInPositionsAreNoFix(_ bodies: [String]) {
        let (events, stats) = parse(bodies)
        #expect(events == [.noFix(time: utc("2024-01-01T12:00:00Z"))])
        #expect(stats.noFix == 1 && stats.fixes == 0 && stats.notGNSS == 1)
    }

    /// Dead reckoning alone (no satellites) with no error estimate of its own is no fix: a DOP
    /// describes the satellites of a solution it does not have, and a fix of unknown accuracy
    /// is taken as a good one (the arrival radius stays 12 m).
    @Test(arguments: [
        [
            "GPGGA,120000.00,3733.0000,N,12658.0000,E,6,08,1.0,50.0,M,20.0,M,,",
            "GPGSA,A,3,01,02,03,04,,,,,,,,,2.0,1.0,1.7", gnss[1],
        ],
        [gnss[0], "GPRMC,120000.00,A,3733.0000,N,12658.0000,E,0.5,90.0,010124,,,E"],
        ["GPGLL,3733.0000,N,12658.0000,E,120000.00,A,E", "GPZDA,120000.00,01,01,2024,,"],
        ["GNGNS,120000.00,3733.0000,N,12658.0000,E,EE,08,1.0,50.0,20.0,,", "GPZDA,120000.00,01,01,2024,,"],
    ])
    func deadReckoningWithoutItsOwnErrorEstimateIsNoFix(_ bodies: [String]) {
        let (events, stats) = parse(bodies)
        #expect(events == [.noFix(time: utc("2024-01-01T12:00:00Z"))])
        #expect(stats.noFix == 1 && stats.fixes == 0 && stats.notGNSS == 1)
    }

    /// Dead reckoning as the NMEA standard marks it, RMC or GLL status `V` with mode `E`: no fix,
    /// even with a GST σ (the receiver calls it void), and counted as not GNSS as the docs say.
    /// Before: a plain no-fix, counted nowhere, so nothing said why no position came.
    @Test(arguments: [
        ["GPRMC,120000.00,V,3733.0000,N,12658.0000,E,0.5,90.0,010124,,,E"],
        [
            "GPGGA,120000.00,3733.0000,N,12658.0000,E,6,08,1.0,50.0,M,20.0,M,,",
            "GPGST,120000.00,9.0,,,,6.0,8.0,",
            "GPRMC,120000.00,V,3733.0000,N,12658.0000,E,0.5,90.0,010124,,,E",
        ],
        ["GPGLL,3733.0000,N,12658.0000,E,120000.00,V,E", "GPZDA,120000.00,01,01,2024,,"],
    ])
    func deadReckoningMarkedVoidIsNoFixCountedNotGNSS(_ bodies: [String]) {
        let (events, stats) = parse(bodies)
        #expect(events == [.noFix(time: utc("2024-01-01T12:00:00Z"))])
        #expect(stats.noFix == 1 && stats.fixes == 0 && stats.notGNSS == 1)
    }

    /// Dead reckoning with the receiver's GST σ is a fix of that accuracy (never one from DOP).
    @Test func deadReckoningWithGSTSigmaIsAFixOfThatAccuracy() throws {
        let (events, stats) = parse([
            "GPGGA,120000.00,3733.0000,N,12658.0000,E,6,08,1.0,50.0,M,20.0,M,,",
            "GPGSA,A,3,01,02,03,04,,,,,,,,,2.0,1.0,1.7", "GPGST,120000.00,9.0,,,,6.0,8.0,",
            "GPRMC,120000.00,A,3733.0000,N,12658.0000,E,0.5,90.0,010124,,,E",
        ])
        let fix = try #require(fixes(events).first)
        #expect(fix.horizontalAccuracy == 10)
        // No altitude σ: the vertical accuracy is unknown, not VDOP × UERE.
        #expect(fix.verticalAccuracy == nil && fix.mode == .threeD)
        #expect(stats.fixes == 1 && stats.notGNSS == 0)
    }

    /// Satellite fixes of every kind stay fixes: GPS, DGPS, PPS, RTK fixed and float, and GNS
    /// letters A D P R F (one constellation dead-reckoned beside satellites is still GNSS).
    @Test(arguments: [
        "GPGGA,120000.00,3733.0000,N,12658.0000,E,1,08,1.0,50.0,M,20.0,M,,",
        "GPGGA,120000.00,3733.0000,N,12658.0000,E,2,08,1.0,50.0,M,20.0,M,,",
        "GPGGA,120000.00,3733.0000,N,12658.0000,E,3,08,1.0,50.0,M,20.0,M,,",
        "GPGGA,120000.00,3733.0000,N,12658.0000,E,4,08,1.0,50.0,M,20.0,M,,",
        "GPGGA,120000.00,3733.0000,N,12658.0000,E,5,08,1.0,50.0,M,20.0,M,,",
        "GNGNS,120000.00,3733.0000,N,12658.0000,E,ADPRF,08,1.0,50.0,20.0,,",
        "GNGNS,120000.00,3733.0000,N,12658.0000,E,AEN,08,1.0,50.0,20.0,,",
    ])
    func satelliteFixesStayFixes(_ body: String) throws {
        let (events, stats) = parse([body, "GPZDA,120000.00,01,01,2024,,"])
        let fix = try #require(fixes(events).first)
        #expect(fix.horizontalAccuracy == 5)
        #expect(stats.notGNSS == 0)
    }
}
