import Foundation
import Glibc
import TestSupport
import Testing

/// Serves a recorded walk's NMEA over TCP to gpsd, `epochsPerSecond` epochs (an epoch
/// starts at each RMC) a second. The position in the walk survives reconnections: when
/// gpsd is killed and started again, the walk goes on where it stopped, as a receiver would.
final class NMEAFeeder: @unchecked Sendable {
    // Safe: `served`, `closed` and `connections` are only touched inside `lock`; `fd`,
    // `port` and `epochs` are set once in init.
    let port: UInt16
    private let fd: Int32
    private let epochs: [String]
    private let lock = NSLock()
    private var served = 0
    private var closed = false
    private var connections = 0

    init(nmea: String, epochsPerSecond: Double) throws {
        var epochs: [String] = []
        for line in nmea.split(whereSeparator: \.isNewline) where !line.isEmpty {
            if line.dropFirst(3).hasPrefix("RMC") || epochs.isEmpty {
                epochs.append("")
            }
            epochs[epochs.count - 1] += line + "\r\n"
        }
        self.epochs = epochs
        (fd, port) = try Self.listening(on: 0)
        let pause = UInt32(1_000_000 / epochsPerSecond)
        Thread { [self] in
            while true {
                let c = accept(fd, nil, nil)
                if c < 0 { return }
                lock.withLock { connections += 1 }
                Thread { [self] in
                    defer { close(c) }
                    while true {
                        let next: String? = lock.withLock {
                            closed || served >= self.epochs.count ? nil : self.epochs[served]
                        }
                        guard let next else { return }
                        let bytes = Array(next.utf8)
                        let sent = bytes.withUnsafeBytes {
                            send(c, $0.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
                        }
                        if sent < bytes.count { return }  // gpsd went away: this epoch is sent again
                        lock.withLock { served += 1 }
                        usleep(pause)
                    }
                }.start()
            }
        }.start()
    }

    /// Epochs sent so far.
    var epochsServed: Int { lock.withLock { served } }
    var epochCount: Int { epochs.count }
    var connectionCount: Int { lock.withLock { connections } }

    func shutdown() {
        lock.withLock { closed = true }
        Glibc.shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }

    /// A TCP socket listening on 127.0.0.1 and `port` (0: a free one), and its port.
    static func listening(on port: UInt16) throws -> (fd: Int32, port: UInt16) {
        try listeningOnLoopback(port: port, backlog: 4)
    }

    /// A port nothing listens on right now.
    static func freePort() throws -> UInt16 {
        let probe = try NMEAFeeder(nmea: "", epochsPerSecond: 1)
        defer { probe.shutdown() }
        return probe.port
    }
}

/// A fake gpsd on `port` for the daemon's gpsd client, whose behaviour the test switches
/// (``mode``): `silent` accepts and never writes; `noFix` sends VERSION, then a TPV of mode 1
/// (the receiver has no fix) each half second; `fix` a TPV of mode 3 at Siltavuorenpenger 10
/// timed now; `simulated` the same marked simulated (`status` 8: no fix, not from satellites).
/// A change of mode closes the connections open (as a gpsd restarted), so the daemon connects
/// again to the new one.
final class FakeGPSD: @unchecked Sendable {
    enum Mode { case silent, noFix, fix, simulated }
    // Safe: `current`, `generation` and `closed` are only touched inside `lock`; `fd` is set once.
    let port: UInt16
    private let fd: Int32
    private let lock = NSLock()
    private var current: Mode
    private var generation = 0
    private var closed = false

    var mode: Mode {
        get { lock.withLock { current } }
        set {
            lock.withLock {
                current = newValue
                generation += 1
            }
        }
    }

    init(port: UInt16, mode: Mode) throws {
        current = mode
        (fd, self.port) = try NMEAFeeder.listening(on: port)
        Thread { [self] in
            while true {
                let c = accept(fd, nil, nil)
                if c < 0, errno == EINTR { continue }
                if c < 0 { return }
                Thread { [self] in
                    defer { close(c) }
                    serve(c)
                }.start()
            }
        }.start()
    }

    private func serve(_ c: Int32) {
        let (start, first) = lock.withLock { (generation, current) }
        if first != .silent,
            !send(c, #"{"class":"VERSION","release":"3.22","proto_major":3,"proto_minor":14}"#)
        {
            return
        }
        while true {
            let (now, mode, isClosed) = lock.withLock { (generation, current, closed) }
            if isClosed || now != start { return }
            let time = Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(Date())
            let tpv: String? =
                switch mode {
                case .silent: nil
                case .noFix: #"{"class":"TPV","device":"/dev/fake","mode":1,"time":"\#(time)"}"#
                case .fix, .simulated:
                    #"{"class":"TPV","device":"/dev/fake","mode":3,"status":\#(mode == .fix ? 1 : 8),"time":"\#(time)","lat":60.17530,"lon":24.95169,"alt":20.0,"eph":6.0,"epv":9.0}"#
                }
            if let tpv, !send(c, tpv) { return }
            usleep(500_000)
        }
    }

    private func send(_ c: Int32, _ line: String) -> Bool {
        let bytes = Array((line + "\n").utf8)
        return bytes.withUnsafeBytes { Glibc.send(c, $0.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) }
            == bytes.count
    }

    func shutdown() {
        lock.withLock { closed = true }
        Glibc.shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }
}
