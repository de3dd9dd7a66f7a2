import Foundation
import Glibc

/// Where a command writes: standard output and error for the real program, buffers in tests.
package final class Console: @unchecked Sendable {
    // Safe: a command runs on one thread; the lock only guards tests that read from another.
    private let lock = NSLock()
    private let writeOut: @Sendable (String) -> Void
    private let writeErr: @Sendable (String) -> Void

    package init(out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void) {
        self.writeOut = out
        self.writeErr = err
    }

    /// The process's real standard output and standard error, unbuffered per line.
    ///
    /// Output that cannot be written (a full disk, a reader gone with SIGPIPE ignored, as
    /// under systemd) ends the program with exit 1 and one line on standard error saying why
    /// (before: `FileHandle.write` trapped, a crash report and exit 132). What cannot be
    /// written to standard error is dropped: there is nowhere left to say it.
    package static let standard = Console(
        out: { text in
            if let code = writeAll(STDOUT_FILENO, text) {
                _ = writeAll(
                    STDERR_FILENO,
                    "pathfinder: cannot write to standard output: \(String(cString: strerror(code)))\n")
                exit(1)
            }
        },
        err: { _ = writeAll(STDERR_FILENO, $0) })

    /// Writes all of `text` to `fd`, retrying on EINTR; the errno of a failure, else nil.
    private static func writeAll(_ fd: Int32, _ text: String) -> Int32? {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            bytes = bytes.dropFirst(written)
        }
        return nil
    }

    /// Writes one line to standard output.
    package func line(_ text: String) { lock.withLock { writeOut(text + "\n") } }
    /// Writes `text` to standard output as is (no newline added): for output built in chunks.
    package func write(_ text: String) { lock.withLock { writeOut(text) } }
    /// Writes one line to standard error.
    package func error(_ text: String) { lock.withLock { writeErr(text + "\n") } }
}

/// A console that keeps what was written, for tests.
package final class CapturedConsole: @unchecked Sendable {
    // Safe: every access to the buffers goes through `lock`.
    private let lock = NSLock()
    private var outBuffer = ""
    private var errBuffer = ""

    package init() {}

    package var console: Console {
        Console(
            out: { text in self.lock.withLock { self.outBuffer += text } },
            err: { text in self.lock.withLock { self.errBuffer += text } })
    }
    package var out: String { lock.withLock { outBuffer } }
    package var err: String { lock.withLock { errBuffer } }
}
