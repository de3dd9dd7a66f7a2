import Foundation
import SystemCalls

/// A named thread that runs one loop, and a stop that asks it to end and waits for it: the
/// loop sleeps in `poll` on ``wakePipe``'s read end and checks ``isStopping`` when woken;
/// ``stop()`` sets the flag and writes one byte. The control socket's I/O thread and each
/// buttons reader are one.
final class WakeableThread: @unchecked Sendable {
    // Safe: `thread` and `stopping` are touched only under `lock`; the pipe is written one
    // byte at a time by any thread.

    /// The loop polls its read end; anyone may ``wake()`` it.
    let wakePipe = WakePipe()
    private let lock = NSLock()
    private var stopping = false
    private var thread: Thread?
    private let finished = DispatchSemaphore(value: 0)

    /// Starts `body` on a thread named `name`; it must return once it sees ``isStopping``
    /// (it may also return by itself, on a failure). Start only when ``WakePipe/failure`` is
    /// nil: without the pipe the thread could never be stopped.
    func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread { [finished] in
            body()
            finished.signal()
        }
        thread.name = name
        lock.withLock { self.thread = thread }
        thread.start()
    }

    /// Whether ``stop()`` has asked the loop to end.
    var isStopping: Bool { lock.withLock { stopping } }

    /// Wakes the loop's `poll`.
    func wake() { wakePipe.wake() }

    /// Asks the loop to end, wakes it and waits until its body has returned. Does nothing
    /// when it was never started or is already stopping.
    func stop() {
        let running: Bool = lock.withLock {
            guard thread != nil, !stopping else { return false }
            stopping = true
            return true
        }
        guard running else { return }
        wakePipe.wake()
        finished.wait()
    }
}
