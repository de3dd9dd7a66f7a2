import Testing

@testable import Speech

/// ``CapturePace``: a capture device that delivers audio faster than the clock (ALSA's `null`,
/// a file) is named and read no faster than real time; a microphone, whose clock is the
/// sound card's, is left alone.
struct CapturePaceTests {
    /// What a device delivering 100 ms chunks at `speed` times real time, after a first
    /// buffer of `buffered` seconds at once, makes the pace do over `seconds` of the clock
    /// (the waits it asks for taken): the audio delivered (seconds), whether it was named
    /// faster than real time, and at what second of the clock.
    func run(speed: Double, buffered: Double = 0.1, seconds: Double) -> (audio: Double, named: Double?) {
        var pace = CapturePace()
        var clock = 0.0, audio = 0.0
        var named: Double?
        while clock < seconds {
            let chunk = 0.1
            // The device has the chunk once the clock reaches its end (at `speed`), less its buffer.
            clock = max(clock, (audio + chunk - buffered) / speed)
            audio += chunk
            let wait = pace.delivered(Int(chunk * 16_000), after: clock)
            if pace.fasterThanRealTime, named == nil { named = clock }
            clock += wait
        }
        return (audio, named)
    }

    @Test func aMicrophoneIsNeitherNamedNorPaced() {
        let (audio, named) = run(speed: 1, seconds: 600)
        #expect(named == nil)
        #expect(abs(audio - 600.1) < 0.2)
    }

    /// A sound card's clock is not the system's: one 0.5 % fast (far more than any crystal) for
    /// an hour is still a microphone.
    @Test func aSoundCardRunningFastIsStillAMicrophone() {
        let (audio, named) = run(speed: 1.005, seconds: 3_600)
        #expect(named == nil)
        #expect(audio > 3_600 * 1.005)
    }

    /// A device that returns at once (ALSA's `null`) is named within its first second of audio
    /// and read at real time from then on: at most `lead` ahead of the clock.
    @Test func aDeviceThatReturnsAtOnceIsNamedAndPaced() {
        let (audio, named) = run(speed: 10_000, seconds: 30)
        #expect(named != nil && named! < 0.01, "named at \(String(describing: named))")
        #expect(audio <= 30 + CapturePace.leadSeconds + 0.2, "\(audio) s of audio in 30 s")
        #expect(audio >= 30, "\(audio) s of audio in 30 s")
    }

    /// Twice real time is named too, once the lead is used up.
    @Test func twiceRealTimeIsNamed() {
        let (audio, named) = run(speed: 2, seconds: 60)
        #expect(named != nil && named! < 2, "named at \(String(describing: named))")
        #expect(audio <= 60 + CapturePace.leadSeconds + 0.2)
    }
}
