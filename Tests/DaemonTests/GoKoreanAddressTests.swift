import Foundation
import Geo
import Glibc
import TestSupport
import Testing

@testable import Daemon

/// `go {"query"}` with a Korean address as a family copies it (audit 12), on the daemon's
/// socket, the walker standing in an apartment complex (a real gpsd on a private port).
@Suite(.serialized) struct GoKoreanAddressTests {
    /// "반포대로 275 103동 1203호" walks to 103동, 190 m away, not to 101동, 22 m from the walker,
    /// though all three buildings of the complex are tagged 반포대로 275 (before: the 동 was
    /// dropped with the flat, and "반포대로 275" walked to 101동, 103동 only an alternative).
    @Test func anApartmentAddressWalksToItsBuildingOfTheComplex() throws {
        let dir = TempDir()
        defer { dir.remove() }
        try GoQueryTests.importDoors(squareBuildingsXML(apartmentComplex()), as: "seoul", in: dir)
        let feeder = try NMEAFeeder(
            nmea: GoQueryTests.standing(at: Coordinate(latitude: 37.4999, longitude: 127.0003)),
            epochsPerSecond: 2)
        defer { feeder.shutdown() }
        let gpsdPort = try NMEAFeeder.freePort()
        let daemon = try GoQueryTests.daemon(
            in: dir, gpsdPort: gpsdPort, doors: try GoQueryTests.doorsFolder(dir),
            gazetteer: try GoQueryTests.bundledGazetteer())
        let client = try daemon.client()
        let gpsd = try GPSDProcess(port: gpsdPort, feed: feeder.port)
        defer { gpsd.stop() }
        try GoQueryTests.waitForFix(client, of: daemon)
        let reply = try GoQueryTests.go(client, "반포대로 275 103동 1203호")
        #expect(reply["ok"] == .bool(true), "\(reply)")
        #expect(GoQueryTests.latitudes(reply, "match") == [37.5017], "\(reply)")
        #expect(reply["note"]?.stringValue?.contains(#"found by "반포대로 275 103동""#) == true, "\(reply)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }
}
