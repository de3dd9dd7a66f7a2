import Glibc
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

    /// Messages more detailed than this are dropped.
    package var level: Level
    private let write: @Sendable (String) -> Void

    /// A log writing to `write` (standard error unless a test passes its own).
    package init(level: Level, write: (@Sendable (String) -> Void)? = nil) {
        self.level = level
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
        write("<\(level.priority)>\(level.rawValue): \(message())\n")
    }

    package func error(_ message: @autoclosure () -> String) { log(.error, message()) }
    package func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    package func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    package func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
}
