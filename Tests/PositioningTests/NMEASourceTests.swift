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

    /// Satellite epochs (RMC, GGA of HDOP 1.0: 5 m) with the receiver's GST, σ 1.0 m, after
    /// its GGA on every other epoch, as a live receiver writes them into the daemon's FIFO, one
    /// epoch at a time. GGA is learnt as the cycle's end from an epoch without GST; the first
    /// GST after it teaches that this receiver sends GST there, and from then on each epoch's
    /// fix carries its own GST's σ, and every fix (with GST or not) comes before the next
    /// epoch is written. Before: each GST after the end was dropped (5 m from HDOP) and the
    /// end forgotten, so each epoch after one came only with the next epoch's sentences.
    @Test func aSatelliteEpochsGSTAfterTheLearntEndGivesItsAccuracyLive() async throws {
        try await withLiveFIFO { fifo in
            let collector = fifo.collector
            var late: [Int] = []
            for second in 0..<8 {
                fifo.send(Self.satelliteEpoch(second, withGST: second % 2 == 1))
                let time = utc("2025-06-15T12:00:0\(second)Z")
                // Bounded far past the wait for a late GST (0.5 s at most), and past what a loaded
                // machine's test tasks wait for a thread (CI saw more than 10 s).
                let came = await collector.wait(upTo: second == 0 ? 1 : 60) {
                    fixes($0).contains { $0.time == time }
                }
                if !came { late.append(second) }
            }
            // The first epoch ends only at the next time stamp: no end is known yet.
            #expect(late == [0], "fixes not come before the next epoch: \(late); \(collector.all)")
            let accuracy = fixes(collector.all).map(\.horizontalAccuracy)
            // The first GST after the end (12:00:01) teaches it; its own fix is out already.
            #expect(accuracy == [5, 5, 5, 1, 5, 1, 5, 1], "\(collector.all)")
        }
    }

    /// The same epochs from a file (no clock: a fix waiting for its GST goes out at the next
    /// time stamp) give the same fixes, and a receiver that never sends GST is never held: each
    /// of its fixes comes with its own epoch's bytes once the end is learnt.
    @Test func aSatelliteEpochsGSTAfterTheLearntEndGivesItsAccuracyFromAFile() async throws {
        let text = (0..<8).map { Self.satelliteEpoch($0, withGST: $0 % 2 == 1) }.joined()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("gst-\(UUID()).nmea").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let events = try await collect(NMEASource(.file(path: path, paced: false)))
        #expect(fixes(events).map(\.horizontalAccuracy) == [5, 5, 5, 1, 5, 1, 5, 1], "\(events)")
        #expect(fixes(events).map(\.time) == (0..<8).map { utc("2025-06-15T12:00:0\($0)Z") })

        var parser = NMEAParser()
        for second in 0..<8 {
            let own = fixes(parser.feed(Array(Self.satelliteEpoch(second, withGST: false).utf8)))
            // The first epoch closes at the next time stamp: no end is known yet.
            let expected = (second == 1 ? [0, 1] : second == 0 ? [] : [second]).map {
                utc("2025-06-15T12:00:0\($0)Z")
            }
            #expect(own.map(\.time) == expected, "epoch \(second)")
        }
    }

    /// A receiver that sent GST after the learnt end on a few epochs (12:00:01 and 03 with its
    /// epoch, 05 0.3 s after it: a learnt wait of 0.5 s), then none, written live into a FIFO:
    /// the first fixes after the GSTs stop are still held for one (at most the wait), but once
    /// five satellite epochs in a row came without a GST it is no longer waited for, and each
    /// fix comes with its own epoch's bytes again; a GST after the end later teaches it anew
    /// (12:00:15's fix carries its σ). Before: every fix after the last GST was held the
    /// longest wait ever learnt (0.5 s past its end), for as long as the source ran.
    ///
    /// Held or not is read off the parser on the same bytes with the clock given (a fix that
    /// comes with its own epoch's bytes is not held); the FIFO shows the live source lets every
    /// fix go with the right accuracy. (Before, the FIFO's wall-clock delays were the check, and
    /// a loaded machine's test tasks, waiting seconds for a thread, read as fixes held.)
    @Test func aReceiverThatStopsSendingGSTAfterTheEndIsNoLongerHeldForIt() async throws {
        let gstAfterTheEpoch: Set = [1, 3, 14, 15]
        try await withLiveFIFO { fifo in
            let collector = fifo.collector
            for second in 0..<16 {
                fifo.send(Self.satelliteEpoch(second, withGST: gstAfterTheEpoch.contains(second)))
                if second == 5 {
                    try await Task.sleep(for: .milliseconds(300))
                    fifo.send(Self.gstSentence(second))
                }
                let time = Self.epochTime(second)
                // Bounded far past the wait for a late GST (0.5 s at most): a guard, not the check.
                let came = await collector.wait(upTo: second == 0 ? 1 : 60) {
                    fixes($0).contains { $0.time == time }
                }
                #expect(came || second == 0, "12:00:\(second) never came: \(collector.all)")
            }
            let accuracy = fixes(collector.all).map(\.horizontalAccuracy)
            #expect(accuracy == [5, 5, 5, 1, 5, 5] + Array(repeating: 5, count: 9) + [1], "\(collector.all)")
        }

        // The same bytes, a second apart on a given clock (05's GST 0.3 s after its epoch): from
        // 01's GST after the learnt end, satellite fixes without a GST of their own are held for
        // one (they come only after the wait: 02, 04, 05 whose GST was later than the wait), then
        // 06-10 after the last GST, until five epochs came without; 11-13 come with their own
        // bytes (before: held, 11-13 too, for as long as the source ran).
        var live = NMEAParser()
        let began = Date(timeIntervalSince1970: 1_750_000_000)
        var held: [Int] = []
        for second in 0..<14 {
            let at = began.addingTimeInterval(Double(second))
            let own = live.feed(
                Array(Self.satelliteEpoch(second, withGST: gstAfterTheEpoch.contains(second)).utf8),
                receivedAt: at)
            if second > 1, !fixes(own).contains(where: { $0.time == Self.epochTime(second) }) {
                held.append(second)
            }
            if second == 5 { _ = live.feed(Array(Self.gstSentence(second).utf8), receivedAt: at + 0.3) }
            _ = live.release(at: at + 0.9)
        }
        #expect(held == [2, 4, 5, 6, 7, 8, 9, 10], "held for a GST: \(held)")

        // The wait follows the recent lags: after one of 0.3 s (a wait of 0.5 s), five GSTs that
        // come with their epoch's end bring it back to 0.1 s.
        var parser = NMEAParser()
        let start = Date(timeIntervalSince1970: 1_750_000_000)
        for second in 0..<8 {
            let at = start.addingTimeInterval(Double(second))
            _ = parser.feed(Array(Self.satelliteEpoch(second, withGST: false).utf8), receivedAt: at)
            guard second > 0 else { continue }
            let lag = second == 1 ? 0.3 : 0.01
            _ = parser.feed(Array(Self.gstSentence(second).utf8), receivedAt: at.addingTimeInterval(lag))
            if second == 1 { #expect(parser.lateGSTWait == 0.5) }
        }
        #expect(parser.lateGSTWait == 0.1)
    }

    /// A FIFO as a receiver's writer feeds the daemon one, live: an ``NMEASource`` reading it,
    /// its events collected, and a writer open on it (non-blocking: the reader is open).
    struct LiveFIFO {
        let collector: Collector<PositionEvent>
        let writer: Int32

        /// Writes `text` at once, all of it.
        func send(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(
                text.withCString { write(writer, $0, strlen($0)) } == text.utf8.count,
                sourceLocation: sourceLocation)
        }
    }

    /// Makes a FIFO, starts an ``NMEASource`` on it and opens its writer, runs `body`, then
    /// closes the writer, stops the source and removes the FIFO.
    func withLiveFIFO(_ body: (LiveFIFO) async throws -> Void) async throws {
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("gst-\(UUID()).fifo").path
        try #require(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        let source = NMEASource(.fifo(path: fifo, paced: false))
        let collector = Collector(source.events(from: try source.open()))
        defer {
            source.stop()
            collector.cancel()
        }
        let writer = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        try #require(writer >= 0, "open \(fifo): \(String(cString: strerror(errno)))")
        defer { close(writer) }
        try await body(LiveFIFO(collector: collector, writer: writer))
    }

    /// 12:00:`second` of the day these epochs are dated.
    static func epochTime(_ second: Int) -> Date {
        utc(String(format: "2025-06-15T12:00:%02dZ", second))
    }

    /// The GST (σ 1.0 m) of the epoch at 12:00:`second`.
    static func gstSentence(_ second: Int) -> String {
        nmea("GPGST,\(String(format: "1200%02d", second)).00,1.0,,,,0.6,0.8,1.5")
    }

    /// RMC and GGA (HDOP 1.0) of a satellite fix at 12:00:`second`, then a GST of σ 1.0 m.
    static func satelliteEpoch(_ second: Int, withGST: Bool) -> String {
        let t = "\(String(format: "1200%02d", second)).00"
        return nmea("GPRMC,\(t),A,6010.0000,N,02456.0000,E,0.5,40.5,150625,,,A")
            + nmea("GPGGA,\(t),6010.0000,N,02456.0000,E,1,09,1.0,10.7,M,17.9,M,,")
            + (withGST ? gstSentence(second) : "")
    }

    @Test func unsupportedBaudRateIsRefused() throws {
        let (master, path) = try openPseudoTerminal()
        defer { close(master) }
        #expect(throws: SystemCallError.self) { try NMEASource(.device(path: path, baud: 1234)).open() }
    }
}
