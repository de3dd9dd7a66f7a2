import Foundation
import Positioning
import SystemCalls

extension Commands {
    static let fixes = Command(
        name: "fixes",
        summary: "the fix stream from an NMEA file/device, stdin or gpsd, as JSON lines",
        help: """
            Usage: pathfinder fixes (--nmea FILE [--paced] | --gpsd HOST:PORT | --device PATH [--baud N])
                                    [--count N] [--iio [--iio-name NAME] [--iio-root DIR]]

            Prints one JSON object a line:
              {"type":"fix","time":T,"lat":…,"lon":…,"mode":"2d"|"3d","altitudeMSL":…,
               "altitudeHAE":…,"horizontalAccuracy":…,"verticalAccuracy":…,"speed":…,"course":…}
              {"type":"pressure","time":T,"hPa":…,"source":"nmea-xdr"|"nmea-mda"|"nmea-mmb"|"nmea-pgrmz"|"iio"}
            Unknown values are left out, never 0. Metres, m/s, degrees, hPa; T is ISO 8601 UTC.
            At the end a one-line summary goes to standard error.

              --nmea FILE       an NMEA 0183 log ("-" reads standard input), as fast as it goes
              --paced           replay the log at the receiver's own rate (its time stamps)
              --gpsd HOST:PORT  a gpsd (default port 2947); reconnects when it goes away
              --device PATH     a serial GNSS receiver (/dev/ttyUSB0, /dev/serial0), raw mode
              --baud N          its speed: 4800, 9600 (default), 19200, 38400, 57600, 115200, …
              --count N         stop after N fixes
              --iio             add the Linux IIO barometer's pressure once a second
              --iio-name NAME   the IIO device's name (bme280) or directory (iio:device0)
                                (default: the first known barometer, else the first with pressure)
              --iio-root DIR    the IIO sysfs directory (default /sys/bus/iio/devices)
            """
    ) { arguments, console in
        var arguments = arguments
        let cmd = "pathfinder fixes"
        let nmea = try arguments.option("--nmea")
        let paced = try arguments.flag("--paced")
        let gpsd = try arguments.option("--gpsd", expected: "HOST:PORT, HOST or [IPv6]:PORT") {
            GPSDClient.Settings.parse($0)
        }
        let device = try arguments.option("--device")
        let baud = try arguments.option(
            "--baud",
            expected: "a baud rate (\(NMEASource.baudRates.map(String.init).joined(separator: ", ")))"
        ) {
            Int($0).flatMap { NMEASource.baudRates.contains($0) ? $0 : nil }
        }
        let count = try arguments.option("--count", expected: "a positive whole number") {
            Int($0).flatMap { $0 > 0 ? $0 : nil }
        }
        let iio = try arguments.flag("--iio")
        let iioName = try arguments.option("--iio-name")
        let iioRoot = try arguments.option("--iio-root")
        try arguments.finish()

        let sources = [nmea != nil, gpsd != nil, device != nil].count(where: { $0 })
        guard sources == 1 else {
            throw CLIError.usage("\(cmd): give exactly one of --nmea FILE, --gpsd HOST:PORT, --device PATH")
        }
        if paced, nmea == nil { throw CLIError.usage("\(cmd): --paced goes with --nmea") }
        // Standard input is read as it comes (before, --paced was ignored there unsaid).
        if paced, nmea == "-" { throw CLIError.usage("\(cmd): --paced needs a file, not standard input") }
        if baud != nil, device == nil { throw CLIError.usage("\(cmd): --baud goes with --device") }
        if !iio, iioName != nil || iioRoot != nil {
            throw CLIError.usage("\(cmd): --iio-name/--iio-root go with --iio")
        }

        var barometer: IIOBarometer?
        if iio {
            do {
                barometer = try IIOBarometer(root: iioRoot ?? "/sys/bus/iio/devices", name: iioName)
            } catch {
                throw CLIError.runtime("\(cmd): --iio: \(error)")
            }
        }

        let stream: AsyncStream<PositionEvent>
        var source: NMEASource?
        var client: GPSDClient?
        if let gpsd {
            client = GPSDClient(settings: gpsd)
            stream = client!.events()
        } else {
            let input: NMEASource.Input =
                if let device { .device(path: device, baud: baud ?? 9600) } else if nmea == "-" {
                    .standardInput
                } else {
                    .file(path: nmea!, paced: paced)
                }
            // A FIFO or a file is read with --nmea; as a device it is said at once (before, a
            // FIFO held open() until ^C, and a file failed in termios).
            if let device, let kind = NMEASource.notADevice(device) {
                throw CLIError.usage(
                    "\(cmd): --device \(device) is \(kind), not a serial device: read it with --nmea \(device)"
                )
            }
            if case .file(let path, _) = input {
                var info = stat()
                if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
                    // Said now, naming it (before: "read: Is a directory" after the summary, exit 1).
                    throw CLIError.usage("\(cmd): cannot read \(path): is a directory, not a file")
                }
            }
            let s = NMEASource(input)
            let fd: Int32
            do {
                fd = try s.open()
            } catch {
                let path = device ?? nmea!
                throw CLIError.usage("\(cmd): cannot read \(path): \(error)")
            }
            source = s
            stream = s.events(from: fd)
        }

        // Ctrl-C or SIGTERM ends the stream rather than the process, so the summary is printed.
        let stopSignals = try SignalWatcher([SIGINT, SIGTERM], queue: .global()) { [client, source] _ in
            client?.stop()
            source?.stop()
        }
        defer { stopSignals.cancel() }

        let tally = Tally()
        // Each kind of failure (file and what went wrong) is said once, as it happens; the
        // stream retries by itself (before: never said, the pressure lines simply stopped).
        let said = Said()
        let iioTask = barometer.map { barometer in
            Task {
                let readings = barometer.readings(every: 1) { failure in
                    guard let failure, said.first(Commands.kind(of: failure)) else { return }
                    console.error("\(cmd): --iio \(barometer.name): \(failure); trying again")
                }
                for await reading in readings {
                    if let line = try? FixStreamRecord(.pressure(reading)).map(JSONIO.line) {
                        console.line(line)
                    }
                    tally.add(.pressure(reading))
                }
            }
        }
        // A connection problem is said when it happens, once until it changes (before, only
        // the summary at the end named it, and a gpsd that never came said nothing until ^C).
        let errorWatch = client.map { client in
            Task {
                var said: String?
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(200))
                    let error = client.lastError
                    if let error, error != said {
                        console.error(
                            "\(cmd): gpsd \(client.settings.address): \(error); trying again"
                        )
                    }
                    said = error
                }
            }
        }
        for await event in stream {
            if let record = FixStreamRecord(event) { console.line(try JSONIO.line(record)) }
            tally.add(event)
            if let count, tally.fixes >= count { break }
        }
        client?.stop()
        source?.stop()
        iioTask?.cancel()
        errorWatch?.cancel()

        var parts: [String] = []
        if let source {
            let s = source.stats
            parts = [
                "\(s.lines) lines", "\(tally.fixes) fixes", "\(tally.noFix) no-fix epochs",
                "\(s.badChecksum) bad checksums",
                "\(s.junk) junk", "\(s.overlong) overlong", "\(s.unknown) unknown",
                "\(tally.pressures) pressures",
            ]
            if s.undated > 0 { parts.append("\(s.undated) undated") }
            if s.late > 0 { parts.append("\(s.late) late") }
            if s.badTime > 0 { parts.append("\(s.badTime) bad times") }
            if s.notGNSS > 0 { parts.append(Self.notGNSS(s.notGNSS)) }
        } else {
            parts = [
                "\(tally.fixes) fixes", "\(tally.noFix) no-fix epochs", "\(tally.pressures) pressures",
                "\(client?.connections ?? 0) connections",
            ]
            // As for NMEA (before, over gpsd only the no-fix epochs were counted, not why).
            if let n = client?.notGNSS, n > 0 { parts.append(Self.notGNSS(n)) }
            // Why nothing came (before, a gpsd that refused or never answered went unsaid).
            if let error = client?.lastError { parts.append("last: \(error)") }
        }
        if let count, tally.fixes >= count { parts.append("stopped after \(count) fixes") }
        console.error("\(cmd): " + parts.joined(separator: ", "))
        if let failure = source?.failure { throw CLIError.runtime("\(cmd): \(failure)") }
        // A live source stopped (^C) before the count asked for is a failure, not a result
        // (before: exit 0 after retrying an absent gpsd until ^C). A file or stdin that ends
        // first has given all it holds.
        if let count, tally.fixes < count, client != nil || device != nil {
            throw CLIError.runtime("\(cmd): stopped after \(tally.fixes) of the \(count) fixes asked for")
        }
        if let client, client.connections == 0 {
            throw CLIError.runtime(
                "\(cmd): never connected to gpsd \(client.settings.address)")
        }
        return 0
    }

    /// The summary's count of positions the receiver says are not from satellites.
    static func notGNSS(_ count: Int) -> String {
        "\(count) not GNSS (simulated, typed in or dead reckoning)"
    }

    /// What makes two barometer failures the same kind: the case and the file, not the value.
    static func kind(of failure: IIOBarometer.Failure) -> String {
        switch failure {
        case .noDevice(let root, _): "noDevice \(root)"
        case .noPressureChannel(let directory, _): "noPressureChannel \(directory)"
        case .unreadable(let path): "unreadable \(path)"
        case .gone(let directory): "gone \(directory)"
        case .malformed(let path, _): "malformed \(path)"
        case .implausible(let path, _): "implausible \(path)"
        }
    }
}

/// Keys said already; shared with the barometer's callback.
private final class Said: @unchecked Sendable {
    // Safe: `keys` is only touched inside `lock`.
    private let lock = NSLock()
    private var keys: Set<String> = []

    /// `true` the first time `key` is seen.
    func first(_ key: String) -> Bool { lock.withLock { keys.insert(key).inserted } }
}

/// Counts what was printed; shared with the barometer task.
private final class Tally: @unchecked Sendable {
    // Safe: the counters are only touched inside `lock`.
    private let lock = NSLock()
    private var counts = (fixes: 0, noFix: 0, pressures: 0)

    func add(_ event: PositionEvent) {
        lock.withLock {
            switch event {
            case .fix: counts.fixes += 1
            case .noFix: counts.noFix += 1
            case .pressure: counts.pressures += 1
            }
        }
    }
    var fixes: Int { lock.withLock { counts.fixes } }
    var noFix: Int { lock.withLock { counts.noFix } }
    var pressures: Int { lock.withLock { counts.pressures } }
}
