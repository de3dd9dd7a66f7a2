import Foundation

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
    package static let standard = Console(
        out: { FileHandle.standardOutput.write(Data($0.utf8)) },
        err: { FileHandle.standardError.write(Data($0.utf8)) })

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
