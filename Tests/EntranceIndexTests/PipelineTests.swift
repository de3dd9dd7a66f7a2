import Foundation
import Testing

@testable import EntranceIndex

@Suite("Reading on one thread, writing on another")
struct PipelineTests {
    struct Broken: Error, Equatable { var at: Int }

    /// Counts what the producer managed to hand over, across threads.
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        private var stoppedFlag = false
        func add() { lock.withLock { value += 1 } }
        func stop() { lock.withLock { stoppedFlag = true } }
        var count: Int { lock.withLock { value } }
        var stopped: Bool { lock.withLock { stoppedFlag } }
    }

    @Test func everyItemArrivesInOrder() throws {
        var seen: [Int] = []
        try Pipeline.run(
            batch: 7, depth: 2,
            produce: { emit in for i in 0..<10_000 { try emit(i) } },
            consume: { seen.append($0) })
        #expect(seen == Array(0..<10_000))
    }

    @Test func theWritersErrorStopsTheReader() throws {
        let produced = Counter()
        #expect(throws: Broken(at: 100)) {
            try Pipeline.run(
                batch: 10, depth: 2,
                produce: { emit in
                    do {
                        // Would run for ever: only the consumer's failure ends it.
                        for i in 0... {
                            try emit(i)
                            produced.add()
                        }
                    } catch is Pipeline.Stopped {
                        produced.stop()
                        throw Pipeline.Stopped()
                    }
                },
                consume: { (i: Int) in if i == 100 { throw Broken(at: i) } })
        }
        #expect(produced.stopped)
        // The queue is short: the reader got at most a few batches ahead.
        #expect(produced.count < 100 + 10 * 4)
    }

    @Test func theReadersErrorArrivesAfterWhatItReadBefore() throws {
        var seen: [Int] = []
        #expect(throws: Broken(at: 50)) {
            try Pipeline.run(
                batch: 8, depth: 2,
                produce: { emit in
                    for i in 0..<50 { try emit(i) }
                    throw Broken(at: 50)
                },
                consume: { seen.append($0) })
        }
        #expect(seen == Array(0..<50))
    }
}
