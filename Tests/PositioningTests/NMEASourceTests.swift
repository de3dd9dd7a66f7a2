import Foundation
import Positioning
import SystemCalls
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct NMEASourceTests {
    func collect(_ source: NMEASource) async throws -> [PositionEvent] {
        let fd = try source.open()
        var events: [PositionEvent] = []
        for await e in source.events(from: fd) { events.append(e) }
        return events
    }

    @Test func fileGivesWhatTheParserGives() async throws {
        let path = try Fixtures.url("nmea/ublox-neo-m9n-nmea.log").path
        let source = NMEASource(.file(path: path, paced: false))
        let events = try await collect(source)
        let expected = NMEAParser.parse(try Fixtures.log("ublox-neo-m9n-nmea"))
        #expect(events == expected.events)
        #expect(source.stats == expected.stats)
        #expect(source.failure == nil)
    }

    @Test func pacedFileGivesTheSameEvents() async throws {
        // Three epochs 50 ms apart: pacing changes when events come, never what they are.
        let text = ["GPRMC,101010.00", "GPRMC,101010.05", "GPRMC,101010.10"].map {
            nmea("\($0),A,1000.0,N,01000.0,E,,,010624,,")
        }.joined()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("paced-\(UUID()).nmea").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let paced = try await collect(NMEASource(.file(path: path, paced: true)))
        #expect(paced == NMEAParser.parse(Array(text.utf8)).events)
        #expect(paced.count == 3)
    }

    @Test func missingFileIsNamed() {
        #expect(throws: SystemCallError.self) {
            try NMEASource(.file(path: "/nonexistent/x.nmea", paced: false)).open()
        }
        do {
            _ = try NMEASource(.file(path: "/nonexistent/x.nmea", paced: false)).open()
        } catch {
            #expect(error.description.contains("/nonexistent/x.nmea"))
        }
    }

    /// A pseudo-terminal is a real character device with termios, like /dev/ttyUSB0.
    @Test func serialDeviceInRawMode() async throws {
        let (master, path) = try openPseudoTerminal()
        let source = NMEASource(.device(path: path, baud: 9600))
        let fd = try source.open()
        // Raw mode took: no CR→LF translation, no echo, no canonical line editing.
        var t = termios()
        try #require(tcgetattr(fd, &t) == 0)
        #expect(t.c_lflag & tcflag_t(ICANON | ECHO) == 0)
        #expect(t.c_iflag & tcflag_t(ICRNL) == 0)
        #expect(cfgetispeed(&t) == speed_t(B9600))
        let stream = source.events(from: fd)
        let bytes = try Fixtures.log("mt3339")
        let written = bytes.withUnsafeBytes { write(master, $0.baseAddress, bytes.count) }
        #expect(written == bytes.count)
        let collector = Collector(stream)
        let gotAll = await collector.wait {
            $0.count(where: { if case .fix = $0 { true } else { false } }) >= 29
        }
        #expect(gotAll)
        // Unplugging the receiver (closing the other end) ends the stream with a reason.
        close(master)
        let ended = await collector.wait { _ in source.failure != nil }
        #expect(ended)
        collector.cancel()
    }

    /// A serial device is opened without waiting for carrier detect (O_NONBLOCK: a UART with
    /// modem lines and CLOCAL off can hold a plain open() forever), then set CLOCAL and read
    /// blocking, as before. A pseudo-terminal never waits for carrier, so only what follows
    /// the open shows here: CLOCAL on though the terminal had it off, the descriptor blocking
    /// again, and reading works.
    @Test func aSerialDeviceWithModemLinesOnIsSetToIgnoreThemAndReadsBlocking() async throws {
        let (master, path) = try openPseudoTerminal()
        var before = termios()
        try #require(tcgetattr(master, &before) == 0)
        before.c_cflag &= ~tcflag_t(CLOCAL)
        try #require(tcsetattr(master, TCSANOW, &before) == 0)
        let source = NMEASource(.device(path: path, baud: 4800))
        let fd = try source.open()
        #expect(fcntl(fd, F_GETFL) & O_NONBLOCK == 0)
        var t = termios()
        try #require(tcgetattr(fd, &t) == 0)
        #expect(t.c_cflag & tcflag_t(CLOCAL | CREAD) == tcflag_t(CLOCAL | CREAD))
        #expect(t.c_lflag & tcflag_t(ICANON | ECHO) == 0 && cfgetispeed(&t) == speed_t(B4800))
        let collector = Collector(source.events(from: fd))
        let line = nmea("GPRMC,101010,A,1000.0,N,01000.0,E,,,010624,,")
        #expect(line.withCString { write(master, $0, strlen($0)) } == line.utf8.count)
        let read = await collector.wait { _ in source.stats.sentences == 1 }
        #expect(read, "\(source.stats)")
        close(master)
        #expect(await collector.wait { _ in source.failure != nil })
        collector.cancel()
    }

    @Test func unsupportedBaudRateIsRefused() throws {
        let (master, path) = try openPseudoTerminal()
        defer { close(master) }
        #expect(throws: SystemCallError.self) { try NMEASource(.device(path: path, baud: 1234)).open() }
    }
}
