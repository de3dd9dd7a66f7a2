import CALSA
import Glibc

/// One open ALSA PCM stream (`snd_pcm_t`), mono signed 16-bit, closed in `deinit`.
///
/// Not thread-safe: one thread reads (capture) or writes (playback) it.
final class PCMDevice {
    enum Direction { case capture, playback }

    private let pcm: OpaquePointer
    let device: String
    let sampleRate: Int

    /// Opens `device` ("default", "hw:1,0", "plughw:1") at `sampleRate` Hz, one channel;
    /// ALSA's plug layer converts when the hardware differs.
    init(device: String, direction: Direction, sampleRate: Int) throws(SpeechError) {
        pathfinder_alsa_quiet()
        var handle: OpaquePointer?
        let stream = direction == .capture ? SND_PCM_STREAM_CAPTURE : SND_PCM_STREAM_PLAYBACK
        var status = snd_pcm_open(&handle, device, stream, 0)
        guard status >= 0, let handle else {
            throw .audioDevice(
                device: device,
                reason: Self.message(status)
                    + " (no sound card? \(direction == .capture ? "arecord" : "aplay") -l lists them)")
        }
        // 100 ms of latency: short enough for half-duplex turn-taking, long enough for a Pi.
        status = snd_pcm_set_params(
            handle, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 1, UInt32(sampleRate), 1, 100_000)
        guard status >= 0 else {
            snd_pcm_close(handle)
            throw .audioDevice(device: device, reason: Self.message(status))
        }
        pcm = handle
        self.device = device
        self.sampleRate = sampleRate
    }

    deinit { snd_pcm_close(pcm) }

    static func message(_ status: Int32) -> String { String(cString: snd_strerror(status)) }

    /// Reads `count` samples (blocking): all of them, or those read before an overrun (or a
    /// suspend) made the device throw its buffer away; it is then recovered and `overran`
    /// says so, for the caller to count the audio lost (``CapturePace/overran(after:)``).
    /// Before, it read on over the gap and the audio on either side came out joined.
    func read(count: Int) throws(SpeechError) -> CaptureRead {
        var buffer = [Int16](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = buffer.withUnsafeMutableBufferPointer { pointer in
                snd_pcm_readi(pcm, pointer.baseAddress! + done, snd_pcm_uframes_t(count - done))
            }
            if got < 0 {
                let recovered = snd_pcm_recover(pcm, Int32(got), 1)
                if recovered < 0 { throw .audioDevice(device: device, reason: Self.message(recovered)) }
                // EINTR is recovered as nothing lost; an overrun or a suspend lost audio.
                if Int32(got) != -EINTR {
                    return CaptureRead(samples: Array(buffer.prefix(done)), overran: true)
                }
            } else {
                done += Int(got)
            }
        }
        return CaptureRead(samples: buffer, overran: false)
    }

    /// Plays all `samples` and waits until they have been heard, in pieces of 100 ms:
    /// between them `goOn` is asked, and when it says no the rest is dropped unplayed (a sound
    /// its caller gave up on, the device having stalled, is not played late when it wakes).
    func play(_ samples: [Int16], while goOn: () -> Bool = { true }) throws(SpeechError) {
        let piece = max(1, sampleRate / 10)
        var done = 0
        while done < samples.count {
            guard goOn() else {
                snd_pcm_drop(pcm)
                return
            }
            let wrote = samples.withUnsafeBufferPointer { pointer in
                snd_pcm_writei(
                    pcm, pointer.baseAddress! + done, snd_pcm_uframes_t(min(piece, samples.count - done)))
            }
            if wrote < 0 {
                let recovered = snd_pcm_recover(pcm, Int32(wrote), 1)
                if recovered < 0 { throw .audioDevice(device: device, reason: Self.message(recovered)) }
            } else {
                done += Int(wrote)
            }
        }
        guard goOn() else {
            snd_pcm_drop(pcm)
            return
        }
        let drained = snd_pcm_drain(pcm)
        if drained < 0 { throw .audioDevice(device: device, reason: Self.message(drained)) }
    }
}

/// What one read of a capture device gave: its samples, and whether the device lost audio after
/// them (an overrun: it was not read in time, and its buffer was thrown away).
package struct CaptureRead: Sendable {
    package var samples: [Int16]
    package var overran: Bool

    package init(samples: [Int16], overran: Bool) {
        self.samples = samples
        self.overran = overran
    }
}
