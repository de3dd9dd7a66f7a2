import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A tiny TCP server on 127.0.0.1 and a free port, for feeding gpsd (or playing a silent
/// gpsd). Each accepted connection is handled on its own thread by `serve`.
final class TestServer: @unchecked Sendable {
    // Safe: `accepted` and `received` are only touched inside `lock`; `fd` is set once.
    let port: UInt16
    private let fd: Int32
    private let lock = NSLock()
    private var accepted = 0
    private var received: [UInt8] = []
    private var closed = false

    init(
        serve: @escaping @Sendable (_ connection: Int32, _ isClosed: @escaping @Sendable () -> Bool) -> Void
    ) throws {
        let (fd, port) = try listeningOnLoopback()
        self.port = port
        self.fd = fd
        let listener = fd
        Thread { [self] in
            while true {
                let c = accept(listener, nil, nil)
                if c < 0, errno == EINTR { continue }  // a signal (a test's child process ended)
                if c < 0 { return }
                lock.withLock { accepted += 1 }
                Thread {
                    serve(c, { [self] in lock.withLock { closed } })
                    close(c)
                }.start()
            }
        }.start()
    }

    var acceptedCount: Int { lock.withLock { accepted } }
    var receivedText: String { lock.withLock { String(decoding: received, as: UTF8.self) } }

    func record(_ bytes: [UInt8]) { lock.withLock { received += bytes } }

    func shutdown() {
        lock.withLock { closed = true }
        Glibc.shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }

    /// A port nothing listens on right now (bound to 0, read, released).
    static func freePort() throws -> UInt16 {
        let server = try TestServer { _, _ in }
        defer { server.shutdown() }
        return server.port
    }

    /// A feeder that serves `lines` over and over, `pause` seconds apart, until closed or
    /// the peer goes away.
    static func feeder(lines: [String], pause: Double) throws -> TestServer {
        try TestServer { c, isClosed in
            while !isClosed() {
                for line in lines {
                    let bytes = Array((line + "\r\n").utf8)
                    let sent = bytes.withUnsafeBytes {
                        send(c, $0.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
                    }
                    if sent < 0 || isClosed() { return }
                    usleep(UInt32(pause * 1_000_000))
                }
            }
        }
    }
}

// `GPSDProcess` (a real gpsd on a private port) lives in Tests/TestSupport, shared
// with the daemon's end-to-end test.

/// Collects a stream's events on a task, for polling from a test.
final class Collector<Element: Sendable>: @unchecked Sendable {
    // Safe: `items` is only touched inside `lock`.
    private let lock = NSLock()
    private var items: [Element] = []
    private var task: Task<Void, Never>?

    init(_ stream: AsyncStream<Element>) {
        task = Task { [self] in
            for await item in stream { lock.withLock { items.append(item) } }
        }
    }

    var all: [Element] { lock.withLock { items } }

    /// Waits (polling every 20 ms) until `condition` holds; `false` after `limit` seconds of
    /// its own polls, a guard against hanging, not a speed requirement. Counted in polls, not
    /// read off the clock: the waiting task and the collecting one run on the concurrency pool
    /// the test process shares with tests that block it (a CI run held it 296 s), and a
    /// deadline on the clock lapsed while both were held, the stream's events not yet collected
    /// (the gpsd restart test, the pool held 31 s: "no fixes/pressure from gpsd", whose client
    /// had had five fixes in 1.7 s).
    func wait(upTo limit: Double = 30, until condition: ([Element]) -> Bool) async -> Bool {
        for _ in 0..<Int((limit / 0.02).rounded(.up)) {
            if condition(all) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition(all)
    }

    func cancel() { task?.cancel() }
}

/// A task executor with a thread of its own: a task that prefers it
/// (`Task(executorPreference:)`) runs there, not on the concurrency pool the test process
/// shares with tests that block it (a CI run held the pool 296 s). For a task whose progress
/// another thread waits for by the clock, as a feeder waits for the client's fix. The thread
/// waits for jobs as long as the test process lives.
final class OwnThreadExecutor: TaskExecutor, @unchecked Sendable {
    // Safe: `jobs` is only touched with `condition` locked.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    init(name: String) {
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.withLock {
            jobs.append(job)
            condition.signal()
        }
    }

    private func run() {
        while true {
            let next = condition.withLock {
                while jobs.isEmpty { condition.wait() }
                return jobs.removeFirst()
            }
            next.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
