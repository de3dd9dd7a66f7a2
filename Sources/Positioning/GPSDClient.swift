import Foundation
import Geo
import SystemCalls

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A gpsd client: fixes (TPV, sharpened by GST) and pressures (raw XDR/MDA/MMB that gpsd
/// forwards) as one async stream.
///
/// It runs on its own thread with blocking sockets and short polls, so it never blocks
/// the caller. When gpsd goes away, or the socket stays silent for
/// `Settings.silenceTimeout`, it reconnects with exponential backoff capped at
/// `Settings.maximumBackoff` and sends `?WATCH` again. The stream ends only when the
/// consumer stops iterating (or `stop()`).
public final class GPSDClient: Sendable {
    /// Where and how to talk to gpsd.
    public struct Settings: Sendable, Hashable {
        public var host: String
        public var port: UInt16
        /// Seconds to wait for a TCP connection.
        public var connectTimeout: Double
        /// Seconds without a byte after which the connection counts as dead. gpsd sends a
        /// TPV at least once per receiver epoch (1 s), so 5 s means something is wrong.
        public var silenceTimeout: Double
        /// First wait before reconnecting, seconds; doubled after each failure.
        public var initialBackoff: Double
        /// The cap on that wait, seconds.
        public var maximumBackoff: Double

        public init(
            host: String = "127.0.0.1", port: UInt16 = 2947, connectTimeout: Double = 3,
            silenceTimeout: Double = 5, initialBackoff: Double = 0.25, maximumBackoff: Double = 8
        ) {
            self.host = host
            self.port = port
            self.connectTimeout = connectTimeout
            self.silenceTimeout = silenceTimeout
            self.initialBackoff = initialBackoff
            self.maximumBackoff = maximumBackoff
        }

        /// `HOST:PORT`, an IPv6 host in brackets, for messages.
        public var address: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

        /// Parses `HOST:PORT`, `HOST` or `[v6]:PORT`; `nil` if malformed. A bare IPv6 address
        /// (`::1`) is a `HOST`: it takes the default port (a port needs brackets), and is
        /// refused when a port is required (before: split at its last colon, `::1` was host
        /// ":" port 1).
        /// - Parameter defaultPort: the port when `text` names none; nil makes a port required.
        public static func parse(_ text: String, defaultPort: UInt16? = 2947) -> Settings? {
            var host = text
            var port: UInt16? = defaultPort
            if text.hasPrefix("[") {
                guard let close = text.firstIndex(of: "]") else { return nil }
                host = String(text[text.index(after: text.startIndex)..<close])
                let rest = text[text.index(after: close)...]
                if !rest.isEmpty {
                    guard rest.first == ":", let p = UInt16(rest.dropFirst()), p > 0 else { return nil }
                    port = p
                }
            } else if text.count(where: { $0 == ":" }) > 1 {
                var address = in6_addr()
                guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
            } else if let colon = text.lastIndex(of: ":") {
                host = String(text[..<colon])
                guard let p = UInt16(text[text.index(after: colon)...]), p > 0 else { return nil }
                port = p
            }
            guard !host.isEmpty, !host.contains(where: \.isWhitespace), let port else { return nil }
            return Settings(host: host, port: port)
        }
    }

    /// The request sent after every connect: JSON reports plus raw NMEA (which carries the
    /// pressure sentences gpsd itself never decodes). Under gpsd's 80-character limit.
    static let watch = #"?WATCH={"enable":true,"json":true,"nmea":true}"# + "\n"

    public let settings: Settings
    private let state = LockedState()

    public init(settings: Settings = Settings()) {
        self.settings = settings
    }

    /// How many times a connection was made and `?WATCH` sent (1 after the first connect).
    public var connections: Int { state.withLock { $0.connections } }
    /// Fixes passed on so far.
    public var fixes: Int { state.withLock { $0.fixes } }
    /// Epochs so far whose position the receiver says is not from satellites: simulated,
    /// typed in, or dead reckoning alone without its own σ (each also a `.noFix`), as
    /// `NMEAParser.Stats.notGNSS` counts them.
    public var notGNSS: Int { state.withLock { $0.notGNSS } }
    /// ``fixes`` and ``notGNSS`` on the connection made last (another gpsd, maybe another
    /// receiver, after a reconnect): what is said of the receiver now. Before, the lifetime
    /// counts were used, and after one fix since the start a receiver that only dead-reckons
    /// was never named.
    public var sinceConnected: (fixes: Int, notGNSS: Int) {
        state.withLock { ($0.fixes - $0.atConnect.fixes, $0.notGNSS - $0.atConnect.notGNSS) }
    }
    /// The last connection problem, for status displays; `nil` once gpsd sends something on
    /// a connection.
    public var lastError: String? { state.withLock { $0.lastError } }

    /// Starts the reader thread and returns its events. Call once per client.
    public func events() -> AsyncStream<PositionEvent> {
        let (stream, continuation) = AsyncStream<PositionEvent>.makeStream(
            bufferingPolicy: .bufferingNewest(4096))
        let state = self.state
        let settings = self.settings
        continuation.onTermination = { _ in state.withLock { $0.stopped = true } }
        let thread = Thread {
            GPSDClient.run(settings: settings, state: state) { continuation.yield($0) }
            continuation.finish()
        }
        thread.name = "gpsd \(settings.host):\(settings.port)"
        thread.start()
        return stream
    }

    /// Stops the reader thread (it notices within 0.1 s) and ends the stream.
    public func stop() { state.withLock { $0.stopped = true } }

    // MARK: The reader thread

    private static func run(settings: Settings, state: LockedState, yield: (PositionEvent) -> Void) {
        var backoff = settings.initialBackoff
        var decoder = GPSDDecoder()
        let isStopped = { state.withLock { $0.stopped } }
        while !isStopped() {
            var gotData = false
            do {
                let fd = try connectTCP(
                    host: settings.host, port: settings.port, timeout: settings.connectTimeout)
                defer { try? closeDescriptor(fd) }
                try writeAll(fd, Array(watch.utf8))
                state.withLock {
                    $0.connections += 1
                    $0.atConnect = ($0.fixes, $0.notGNSS)
                }
                decoder.reset()
                var buffer = [UInt8](repeating: 0, count: 16_384)
                var lastData = ContinuousClock.now
                let silence = Duration.milliseconds(Int64(settings.silenceTimeout * 1000))
                while !isStopped() {
                    if try waitReadable(fd, milliseconds: 100) {
                        let n = try readSome(fd, into: &buffer)
                        if n == 0 {
                            state.withLock { $0.lastError = "gpsd closed the connection" }
                            break
                        }
                        lastData = .now
                        if !gotData {
                            gotData = true
                            backoff = settings.initialBackoff
                            // Not at the connection: a gpsd that accepts and stays silent is
                            // no gpsd back (before, `status` showed no problem for its 5 s).
                            state.withLock { $0.lastError = nil }
                        }
                        let events = decoder.feed(buffer[0..<n])
                        // Counted before the events are passed on, so a reader stopping at one
                        // reads counts that include it.
                        state.withLock {
                            $0.fixes = decoder.fixes
                            $0.notGNSS = decoder.notGNSS
                        }
                        for event in events { yield(event) }
                    } else if ContinuousClock.now - lastData > silence {
                        state.withLock { $0.lastError = "gpsd silent for \(settings.silenceTimeout) s" }
                        break
                    }
                }
            } catch {
                state.withLock { $0.lastError = error.description }
            }
            // Wait before the next attempt, in slices so stop() is prompt.
            let until = ContinuousClock.now + .milliseconds(Int64(backoff * 1000))
            while !isStopped(), ContinuousClock.now < until {
                usleep(20_000)
            }
            backoff = min(backoff * 2, settings.maximumBackoff)
        }
    }

    /// The reader thread's shared state.
    private final class LockedState: @unchecked Sendable {
        // Safe: `value` is only touched inside `lock`.
        struct Value {
            var stopped = false
            var connections = 0
            var fixes = 0
            var notGNSS = 0
            /// ``fixes`` and ``notGNSS`` when the last connection was made.
            var atConnect = (fixes: 0, notGNSS: 0)
            var lastError: String?
        }
        private let lock = NSLock()
        private var value = Value()
        func withLock<T>(_ body: (inout Value) -> T) -> T { lock.withLock { body(&value) } }
    }
}
