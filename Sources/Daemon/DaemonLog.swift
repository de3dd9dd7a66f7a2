import Glibc
import Synchronization
import SystemCalls

/// The daemon's log: one line per message on standard error, prefixed with the syslog
/// priority (`<3>` error, `<4>` warning, `<6>` info, `<7>` debug) that journald reads and strips.
/// No time stamps: journald adds its own.
package struct DaemonLog: Sendable {
    /// How much to log; each level includes those above it.
    package enum Level: String, Sendable, CaseIterable, Comparable {
        case error, warning, info, debug

        /// The syslog priority number journald understands.
        var priority: Int {
            switch self {
            case .error: 3
            case .warning: 4
            case .info: 6
            case .debug: 7
            }
        }

        package static func < (a: Level, b: Level) -> Bool { a.priority < b.priority }
    }

    /// Messages more detailed than this are dropped. One level for this log and every copy
    /// of it: the daemon hands copies to its threads (the voice, the microphone, the sources),
    /// and a reload (SIGHUP) that changes `logLevel` reaches them all.
    package var level: Level {
        get { shared.level }
        nonmutating set { shared.level = newValue }
    }
    private let shared: SharedLevel
    private let write: @Sendable (String) -> Void

    /// The level that every copy of a log reads.
    private final class SharedLevel: Sendable {
        private let priority: Atomic<Int>

        init(_ level: Level) { priority = Atomic(level.priority) }

        var level: Level {
            get {
                let priority = priority.load(ordering: .relaxed)
                return Level.allCases.first { $0.priority == priority } ?? .info
            }
            set { priority.store(newValue.priority, ordering: .relaxed) }
        }
    }

    /// A log writing to `write` (standard error unless a test passes its own).
    package init(level: Level, write: (@Sendable (String) -> Void)? = nil) {
        shared = SharedLevel(level)
        self.write =
            write ?? { line in
                // One write(2) per line so lines from several threads never interleave.
                var bytes = Array(line.utf8)
                bytes.withUnsafeMutableBytes { raw in
                    var offset = 0
                    while offset < raw.count {
                        let n =
                            (try? retryingOnInterrupt("write") {
                                Glibc.write(2, raw.baseAddress! + offset, raw.count - offset)
                            }) ?? 0
                        if n <= 0 { return }
                        offset += n
                    }
                }
            }
    }

    package func log(_ level: Level, _ message: @autoclosure () -> String) {
        guard level <= self.level else { return }
        write("<\(level.priority)>\(level.rawValue): \(Self.oneLine(message()))\n")
    }

    /// `text` on one line: a line break or other control character, which a client can put in
    /// a typed answer or a destination's name, is written escaped ("\\n"), so no client can
    /// start a log line of its own with a priority of its choosing (before: "<3>error: …"
    /// sent in a `heard` text stood in the journal as an error of the daemon's).
    static func oneLine(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\t" })
        else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out.unicodeScalars.append(scalar)
            case _ where scalar.properties.generalCategory == .control:
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    package func error(_ message: @autoclosure () -> String) { log(.error, message()) }
    package func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    package func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    package func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
}
