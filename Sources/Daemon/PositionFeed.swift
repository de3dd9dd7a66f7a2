import Foundation
import Glibc
import Positioning
import Synchronization

/// The configured position source, started: gpsd (reconnecting with backoff, a silent
/// socket counted as dead) or an NMEA serial device, recorded file (paced by its own
/// time stamps) or FIFO (each writer in turn), plus the IIO barometer when `baro` is `iio`.
final class PositionFeed: Sendable {
    /// Fixes, no-fix epochs and pressures, in order.
    let events: AsyncStream<PositionEvent>
    /// IIO barometer readings (`baro` = `iio` and a sensor found), else `nil`.
    let barometer: AsyncStream<PressureReading>?
    /// "gpsd 127.0.0.1:2947" or "NMEA /dev/ttyACM0", for the log.
    let name: String
    private let gpsd: GPSDClient?
    private let nmea: NMEASource?

    /// Starts the source.
    /// - Throws: `PositionFeedError` naming the path when an NMEA input cannot be opened (the
    ///   daemon then exits 1 saying so).
    init(config: DaemonConfig, log: DaemonLog) throws(PositionFeedError) {
        if let path = config.nmea {
            var info = stat()
            let kind = stat(path, &info) == 0 ? info.st_mode & S_IFMT : 0
            let isDevice = kind == S_IFCHR
            // A FIFO is opened without waiting for a writer (before, open() held the start until
            // one came: no socket, nothing logged) and read writer after writer.
            let source = NMEASource(
                isDevice
                    ? .device(path: path, baud: config.baud)
                    : kind == S_IFIFO ? .fifo(path: path, paced: true) : .file(path: path, paced: true))
            let fd: Int32
            do {
                fd = try source.open()
            } catch {
                throw PositionFeedError(message: "nmea \(path): \(error)")
            }
            nmea = source
            gpsd = nil
            name = "NMEA \(path)"
            events = isDevice ? Self.reopening(source, first: fd, stop: reopenStop) : source.events(from: fd)
        } else {
            let client = GPSDClient(settings: .init(host: config.gpsd.host, port: config.gpsd.port))
            gpsd = client
            nmea = nil
            name = "gpsd \(config.gpsd)"
            events = client.events()
        }
        barometer = Self.startBarometer(config: config, log: log)
    }

    /// Why positions cannot come right now (gpsd unreachable or gone, the NMEA input
    /// failed), or `nil` while the source is up.
    var problem: String? {
        if let gpsd {
            if let error = gpsd.lastError { return error }
            if gpsd.connections == 0 { return "not connected yet" }
            // As for NMEA below (before, over gpsd nothing said why no position came); on this
            // connection (before, since the start: after one fix, never said again).
            let counts = gpsd.sinceConnected
            if counts.notGNSS > 0, counts.fixes == 0 { return Self.notGNSS }
            return noFix.map { "gpsd answers; \($0)" }
        }
        guard let nmea else { return nil }
        if let failure = nmea.failure { return failure }
        if let waiting = nmea.waiting { return waiting }
        // A recording of a receiver that sends only GGA: its fixes have no date and are
        // dropped (a device's are dated by the clock). Said, where before nothing said why no
        // position ever came.
        let stats = nmea.stats
        if stats.undated > 0, stats.fixes == 0 {
            return "fixes dropped: the input has no date yet (no RMC or ZDA sentence)"
        }
        // Positions the receiver says are not from satellites: no fix, said why (before: they
        // led the walk).
        if stats.notGNSS > 0, stats.fixes == 0 { return Self.notGNSS }
        return noFix
    }

    static let notGNSS = "no fix: " + NMEAParser.Stats.notGNSSReason

    /// Positions come without a fix (a receiver under a roof, gpsd's TPV mode 1) for
    /// ``noFixSeconds``: before, a source that answered with no fix was no problem, and the
    /// log's last word stayed the outage before it ("gpsd silent for 5.0 s").
    private var noFix: String? {
        guard let since = noFixSince.withLock({ $0 }),
            ContinuousClock.now - since >= .seconds(Self.noFixSeconds)
        else { return nil }
        return "the receiver has no fix"
    }

    /// How long epochs without a fix come before they are a problem: as long as gpsd may be
    /// silent (a fix lost for a moment under a tree is none).
    static let noFixSeconds = 5.0

    /// Since when only epochs without a fix came (nil since a fix, or before any epoch).
    private let noFixSince = Mutex<ContinuousClock.Instant?>(nil)

    /// Notes a position event the loop received, for ``problem``.
    func observe(_ event: PositionEvent) {
        switch event {
        case .fix: noFixSince.withLock { $0 = nil }
        case .noFix: noFixSince.withLock { $0 = $0 ?? .now }
        case .pressure: break
        }
    }

    /// The source for `status`: what it is and its ``problem`` (null while positions come).
    var status: JSONValue {
        .object(["source": .string(name), "problem": problem.map { .string($0) } ?? .null])
    }

    func stop() {
        reopenStop.stop()
        gpsd?.stop()
        nmea?.stop()
    }

    /// Ends a serial receiver's reopening (``reopening(_:first:stop:)``).
    private let reopenStop = StopFlag()

    /// A serial receiver's events across hang-ups: a USB receiver unplugged and plugged back
    /// in (or a udev link moved to another device) is opened again once a second until it
    /// answers, as gpsd is reconnected (before, the daemon ran on without positions until
    /// restarted). Meanwhile `problem` is the hang-up.
    private static func reopening(
        _ source: NMEASource, first: Int32, stop: StopFlag
    ) -> AsyncStream<PositionEvent> {
        let (stream, continuation) = AsyncStream<PositionEvent>.makeStream(bufferingPolicy: .unbounded)
        let task = Task.detached {
            var fd: Int32? = first
            while !stop.isSet {
                if let open = fd {
                    for await event in source.events(from: open) { continuation.yield(event) }
                    fd = nil
                }
                while fd == nil, !stop.isSet {
                    try? await Task.sleep(for: .seconds(1))
                    if !stop.isSet, let reopened = try? source.open() {
                        source.rearm()
                        fd = reopened
                    }
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in
            stop.stop()
            source.stop()
            task.cancel()
        }
        return stream
    }

    private static func startBarometer(config: DaemonConfig, log: DaemonLog) -> AsyncStream<PressureReading>?
    {
        guard config.baro == .iio else { return nil }
        do {
            let sensor = try IIOBarometer(root: config.iioRoot, name: config.iioDevice)
            log.info("barometer: \(sensor.name) at \(sensor.directory)")
            return sensor.readings(every: 1) { failure in
                if let failure {
                    log.warning("barometer (iio): \(failure); retrying with backoff")
                } else {
                    log.info("barometer (iio): readings again")
                }
            }
        } catch {
            log.warning("barometer (iio): \(error); no level check")
            return nil
        }
    }
}

/// A position source that cannot be opened.
struct PositionFeedError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// A flag one side sets and the other reads, across threads.
final class StopFlag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func stop() { value.withLock { $0 = true } }
}

/// The position source's problem as the log tells it: the first cause of an outage as a
/// warning, each change of cause after it once (a cause already told within
/// ``repeatSeconds`` is not told again: a source flapping between two causes is a few lines a
/// minute, not one a tick), the end at the first fix. Before, only the first cause was told
/// until a fix: gpsd silent, then answering with no fix, stayed "silent" in the journal.
struct PositionOutage {
    /// A change back to a cause told this long ago or less is not told again.
    static let repeatSeconds = 60.0
    /// The cause told last; nil while positions come.
    private(set) var cause: String?
    private var told: [String: ContinuousClock.Instant] = [:]

    /// The warning to log for the source's `problem` now, nil when there is nothing new.
    mutating func line(
        for problem: String?, source: String, now: ContinuousClock.Instant = .now
    ) -> String? {
        guard let problem, problem != cause else { return nil }
        let before = cause
        cause = problem
        if before != nil, let at = told[problem], now - at < .seconds(Self.repeatSeconds) { return nil }
        told[problem] = now
        guard let before else { return "\(source): \(problem); waiting for it" }
        return "\(source): \(problem) (the cause changed; before: \(before))"
    }

    /// Whether a fix ends an outage told (then "positions again" is logged).
    mutating func positionsAgain() -> Bool {
        defer { cause = nil }
        return cause != nil
    }

    /// The input ended, said so: the next tick tells no "waiting for it" of it.
    mutating func ended(_ problem: String?) {
        cause = cause ?? problem ?? "the input ended"
    }
}
