import Daemon
import Foundation
import Glibc
import TestSupport
import Testing

/// The daemon's loudspeaker when it fails: checked at start, and a device that stalls without
/// an error (ALSA's file plugin writing into a FIFO nobody reads) said in the log while the
/// microphone goes on hearing the walker.
@Suite(.serialized) struct SpeakerDaemonTests {
    /// A home (the daemon's HOME is its test folder) whose `.asoundrc` defines "speech", a
    /// capture device giving espeak-ng's "여기 아니야" half a second in each time it opens (as
    /// the command-line tests' `speakingHome()` does), and "stuck", a playback device writing
    /// into a FIFO nobody reads: it never opens, and never says why.
    static func stuckHome(_ dir: TempDir) throws {
        let spoken = dir.path + "/spoken.wav", raw = dir.path + "/take.raw", fifo = dir.path + "/stuck.fifo"
        try writeSpokenAnswer(raw: raw, wav: spoken)
        try #require(mkfifo(fifo, 0o600) == 0)
        try """
        pcm.speech {
            type file
            slave.pcm "null"
            file "/dev/null"
            infile "\(raw)"
            format "raw"
        }
        pcm.stuck {
            type file
            slave.pcm "null"
            file "\(fifo)"
            format "raw"
        }

        """.write(toFile: dir.path + "/.asoundrc", atomically: true, encoding: .utf8)
    }

    /// A stalled loudspeaker is said in the log ("cannot speak (… stalled …)"), and the
    /// microphone still hears the walker's answer, which is acted on. Before, the daemon fell
    /// silent with no log line, and the half-duplex gate, closed before the device was opened,
    /// stayed closed: "여기 아니야" was never decoded.
    @Test func aStalledSpeakerIsSaidAndTheMicrophoneStillHearsTheAnswer() throws {
        let dir = TempDir()
        defer { dir.remove() }
        try Self.stuckHome(dir)
        let (daemon, _) = try MicrophoneDaemonTests.atTheDoor(
            dir, #""micDevice": "speech", "speaker": "stuck""#,
            environment: ["PATHFINDER_MODELS": GazetteerDaemonTests.repo + "/models"])
        #expect(daemon.logs("microphone heard: 여기 아니야"), "the answer was not heard:\n\(daemon.stderr)")
        #expect(daemon.logs("info: rejected: "), "the answer was not acted on:\n\(daemon.stderr)")
        #expect(daemon.logs("warning: cannot speak (sound device stuck: "), "no warning:\n\(daemon.stderr)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExitOrKill() == 0)
        let cannot = daemon.stderr.split(separator: "\n").filter { $0.contains("cannot speak") }
        #expect(cannot.allSatisfy { $0.contains("stalled") }, "\(cannot)")
        // The prompts after the first go on failing, said once more at most (the device is still
        // held by the first), not one blocked thread each.
        #expect(daemon.stderr.components(separatedBy: "cannot speak").count <= 3, "\(daemon.stderr)")
    }

    /// A `speaker` that cannot be opened is said at start, naming it, and the daemon runs on (a
    /// USB speaker may be plugged in later). Before, it was found only at the first walk's first
    /// prompt.
    @Test func aSpeakerThatCannotOpenIsSaidAtStart() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let config = dir.path + "/config.json"
        try """
        {"socket": "\(dir.path)/pf.sock", "memory": "\(dir.path)/memory.json", "mic": false,
         "gpsd": "127.0.0.1:29471", "baro": "none", "speaker": "pf-test-no-such-speaker"}
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(
            arguments: ["--config", config], socket: dir.path + "/pf.sock", dir: dir)
        try #require(daemon.waitUntilListening(), "daemon did not start: \(daemon.stderr)")
        let line = "warning: speaker pf-test-no-such-speaker: sound device pf-test-no-such-speaker: "
        #expect(daemon.logs(line), "no warning at start:\n\(daemon.stderr)")
        let status = fields(try daemon.client().request(#"{"cmd": "status"}"#))
        #expect(status["ok"] == .bool(true), "\(status)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExitOrKill() == 0)
    }

    /// Prompts into WAV files need no loudspeaker: none is checked, and none is warned about.
    @Test func withSpeakWavTheSpeakerIsNotChecked() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let daemon = try DaemonProcess(
            arguments: [
                "--config", try DaemonProcess.writeConfig(dir, #", "speaker": "pf-test-no-such-speaker""#),
            ],
            socket: dir.path + "/pf.sock", dir: dir)
        try #require(daemon.waitUntilListening(), "daemon did not start: \(daemon.stderr)")
        _ = fields(try daemon.client().request(#"{"cmd": "status"}"#))
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExitOrKill() == 0)
        #expect(!daemon.stderr.contains("pf-test-no-such-speaker"), "\(daemon.stderr)")
    }
}
