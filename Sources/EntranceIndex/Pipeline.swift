import Foundation

/// Two stages on two threads: `produce` on a thread of its own hands items, in batches,
/// through a short queue to `consume` on the calling thread. The queue holds at most
/// `depth` batches, so memory stays flat whichever stage is slower.
///
/// The import reads and prepares osmium's stream on one thread while SQLite writes on the
/// other: each alone is about half of the work.
enum Pipeline {
    /// Thrown to the producer (from `emit`) when the consumer has stopped.
    struct Stopped: Error {}

    /// Runs both stages to the end and returns when both have stopped.
    /// - Throws: the consumer's error, else the producer's. Either stage failing stops the
    ///   other: the consumer's error makes `emit` throw ``Stopped`` in the producer.
    static func run<Item: Sendable>(
        batch: Int = 256, depth: Int = 8,
        produce: @escaping @Sendable (_ emit: (Item) throws -> Void) throws -> Void,
        consume: (Item) throws -> Void
    ) throws {
        let channel = Channel<Item>(depth: depth)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            var pending: [Item] = []
            pending.reserveCapacity(batch)
            do {
                try produce { item in
                    pending.append(item)
                    if pending.count == batch {
                        try channel.send(pending)
                        pending.removeAll(keepingCapacity: true)
                    }
                }
                if !pending.isEmpty { try channel.send(pending) }
                channel.close(nil)
            } catch {
                // What was read before the failure still arrives, then the failure.
                if !(error is Pipeline.Stopped) && !pending.isEmpty { try? channel.send(pending) }
                channel.close(error)
            }
            done.signal()
        }
        thread.name = "pathfinder-read"
        thread.start()
        do {
            while let items = try channel.receive() {
                for item in items { try consume(item) }
            }
        } catch {
            channel.stop()
            done.wait()
            throw error
        }
        done.wait()
    }
}

/// The bounded queue between the two stages.
private final class Channel<Item: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var batches: [[Item]] = []
    private let depth: Int
    private var closed = false
    private var failure: (any Error)?
    private var stopped = false

    init(depth: Int) { self.depth = depth }

    /// Waits while the queue is full. Throws ``Pipeline/Stopped`` once the consumer stopped.
    func send(_ items: [Item]) throws {
        condition.lock()
        defer { condition.unlock() }
        while batches.count >= depth && !stopped { condition.wait() }
        if stopped { throw Pipeline.Stopped() }
        batches.append(items)
        condition.broadcast()
    }

    /// The producer's end, with its error if it failed.
    func close(_ error: (any Error)?) {
        condition.lock()
        closed = true
        failure = error
        condition.broadcast()
        condition.unlock()
    }

    /// The next batch; nil at the end. Throws the producer's error once what it sent before
    /// failing has been received.
    func receive() throws -> [Item]? {
        condition.lock()
        defer { condition.unlock() }
        while batches.isEmpty && !closed { condition.wait() }
        if !batches.isEmpty {
            condition.broadcast()
            return batches.removeFirst()
        }
        if let failure { throw failure }
        return nil
    }

    /// The consumer gives up: the producer's next `send` throws.
    func stop() {
        condition.lock()
        stopped = true
        batches.removeAll()
        condition.broadcast()
        condition.unlock()
    }
}
