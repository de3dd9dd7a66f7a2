import Daemon
import Foundation
import Glibc
import TestSupport
import Testing

/// Audit 8 A8-4, A8-5: what `status` and the log say of a failing world, on the built daemon
/// over its socket. Before, `status` said nothing of the position source or the memory (a
/// family member could only guess from `positionAge`), and the log kept an outage's first
/// cause until a fix.
@Suite(.serialized) struct FailingWorldStatusTests {
    /// `status`'s `positions` object once `accept` holds for it (polled, bounded: 40 s).
    static func positions(
        _ requests: ControlClient, until accept: ([String: JSONValue]) -> Bool
    ) throws -> [String: JSONValue]? {
        var last: [String: JSONValue]?
        for _ in 0..<400 {
            last = fields(try requests.request(#"{"cmd": "status"}"#))["positions"]?.objectValue
            if let last, accept(last) { return last }
            usleep(100_000)
        }
        return last
    }

    /// gpsd refused, then silent, then answering with no fix, then fixes, then (a gpsd
    /// restarted, another receiver) simulated positions: `status` names each cause and is null
    /// at the fixes; the log tells each change of cause once.
    @Test func positionsSayWhyNoneCome() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let port = try NMEAFeeder.freePort()
        let daemon = try DaemonProcess(
            arguments: [
                "--socket", dir.path + "/pf.sock", "--memory", dir.path + "/memory.json", "--no-mic",
                "--baro", "none", "--gpsd", "127.0.0.1:\(port)",
            ], socket: dir.path + "/pf.sock", dir: dir)
        try #require(daemon.waitUntilListening(), "\(daemon.stderr)")
        let requests = try daemon.client()
        let source = "gpsd 127.0.0.1:\(port)"
        func problem(_ p: [String: JSONValue]?) -> String? { p?["problem"]?.stringValue }

        // Nothing listens: refused.
        let refused = try Self.positions(requests) { problem($0)?.contains("refused") == true }
        #expect(refused?["source"]?.stringValue == source, "\(String(describing: refused))")
        #expect(
            problem(refused)?.contains("refused") == true, "\(String(describing: refused))\n\(daemon.stderr)")

        // Accepts, never writes.
        let gpsd = try FakeGPSD(port: port, mode: .silent)
        defer { gpsd.shutdown() }
        let silent = try Self.positions(requests) { problem($0) == "gpsd silent for 5.0 s" }
        #expect(problem(silent) == "gpsd silent for 5.0 s", "\(daemon.stderr)")
        #expect(
            daemon.logs("\(source): gpsd silent for 5.0 s (the cause changed; before: "), "\(daemon.stderr)")

        // Answers, the receiver has no fix (TPV mode 1).
        gpsd.mode = .noFix
        let noFix = "gpsd answers; the receiver has no fix"
        let answering = try Self.positions(requests) { problem($0) == noFix }
        #expect(problem(answering) == noFix, "\(daemon.stderr)")
        #expect(daemon.logs("\(source): \(noFix) (the cause changed; before: "), "\(daemon.stderr)")

        // Fixes: no problem.
        gpsd.mode = .fix
        let fixes = try Self.positions(requests) { $0["problem"] == .null }
        #expect(fixes?["problem"] == .null, "\(String(describing: fixes))\n\(daemon.stderr)")
        #expect(daemon.logs("\(source): positions again"), "\(daemon.stderr)")

        // Another connection of positions not from satellites: named, though this daemon had a
        // fix before (before, counted since the start, never named after one fix).
        gpsd.mode = .simulated
        let simulated = try Self.positions(requests) { problem($0) == PositionFeedText.notGNSS }
        #expect(problem(simulated) == PositionFeedText.notGNSS, "\(daemon.stderr)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    /// Audit 8 A8-6: a client that floods requests and reads no reply is dropped with a warning
    /// naming it and why (before, at debug, as a hang-up); clients left silent are closed as
    /// idle in one line, the rest counted in the next (before, a line each).
    @Test func droppedAndIdleClientsAreTold() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let daemon = try DaemonProcess.listening(in: dir)
        let silent = try (0..<5).map { _ in try ControlClient(path: daemon.socket) }
        let flooding = try ControlClient(path: daemon.socket)
        let lines = Array(
            (["subscribe"] + Array(repeating: #"{"cmd": "status"}"#, count: 20_000)).map { $0 + "\n" }
                .joined().utf8)
        let writer = Thread { try? flooding.write(lines) }
        writer.start()
        let why = "KiB of output unread (a subscriber or client that stopped reading)"
        #expect(daemon.logs(why), "\(daemon.stderr)")
        let dropped = daemon.stderr.split(separator: "\n").filter { $0.contains(why) }
        #expect(dropped.count == 1, "\(daemon.stderr)")
        #expect(dropped.first?.contains(/<4>warning: client \d+: dropped: \d+ KiB/) == true, "\(dropped)")

        usleep(28_000_000)  // the 30 s of idleness
        #expect(daemon.logs("; closed"), "\(daemon.stderr)")
        usleep(1_500_000)
        let closedLines = daemon.stderr.components(separatedBy: "no request for 30 s; closed").count - 1
        #expect(closedLines == 1, "\(daemon.stderr)")
        #expect(
            daemon.logs("<6>info: closed 4 more idle clients ("), "not told:\n\(daemon.stderr)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        withExtendedLifetime((silent, flooding)) {}
    }
}

/// The daemon's wording of positions not from satellites.
enum PositionFeedText {
    static let notGNSS =
        "no fix: the receiver says its positions are simulated, typed in or dead reckoning (not GNSS)"
}
