import Foundation

/// A dedicated OS thread that runs submitted work one item at a time, in order.
///
/// espeak-ng keeps its state in process globals and is not reentrant, so every espeak call
/// goes through the one `SpeechThread.espeak`.
final class SpeechThread: @unchecked Sendable {
    // @unchecked: `queue` is only touched while holding `condition`'s lock; the thread
    // itself is started once in init and never replaced.
    private let condition = NSCondition()
    private var queue: [@Sendable () -> Void] = []

    /// The thread that owns espeak-ng.
    static let espeak = SpeechThread(name: "pathfinder.espeak")

    init(name: String) {
        let thread = Thread { [unowned self] in self.run() }
        thread.name = name
        thread.start()
    }

    private func run() {
        while true {
            condition.lock()
            while queue.isEmpty { condition.wait() }
            let work = queue.removeFirst()
            condition.unlock()
            work()
        }
    }

    /// Runs `work` on the thread and waits for its result.
    func sync<T: Sendable>(_ work: @escaping @Sendable () -> T) -> T {
        let done = NSCondition()
        nonisolated(unsafe) var result: T?  // written on the thread before `done` is signalled, read after
        condition.lock()
        queue.append {
            let value = work()
            done.lock()
            result = value
            done.signal()
            done.unlock()
        }
        condition.signal()
        condition.unlock()
        done.lock()
        while result == nil { done.wait() }
        done.unlock()
        return result!
    }
}
