import Foundation
import Positioning
import Synchronization
import Testing

/// The IIO stream outlives a failing sensor: it says so, retries with backoff, and reads on.
@Suite struct IIOBarometerRetryTests {
    final class Seen: Sendable {
        let readings = Mutex<[Double]>([])
        let problems = Mutex<[IIOBarometer.Failure?]>([])

        /// Waits (bounded, 20 s) until `condition` holds, sleeping without blocking a thread
        /// (the stream's own task needs one).
        func wait(_ condition: () -> Bool) async -> Bool {
            for _ in 0..<2000 {
                if condition() { return true }
                try? await Task.sleep(for: .milliseconds(10))
            }
            return false
        }
    }

    @Test func aFailedReadIsReportedRetriedAndTheStreamGoesOn() async throws {
        let root = try IIOTests().tree(["in_pressure_input": "100.870000\n"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let sensor = try IIOBarometer(root: root)
        let input = sensor.directory + "/in_pressure_input"
        let seen = Seen()
        let stream = sensor.readings(every: 0.02) { failure in seen.problems.withLock { $0.append(failure) } }
        let reader = Task {
            for await reading in stream { seen.readings.withLock { $0.append(reading.hPa) } }
        }
        defer { reader.cancel() }
        #expect(await seen.wait { !seen.readings.withLock(\.isEmpty) })
        try "n/a\n".write(toFile: input, atomically: true, encoding: .utf8)
        #expect(await seen.wait { seen.problems.withLock { !$0.isEmpty } })
        // Several failed attempts, one report for the outage.
        try await Task.sleep(for: .milliseconds(300))
        #expect(
            seen.problems.withLock { $0 }
                == [IIOBarometer.Failure.malformed(path: input, value: "n/a")])
        try "101.0\n".write(toFile: input, atomically: true, encoding: .utf8)
        #expect(await seen.wait { seen.readings.withLock { $0.contains(1010) } }, "readings resume")
        #expect(seen.problems.withLock { $0.count == 2 && $0.last! == nil }, "the recovery is reported")
    }
}
