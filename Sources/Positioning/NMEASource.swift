public import Foundation
public import SystemCalls

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// NMEA bytes from a file, a serial device or standard input, parsed into position events.
///
/// A reader thread polls the descriptor (so `stop()` is noticed within 0.1 s and the
/// caller is never blocked) and feeds an `NMEAParser`. A file can be read as fast as
/// possible or paced by the sentences' own time stamps (the gap between consecutive
/// epochs, each capped at `maximumPause` so a gap in a log does not stall a replay).
public final class NMEASource: Sendable {
    /// Where the bytes come from.
    public enum Input: Sendable, Hashable {
        /// A log file; `paced` replays at the receiver's own rate.
        case file(path: String, paced: Bool)
        /// A serial character device (`/dev/ttyUSB0`, `/dev/serial0`), set to raw 8N1 at
        /// `baud` (4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800).
        case device(path: String, baud: Int)
        /// This process's standard input.
        case standardInput
        /// A named pipe (FIFO) another program writes NMEA into, read for as long as the
        /// source runs: opened without waiting for a writer, and when its writer closes it the
        /// next one is waited for (a file's end ends the stream). `paced` as for a file.
        case fifo(path: String, paced: Bool)
    }

    /// The baud rates `device` accepts (termios constants exist for these).
    public static let baudRates: [Int] = [4800, 9600, 19200, 38400, 57600, 115_200, 230_400, 460_800]
    /// The longest pause a paced replay makes between two epochs, seconds.
    public static let maximumPause = 5.0

    public let input: Input
    private let state = SourceState()

    public init(_ input: Input) {
        self.input = input
    }

    /// Counters of the parser, so far (final once the stream has ended).
    public var stats: NMEAParser.Stats { state.withLock { $0.stats } }
    /// Why the stream ended early (open/read failure); `nil` after a clean end of input.
    public var failure: String? { state.withLock { $0.failure } }
    /// Why a FIFO gives nothing now: no writer has written to it yet (``noWriterYet``), or
    /// its writer closed it (``writerClosed``) and the next is waited for; `nil` while one
    /// writes, and for any other input.
    public var waiting: String? { state.withLock { $0.waiting } }

    /// ``waiting`` for a FIFO opened and not written to yet. Said so, not "no writer": a
    /// writer that opened it and is silent cannot be told from none.
    public static let noWriterYet = "no writer has written to the FIFO yet"
    /// ``waiting`` for a FIFO whose writer closed it.
    public static let writerClosed = "the writer closed the FIFO"

    /// Opens the input and checks it can be read; call before `events()` to report a bad
    /// path at once. - Throws: `SystemCallError` naming the call and path.
    public func open() throws(SystemCallError) -> Int32 {
        switch input {
        case .standardInput:
            return 0
        case .file(let path, _):
            return try retryingOnInterrupt("open \(path)") { Glibc.open(path, O_RDONLY | O_CLOEXEC) }
        case .fifo(let path, _):
            return try Self.openFIFO(path)
        case .device(let path, let baud):
            // Only a character device can be a serial port: a FIFO or a file is refused before
            // open(), which for a FIFO without a writer would wait until ^C (before, it did; with
            // a writer, termios then failed: "Inappropriate ioctl for device").
            if let kind = Self.notADevice(path) {
                throw SystemCallError(
                    call: "open \(path)", code: ENOTTY, reason: "\(kind), not a serial device")
            }
            // A UART with modem lines and CLOCAL off holds a plain open() until carrier detect,
            // maybe forever: it is opened without waiting, set CLOCAL (raw mode), then read
            // blocking as before.
            let fd = try retryingOnInterrupt("open \(path)") {
                Glibc.open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK)
            }
            do {
                try SerialPort.configureRaw(fd, baud: baud, path: path)
                let flags = try retryingOnInterrupt("fcntl \(path)") { fcntl(fd, F_GETFL) }
                try retryingOnInterrupt("fcntl \(path)") { fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
            } catch {
                try? closeDescriptor(fd)
                throw error
            }
            return fd
        }
    }

    /// Opens a FIFO for reading without waiting for a writer (a plain open() waits until one
    /// comes, maybe forever), and leaves it non-blocking: a read gives bytes, 0 when no writer
    /// has it open and nothing is left (the writer closed it), or `EAGAIN` while a writer has
    /// it open and is silent. - Throws: when it cannot be opened, or is no longer a FIFO (made
    /// again as a file: read as one again and again).
    static func openFIFO(_ path: String) throws(SystemCallError) -> Int32 {
        let fd = try retryingOnInterrupt("open \(path)") {
            Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        }
        do throws(SystemCallError) {
            var info = stat()
            try retryingOnInterrupt("fstat \(path)") { fstat(fd, &info) }
            guard info.st_mode & S_IFMT == S_IFIFO else {
                throw SystemCallError(call: "open \(path)", code: EINVAL, reason: "no longer a FIFO")
            }
        } catch {
            try? closeDescriptor(fd)
            throw error
        }
        return fd
    }

    /// Whether `path` now names a FIFO other than the one open on `fd`.
    static func isAnotherFIFO(_ path: String, than fd: Int32) -> Bool {
        var named = stat()
        var open = stat()
        guard stat(path, &named) == 0, named.st_mode & S_IFMT == S_IFIFO, fstat(fd, &open) == 0 else {
            return false
        }
        return named.st_ino != open.st_ino || named.st_dev != open.st_dev
    }

    /// What `path` is when it is there and no character device, so no serial port ("a FIFO",
    /// "a regular file", "a directory", "a socket"); `nil` for a character device or a path
    /// that is not there (open() names that).
    public static func notADevice(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFCHR: return nil
        case S_IFIFO: return "a FIFO"
        case S_IFREG: return "a regular file"
        case S_IFDIR: return "a directory"
        case S_IFSOCK: return "a socket"
        default: return "not a character device"
        }
    }

    /// Starts reading `fd` (from `open()`) and returns the events; the stream ends at end
    /// of input, on a read error (see `failure`), or when iteration stops.
    public func events(from fd: Int32) -> AsyncStream<PositionEvent> {
        let (stream, continuation) = AsyncStream<PositionEvent>.makeStream(bufferingPolicy: .unbounded)
        let state = self.state
        let paced: Bool =
            switch input {
            case .file(_, let paced), .fifo(_, let paced): paced
            default: false
            }
        // A FIFO's path, to open it again for the next writer when one closes it.
        let fifo: String? = if case .fifo(let path, _) = input { path } else { nil }
        if fifo != nil { state.withLock { $0.waiting = Self.noWriterYet } }
        let ownsDescriptor = input != .standardInput
        let isDevice: Bool = if case .device = input { true } else { false }
        // A receiver writing now, not a log: its clock lets go a fix held for a GST that this
        // receiver sends after its epoch's end on some epochs (``NMEAParser/release(at:)``).
        let isLive: Bool =
            switch input {
            case .device, .fifo, .standardInput: true
            case .file: false
            }
        // A serial device never ends by itself: end of file there means it went away.
        let hangupMessage: String? =
            if case .device(let path, _) = input { "\(path): the device hung up" } else { nil }
        continuation.onTermination = { _ in state.withLock { $0.stopped = true } }
        let thread = Thread {
            var fd = fd
            // Bytes came on this FIFO descriptor since it was opened: a writer has been there.
            var sawData = false
            defer {
                if ownsDescriptor, fd >= 0 { try? closeDescriptor(fd) }
                continuation.finish()
            }
            // A device is live: its undated epochs (GGA-only receivers) are dated by the
            // system clock; a file or stdin may be a replayed log, whose times are never invented.
            var parser = isDevice ? NMEAParser(receivedAround: Date()) : NMEAParser()
            var buffer = [UInt8](repeating: 0, count: 8192)
            var lastTime: Date?
            let isStopped = { state.withLock { $0.stopped } }
            func deliver(_ events: [PositionEvent]) {
                // Counted before they are passed on, so a summary taken at any event is not behind.
                state.withLock { $0.stats = parser.stats }
                for event in events {
                    if paced, let t = event.time {
                        if let last = lastTime, t > last {
                            let pause = min(t.timeIntervalSince(last), NMEASource.maximumPause)
                            let until = ContinuousClock.now + .milliseconds(Int64(pause * 1000))
                            while !isStopped(), ContinuousClock.now < until { usleep(10_000) }
                        }
                        lastTime = t
                    }
                    continuation.yield(event)
                }
            }
            /// The FIFO's writer closed it: it is opened again for the next writer (a poll of
            /// this descriptor would say "hung up" for ever), then the last epoch goes out. The
            /// new read end is open before the old one closes, and before that epoch's paced
            /// pause: a writer that opened the FIFO meanwhile (on the old read end) and has
            /// written and gone keeps its bytes, which a pipe frees with its last descriptor
            /// (before, they were lost unsaid). A new writer is a new stream: nothing of this
            /// one's carries over, its pacing included. A FIFO no longer there (its writer removed it as it left) is
            /// waited for at its path (``awaitFIFO(_:)``).
            func nextWriter(_ fifo: String) throws(SystemCallError) {
                let reopened = Result { () throws(SystemCallError) in try Self.openFIFO(fifo) }
                try? closeDescriptor(fd)
                fd = -1
                sawData = false
                if case .failure(let error) = reopened, error.code == ENOENT {
                    state.withLock { $0.waiting = "\(error)" }
                } else {
                    state.withLock { $0.waiting = Self.writerClosed }
                }
                deliver(parser.finish())
                parser = NMEAParser()
                // Paced from its own first epoch (before, the next writer's first fix waited
                // min(its time - this one's last, 5 s)).
                lastTime = nil
                if case .failure(let error) = reopened, error.code == ENOENT { return }
                fd = try reopened.get()
            }
            /// Tries once a second to open the FIFO again at its path, as a serial device that
            /// hung up is (before, its removal ended the positions for good: "the input ended:
            /// open F: No such file or directory"); ``waiting`` says why meanwhile.
            func awaitFIFO(_ fifo: String) throws(SystemCallError) {
                let until = ContinuousClock.now + .seconds(1)
                while !isStopped(), ContinuousClock.now < until { usleep(10_000) }
                guard !isStopped() else { return }
                do {
                    fd = try Self.openFIFO(fifo)
                    state.withLock { $0.waiting = Self.noWriterYet }
                } catch  where error.code == ENOENT {
                    return
                }
            }
            do {
                while !isStopped() {
                    // Checked every poll (0.1 s at most): a held fix goes out while nothing comes.
                    if isLive { deliver(parser.release(at: Date())) }
                    if fd < 0, let fifo {
                        try awaitFIFO(fifo)
                        continue
                    }
                    // Silent a while after bytes came, a FIFO is read anyway: its writer may
                    // have gone with no hang-up the poll can see (one that came and went
                    // between our reopen and its bytes), and a read of 0 says so.
                    let n: Int
                    if try !waitReadable(fd, milliseconds: 100), !(fifo != nil && sawData) {
                        // A FIFO deleted and made again while no one wrote (a writer's script
                        // that makes its own): the new one is where the next writer comes, once
                        // no writer holds the old one — a read of 0, not EAGAIN (none can open it
                        // now it is unlinked). Before, it was let go at once, and a writer that had
                        // it open had no reader for what it wrote (EPIPE, or lost in the pipe).
                        guard let fifo, state.withLock({ $0.waiting != nil }),
                            Self.isAnotherFIFO(fifo, than: fd),
                            let held = try readFIFO(fd, into: &buffer)
                        else { continue }
                        if held == 0 {
                            try? closeDescriptor(fd)
                            fd = -1
                            fd = try Self.openFIFO(fifo)
                            continue
                        }
                        n = held
                    } else if fifo != nil {
                        // A readable FIFO may still have nothing (EAGAIN): polled again.
                        guard let available = try readFIFO(fd, into: &buffer) else { continue }
                        n = available
                    } else {
                        n = try readSome(fd, into: &buffer)
                    }
                    if n == 0, let fifo {
                        try nextWriter(fifo)
                        continue
                    }
                    if n == 0 {
                        if let hangupMessage { state.withLock { $0.failure = hangupMessage } }
                        break
                    }
                    if fifo != nil {
                        sawData = true
                        state.withLock { $0.waiting = nil }
                    }
                    // A device's epochs are dated by the clock as they are read, not when it opened.
                    deliver(
                        isLive ? parser.feed(buffer[0..<n], receivedAt: Date()) : parser.feed(buffer[0..<n])
                    )
                }
            } catch {
                state.withLock { $0.failure = "\(error)" }
            }
            deliver(parser.finish())
        }
        thread.name = "nmea"
        thread.start()
        return stream
    }

    /// Stops the reader thread; the stream ends.
    public func stop() { state.withLock { $0.stopped = true } }

    /// Ready for another `events(from:)` after the last stream ended (a device opened again
    /// after it hung up): not stopped, no failure.
    public func rearm() {
        state.withLock {
            $0.stopped = false
            $0.failure = nil
        }
    }

    private final class SourceState: @unchecked Sendable {
        // Safe: `value` is only touched inside `lock`.
        struct Value {
            var stopped = false
            var stats = NMEAParser.Stats()
            var failure: String?
            var waiting: String?
        }
        private let lock = NSLock()
        private var value = Value()
        func withLock<T>(_ body: (inout Value) -> T) -> T { lock.withLock { body(&value) } }
    }
}

extension PositionEvent {
    /// The event's time stamp, when it has one.
    public var time: Date? {
        switch self {
        case .fix(let f): f.time
        case .noFix(let t): t
        case .pressure(let p): p.time
        }
    }
}

/// termios set-up for a GNSS receiver's serial port.
enum SerialPort {
    static func speed(_ baud: Int) -> speed_t? {
        switch baud {
        case 4800: speed_t(B4800)
        case 9600: speed_t(B9600)
        case 19200: speed_t(B19200)
        case 38400: speed_t(B38400)
        case 57600: speed_t(B57600)
        case 115_200: speed_t(B115200)
        case 230_400: speed_t(B230400)
        case 460_800: speed_t(B460800)
        default: nil
        }
    }

    /// Raw mode (no echo, no line editing, no CR/LF translation), 8 data bits, no parity,
    /// receiver on, modem lines ignored; reads return what is there (VMIN 1, VTIME 0).
    static func configureRaw(_ fd: Int32, baud: Int, path: String) throws(SystemCallError) {
        guard let speed = speed(baud) else {
            throw SystemCallError(call: "baud \(baud) for \(path)", code: EINVAL)
        }
        var t = termios()
        try retryingOnInterrupt("tcgetattr \(path)") { tcgetattr(fd, &t) }
        cfmakeraw(&t)
        t.c_cflag |= tcflag_t(CLOCAL | CREAD)
        withUnsafeMutableBytes(of: &t.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        try retryingOnInterrupt("cfsetispeed \(path)") { cfsetispeed(&t, speed) }
        try retryingOnInterrupt("cfsetospeed \(path)") { cfsetospeed(&t, speed) }
        try retryingOnInterrupt("tcsetattr \(path)") { tcsetattr(fd, TCSANOW, &t) }
    }
}
