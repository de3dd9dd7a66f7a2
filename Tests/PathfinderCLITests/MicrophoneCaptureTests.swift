import Foundation
import Synchronization
import TestSupport
import Testing

/// `pathfinder listen --mic` on a capture device of ALSA's file plugin (`speakingHome()`): it
/// delivers "여기 아니야" half a second in, then digital silence, far faster than a microphone —
/// a capture of given seconds takes it so; an open-ended one reads it at real time, and falls
/// behind only when the process is held up (stopped), as a slow board's decoder can fall
/// behind a real microphone.
@Suite("microphone capture", .serialized)
struct MicrophoneCaptureTests {
    /// A capture of given seconds keeps all of them for the decoder (before, only the newest
    /// 10 s: the answer at 0.5 s of a 15 s capture was thrown away unheard, and the silence
    /// warning blamed the microphone).
    @Test func aCaptureOfGivenSecondsHearsAllOfThem() throws {
        let home = try speakingHome()
        let result = try runCapturing(
            try BuiltExecutable.pathfinder().path,
            ["listen", "--mic", "--device", "speech", "--seconds", "15"],
            standardOutput: true, environment: ["HOME": home.path])
        #expect(result.status == 0)
        let line = try #require(result.text.split(separator: "\n").first, "nothing heard")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["meaning"] as? String == "notHere", "\(result.text)")
        let start = try #require(object["start"] as? Double)
        #expect((0.2...0.8).contains(start), "the answer is placed at \(start) s, said at 0.5 s")
    }

    /// An open-ended capture (the daemon's, `listen --mic` without `--seconds`) holds 30 s for a
    /// decoder that fell behind, then throws the newest away — and says so, with the answer
    /// within those 30 s still heard at its own time. The process is stopped for 32 s once the
    /// answer is heard: the device, read no faster than real time until then, has that much to
    /// give at once when it goes on (before pacing, the device itself outran the decoder). It
    /// is named once as faster than real time.
    @Test func anOpenEndedCaptureSaysWhenItThrowsAudioAway() throws {
        let home = try speakingHome()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try BuiltExecutable.pathfinder().path)
        process.arguments = ["listen", "--mic", "--device", "speech"]
        process.environment = ProcessInfo.processInfo.environment.merging(["HOME": home.path]) { $1 }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let said = Mutex(Data()), printed = Mutex(Data())
        errors.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            said.withLock { $0.append(data) }
        }
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            printed.withLock { $0.append(data) }
        }
        let answered = Date().addingTimeInterval(60)
        while Date() < answered, !String(decoding: printed.withLock { $0 }, as: UTF8.self).contains("\n") {
            Thread.sleep(forTimeInterval: 0.1)
        }
        kill(process.processIdentifier, SIGSTOP)
        Thread.sleep(forTimeInterval: 32)
        kill(process.processIdentifier, SIGCONT)
        let warning =
            "microphone speech: the decoder fell 30 s behind; audio is thrown away until it catches up"
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline, !String(decoding: said.withLock { $0 }, as: UTF8.self).contains(warning) {
            Thread.sleep(forTimeInterval: 0.2)
        }
        process.interrupt()
        process.waitUntilExit()
        errors.fileHandleForReading.readabilityHandler = nil
        output.fileHandleForReading.readabilityHandler = nil
        let rest = output.fileHandleForReading.readDataToEndOfFile()
        let heard = String(decoding: printed.withLock { $0 } + rest, as: UTF8.self)
        let stderr = String(decoding: said.withLock { $0 }, as: UTF8.self)
        #expect(stderr.components(separatedBy: warning).count == 2, "warned once: \(stderr)")
        let named =
            "pathfinder listen: microphone speech: the capture device delivers audio faster than real time: not a microphone?\n"
        #expect(stderr.components(separatedBy: named).count == 2, "named once: \(stderr)")
        let line = try #require(heard.split(separator: "\n").first, "nothing heard; stderr: \(stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["meaning"] as? String == "notHere", "\(heard)")
        #expect((0.2...0.8).contains(object["start"] as? Double ?? -1), "\(heard)")
    }
}
