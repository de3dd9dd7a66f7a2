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
        let stream = Microphone.capture(
            reading: { count in
                // The first read delivers; the second blocks until released.
                let before = reads.withLock { count in
                    count += 1
                    return count - 1
                }
                if before > 0 { release.wait() }
                return CaptureRead(samples: [Int16](repeating: 100, count: count), overran: false)
            },
            watch: Microphone.Watch(device: device, stallSeconds: 0.5))
        let began = ContinuousClock.now
        var chunks = 0
        var failure: (any Error)?
        do {
            for try await _ in stream { chunks += 1 }
        } catch {
            failure = error
        }
        let took = ContinuousClock.now - began
        #expect(chunks == 1)
        #expect(
            failure.map { "\($0)" }
                == "sound device \(device): stalled: no audio for 0.5 s while open (the device stopped delivering it)"
        )
        // 0.5 s alone; bounded loosely, the test pool being shared with tests that block it.
        #expect(took < .seconds(30), "\(took)")
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
