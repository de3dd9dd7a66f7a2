public import Foundation

/// An incremental NMEA 0183 parser: bytes in, position events out.
///
/// Pure: no I/O, no clock of its own. Feed it bytes in any chunking (lines may be split across
/// reads; `\r\n`, `\n` or `\r` end a line); the events depend only on the bytes, never on how
/// they were split — except that a live source's clock (``feed(_:receivedAt:)``,
/// ``release(at:)``) lets go a fix held for a GST after the epoch's end sooner than its next
/// time stamp. Sentences are grouped into epochs by their time stamp; each epoch with a
/// valid position becomes one `Fix` (time from RMC/ZDA's date), each epoch that says "no
/// fix" becomes `.noFix`. Pressure sentences (XDR, MDA, MMB, PGRMZ) come out at once.
///
/// Junk (non-printable bytes, lines without `*hh`), overlong lines, bad checksums and
/// unknown sentences are counted in `stats` and skipped; nothing here can trap.
public struct NMEAParser: Sendable {
    /// What the parser has seen so far.
    public struct Stats: Sendable, Hashable, Codable {
        /// Non-empty lines (a `$` in mid-line starts a new one).
        public var lines = 0
        /// Checksum-valid sentences.
        public var sentences = 0
        /// `Fix` events produced.
        public var fixes = 0
        /// `.noFix` events produced.
        public var noFix = 0
        /// Lines whose checksum did not match.
        public var badChecksum = 0
        /// Lines with non-printable bytes, without a `$`, or cut short (no `*hh`).
        public var junk = 0
        /// Lines longer than `maximumLineLength`.
        public var overlong = 0
        /// Valid sentences of a type this parser does not use (GSV, GBS, $PLCS, …).
        public var unknown = 0
        /// `.pressure` events produced.
        public var pressures = 0
        /// `#` comment lines (gpsd's test logs carry them).
        public var comments = 0
        /// Valid fixes dropped because no date was known yet (no RMC/ZDA date so far).
        public var undated = 0
        /// Sentences stamped with an epoch already closed (late or repeated), dropped.
        public var late = 0
        /// Checksum-valid sentences whose time stamp is there but no time (hour 24, second 60
        /// outside 23:59, letters), dropped. An empty one (a cold start's) is not counted.
        public var badTime = 0
        /// Epochs whose position the receiver says is not from satellites: its simulator, typed
        /// in, or dead reckoning alone without an error estimate of its own (GGA quality 6/7/8,
        /// mode S/M/E) or marked void (RMC/GLL status V with mode E). Each is also a `.noFix`
        /// (counted in `noFix`).
        public var notGNSS = 0

        /// Why `notGNSS` epochs are no fix, as the daemon's log and `replay` say it.
        public static let notGNSSReason =
            "the receiver says its positions are simulated, typed in or dead reckoning (not GNSS)"

        public init() {}
    }

    /// NMEA 0183 allows 82 characters including `$` and `\r\n`; high-precision receivers
    /// (Trimble, u-blox HP) exceed that with extra decimals, so a margin is allowed.
    public static let maximumLineLength = 82 + 46

    /// User-equivalent range error, metres (1σ), multiplied by HDOP/VDOP when the receiver
    /// gives no GST: a typical figure for single-frequency consumer GNSS (Kaplan, 2017).
    public static let uereMetres = 5.0

    public private(set) var stats = Stats()

    private var line: [UInt8] = []
    private var lineIsOverlong = false
    private var fieldBuffer: [Range<Int>] = []
    private var epochs: EpochAssembler

    /// - Parameter fallbackDate: the UTC day assumed for epochs before the first RMC/ZDA
    ///   date (a live receiver sending only GGA); `nil` drops such fixes (counted as
    ///   `undated`) so replayed times are never invented.
    public init(fallbackDate: Date? = nil) {
        self.init(
            fallback: fallbackDate.map { .day(Int(($0.timeIntervalSince1970 / 86_400).rounded(.down))) })
    }

    /// A parser for a live receiver (a serial device): until a fix dated by the receiver
    /// (RMC/ZDA), each undated epoch takes the UTC day that puts it nearest the system clock
    /// — `receivedAround`, then the time given to each ``feed(_:receivedAt:)``. Without it a
    /// receiver sending only GGA never gave a fix (all dropped as `undated`); the nearest
    /// day, not simply today's, keeps an epoch stamped 23:59:59 and read just after midnight
    /// on its own day. Each epoch is dated on its own, never carried on from the one before:
    /// a cold start's bogus times (23:59:48, 00:00:02, 00:04:10 before the real time) would
    /// date every fix after them a day ahead (before: the first epoch set the day, and the
    /// clock was read once, when the device was opened).
    public init(receivedAround: Date) {
        self.init(fallback: .near(receivedAround.timeIntervalSince1970))
    }

    private init(fallback: EpochAssembler.Fallback?) {
        epochs = EpochAssembler(fallback: fallback)
        line.reserveCapacity(Self.maximumLineLength)
        fieldBuffer.reserveCapacity(32)
    }

    /// Parses the next bytes; returns the events they complete, in order.
    public mutating func feed(_ bytes: some Collection<UInt8>) -> [PositionEvent] {
        var events: [PositionEvent] = []
        for b in bytes {
            switch b {
            case 0x0A, 0x0D:
                endLine(into: &events)
            case 0x24, 0x21:  // "$" or "!" always starts a sentence: a lost line end resyncs here.
                if !line.isEmpty || lineIsOverlong { endLine(into: &events) }
                line.append(b)
            default:
                if line.count < Self.maximumLineLength {
                    line.append(b)
                } else {
                    lineIsOverlong = true
                }
            }
        }
        return events
    }

    /// Parses the next bytes, read at `receivedAt` (the system clock) from a live source: a
    /// live parser (``init(receivedAround:)``) dates undated epochs by it, and a fix held past
    /// the epoch's end for a GST that comes there on some epochs goes out once the wait for it
    /// is over (``release(at:)``).
    public mutating func feed(_ bytes: some Collection<UInt8>, receivedAt: Date) -> [PositionEvent] {
        epochs.received(at: receivedAt.timeIntervalSince1970)
        return feed(bytes) + release(at: receivedAt)
    }

    /// A live source's clock while no bytes come: a satellite fix held past the learnt end of
    /// its epoch for a GST (this receiver sends one after the end on some epochs) goes out, with
    /// HDOP's accuracy, once ``lateGSTWait`` has passed since the end came; before that, or
    /// with nothing held, nothing. Without it (a file) such a fix waits for the next time stamp.
    public mutating func release(at now: Date) -> [PositionEvent] {
        var events: [PositionEvent] = []
        epochs.received(at: now.timeIntervalSince1970)
        epochs.release(into: &events, stats: &stats)
        return events
    }

    /// How long (seconds) a live source's satellite fix is held past its epoch's learnt end for
    /// a GST that this receiver sends there on some epochs: twice the longest of the last few
    /// such GSTs' lags after the end, within 0.1…0.5 s.
    public var lateGSTWait: Double { epochs.lateGSTWait }

    /// Ends the input: parses a last unterminated line and closes the open epoch.
    public mutating func finish() -> [PositionEvent] {
        var events: [PositionEvent] = []
        endLine(into: &events)
        epochs.flush(into: &events, stats: &stats)
        return events
    }

    /// What the sentences stamped `milliseconds` into their day said of their position so
    /// far (the open epoch or one just closed), or `nil` when none came.
    func verdict(atMilliseconds milliseconds: Int) -> EpochAssembler.Verdict? {
        epochs.verdict(atMilliseconds: milliseconds)
    }

    /// Whether an epoch has ended yet (``verdict(atMilliseconds:)`` of the first is whole only then).
    var hasClosedAnEpoch: Bool { epochs.hasClosedAnEpoch }

    /// Parses a whole buffer at once (`feed` then `finish`).
    public static func parse(
        _ bytes: some Collection<UInt8>, fallbackDate: Date? = nil
    ) -> (
        events: [PositionEvent], stats: Stats
    ) {
        var parser = NMEAParser(fallbackDate: fallbackDate)
        let events = parser.feed(bytes) + parser.finish()
        return (events, parser.stats)
    }

    private mutating func endLine(into events: inout [PositionEvent]) {
        defer {
            line.removeAll(keepingCapacity: true)
            lineIsOverlong = false
        }
        if lineIsOverlong {
            stats.lines += 1
            stats.overlong += 1
            return
        }
        // Trailing spaces that some receivers pad with are not part of the sentence. A NUL is
        // not stripped: like any non-printable byte it makes the line junk (below).
        while let last = line.last, last == 0x20 { line.removeLast() }
        guard !line.isEmpty else { return }
        stats.lines += 1
        if line[0] == 0x23 {  // "#"
            stats.comments += 1
            return
        }
        guard line[0] == 0x24 || line[0] == 0x21, line.allSatisfy({ $0 >= 0x20 && $0 <= 0x7E }) else {
            stats.junk += 1
            return
        }
        let n = line.count
        guard n >= 4, line[n - 3] == 0x2A, let hi = Self.hex(line[n - 2]), let lo = Self.hex(line[n - 1])
        else {
            stats.junk += 1
            return
        }
        var sum: UInt8 = 0
        for i in 1..<(n - 3) { sum ^= line[i] }
        guard sum == hi << 4 | lo else {
            stats.badChecksum += 1
            return
        }
        fieldBuffer.removeAll(keepingCapacity: true)
        var start = 1
        for i in 1..<(n - 3) where line[i] == 0x2C {
            fieldBuffer.append(start..<i)
            start = i + 1
        }
        fieldBuffer.append(start..<(n - 3))
        stats.sentences += 1
        let sentence = NMEASentence(bytes: line, fields: fieldBuffer)
        if !epochs.take(sentence, into: &events, stats: &stats) {
            stats.unknown += 1
        }
    }

    private static func hex(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: b - 0x30
        case 0x41...0x46: b - 0x41 + 10
        case 0x61...0x66: b - 0x61 + 10
        default: nil
        }
    }
}
