import Foundation
import Synchronization
import Testing

@testable import Speech

/// A capture device whose read blocks (it stopped delivering audio, without an error) ends the
/// capture stalled, naming it, after its `stallSeconds`; the device is not opened again until
/// the read comes back (`StalledDevices`), and then it is. Before, the read was waited for
/// without end.
@Suite struct CaptureStallTests {
    @Test func aReadThatBlocksEndsTheCaptureStalledUntilItComesBack() async throws {
        let device = "pf-test-stalling-\(UUID().uuidString.prefix(6))"
        let release = DispatchSemaphore(value: 0)
        let reads = Mutex(0)
        // When the read blocked and when the stall was marked, each seen from a thread of its
        // own: the test's task resumes on the concurrency pool it shares with tests that block
        // it, so its own clock measured that pool (a CI run: 296 s), not the watcher.
        let blockedAt = Mutex<ContinuousClock.Instant?>(nil)
        let markedAt = Mutex<ContinuousClock.Instant?>(nil)
        Thread.detachNewThread {
            let giveUp = ContinuousClock.now + .seconds(120)
            while ContinuousClock.now < giveUp {
                if (try? StalledDevices.capture.check(device)) == nil {
                    markedAt.withLock { $0 = .now }
                    return
                }
                Thread.sleep(forTimeInterval: 0.005)
            }
        }
        let stream = Microphone.capture(
            reading: { count in
                // The first read delivers; the second blocks until released.
                let before = reads.withLock { count in
                    count += 1
                    return count - 1
                }
                if before > 0 {
                    blockedAt.withLock { $0 = .now }
                    release.wait()
                }
                return CaptureRead(samples: [Int16](repeating: 100, count: count), overran: false)
            },
            watch: Microphone.Watch(device: device, stallSeconds: 0.5))
        var chunks = 0
        var failure: (any Error)?
        do {
            for try await _ in stream { chunks += 1 }
        } catch {
            failure = error
        }
        #expect(chunks == 1)
        #expect(
            failure.map { "\($0)" }
                == "sound device \(device): stalled: no audio for 0.5 s while open (the device stopped delivering it)"
        )
        // 0.5 s after the read blocked, on the watcher's own thread.
        let blocked = try #require(blockedAt.withLock { $0 })
        for _ in 0..<2000 where markedAt.withLock({ $0 }) == nil {
            try await Task.sleep(for: .milliseconds(5))
        }
        let marked = try #require(markedAt.withLock { $0 }, "the stall was never marked")
        #expect(marked - blocked < .seconds(5), "\(marked - blocked)")
        // Held by the read left blocked: its next open fails at once.
        #expect(throws: SpeechError.self) { try StalledDevices.capture.check(device) }
        release.signal()
        var cleared = false
        for _ in 0..<200 where !cleared {
            cleared = (try? StalledDevices.capture.check(device)) != nil
            if !cleared { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(cleared, "still held after the read came back")
    }
}
