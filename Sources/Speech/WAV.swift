import Diagnostics
import Foundation

/// Mono 16-bit audio at a known rate: what the decoder hears and the synthesizer makes.
public struct Audio: Sendable, Hashable {
    /// Signed 16-bit samples, one channel.
    public var samples: [Int16]
    /// Samples per second (Hz).
    public var sampleRate: Int

    public init(samples: [Int16], sampleRate: Int) {
        self.samples = samples
        self.sampleRate = sampleRate
    }

    /// Length in seconds.
    public var duration: Double { sampleRate > 0 ? Double(samples.count) / Double(sampleRate) : 0 }

    /// The same sound at `rate` Hz (linear interpolation after a box low-pass when
    /// shrinking, which is enough for speech at 16 kHz: the decoder looks below 8 kHz).
    public func resampled(to rate: Int) -> Audio {
        guard rate != sampleRate, !samples.isEmpty, rate > 0 else {
            return Audio(samples: samples, sampleRate: rate)
        }
        let ratio = Double(sampleRate) / Double(rate)
        var source = samples.map(Double.init)
        if ratio > 1 {
            // Average over the step so content above the new Nyquist folds back less.
            let width = Int(ratio.rounded(.up))
            var smoothed = [Double](repeating: 0, count: source.count)
            var sum = 0.0
            for index in source.indices {
                sum += source[index]
                if index >= width { sum -= source[index - width] }
                smoothed[index] = sum / Double(min(index + 1, width))
            }
            // Centre the box filter's delay.
            let shift = width / 2
            source = Array(smoothed.dropFirst(shift)) + [Double](repeating: smoothed.last ?? 0, count: shift)
        }
        let count = Int((Double(samples.count) / ratio).rounded(.down))
        var out = [Int16]()
        out.reserveCapacity(count)
        for index in 0..<count {
            let position = Double(index) * ratio
            let lower = Int(position)
            let upper = min(lower + 1, source.count - 1)
            let fraction = position - Double(lower)
            let value = source[lower] * (1 - fraction) + source[upper] * fraction
            out.append(Int16(clamping: Int(value.rounded())))
        }
        return Audio(samples: out, sampleRate: rate)
    }
}

/// RIFF/WAVE files with PCM 16-bit samples: read (any rate, any channels) and write (mono).
public enum WAV {
    /// The rate the decoder wants (Hz).
    public static let decoderRate = 16_000

    /// Reads a PCM 16-bit WAV file and returns it as 16 kHz mono (channels averaged).
    /// - Throws: `SpeechError.io` when unreadable, `.badAudio` naming the file when it is not
    ///   RIFF/WAVE, not PCM, not 16-bit, or holds no samples.
    public static func read16kMono(path: String) throws(SpeechError) -> Audio {
        let audio = try read(path: path)
        return audio.resampled(to: decoderRate)
    }

    /// Reads a PCM 16-bit WAV file at its own rate, channels averaged to mono.
    public static func read(path: String) throws(SpeechError) -> Audio {
        let data: Data
        do { data = try FileDiagnostics.contents(of: path) } catch {
            throw .io(path: path, reason: "cannot read: \(error.reason)")
        }
        return try parse(data, path: path)
    }

    /// Sample rates a WAV file may have: telephone to studio.
    public static let rates = 8_000...192_000

    static func parse(_ data: Data, path: String) throws(SpeechError) -> Audio {
        let bytes = [UInt8](data)
        guard !bytes.isEmpty else {
            throw .badAudio(path: path, reason: "empty file (expected a RIFF/WAVE PCM 16-bit file)")
        }
        guard bytes.count >= 12, bytes[0..<4] == [0x52, 0x49, 0x46, 0x46],
            bytes[8..<12] == [0x57, 0x41, 0x56, 0x45]
        else {
            throw .badAudio(path: path, reason: "not a RIFF/WAVE file")
        }
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        var offset = 12
        var format: (tag: Int, channels: Int, rate: Int, bits: Int)?
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size = u32(offset + 4)
            let body = offset + 8
            if id == "fmt " {
                guard size >= 16, body + 16 <= bytes.count else {
                    throw .badAudio(path: path, reason: "truncated fmt chunk")
                }
                var tag = u16(body)
                // WAVE_FORMAT_EXTENSIBLE keeps the real format in its sub-format GUID.
                if tag == 0xFFFE, size >= 40, body + 26 <= bytes.count { tag = u16(body + 24) }
                format = (tag, u16(body + 2), u32(body + 4), u16(body + 14))
            } else if id == "data" {
                guard let format else { throw .badAudio(path: path, reason: "data chunk before fmt chunk") }
                guard format.tag == 1 else {
                    throw .badAudio(
                        path: path, reason: "not PCM (format tag \(format.tag); expected 1 = PCM 16-bit)")
                }
                guard format.bits == 16 else {
                    throw .badAudio(path: path, reason: "\(format.bits)-bit samples (expected PCM 16-bit)")
                }
                guard format.channels > 0, format.rate > 0 else {
                    throw .badAudio(path: path, reason: "\(format.channels) channels at \(format.rate) Hz")
                }
                // A header's rate outside what sound devices record is damage: resampling 1 Hz
                // to 16 kHz took minutes and gigabytes.
                guard rates.contains(format.rate) else {
                    throw .badAudio(
                        path: path,
                        reason:
                            "a sample rate of \(format.rate) Hz (expected \(rates.lowerBound)–\(rates.upperBound) Hz)"
                    )
                }
                // Streams written live may carry a 0 or oversize length: take what is there.
                let end = size == 0 || body + size > bytes.count ? bytes.count : body + size
                let frameBytes = 2 * format.channels
                let frames = (end - body) / frameBytes
                guard frames > 0 else { throw .badAudio(path: path, reason: "no samples (empty data chunk)") }
                var samples = [Int16]()
                samples.reserveCapacity(frames)
                for frame in 0..<frames {
                    var sum = 0
                    for channel in 0..<format.channels {
                        let at = body + frame * frameBytes + channel * 2
                        sum += Int(Int16(bitPattern: UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8))
                    }
                    samples.append(Int16(clamping: sum / format.channels))
                }
                return Audio(samples: samples, sampleRate: format.rate)
            }
            offset = body + size + (size & 1)
        }
        throw .badAudio(path: path, reason: format == nil ? "no fmt chunk" : "no data chunk (no samples)")
    }

    /// The bytes of a mono PCM 16-bit WAV file holding `audio`.
    static func encode(_ audio: Audio) -> Data {
        var data = Data()
        func put32(_ value: Int) {
            withUnsafeBytes(of: UInt32(value).littleEndian) { data.append(contentsOf: $0) }
        }
        func put16(_ value: Int) {
            withUnsafeBytes(of: UInt16(value).littleEndian) { data.append(contentsOf: $0) }
        }
        let dataBytes = audio.samples.count * 2
        data.append(contentsOf: Array("RIFF".utf8))
        put32(36 + dataBytes)
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        put32(16)
        put16(1)
        put16(1)
        put32(audio.sampleRate)
        put32(audio.sampleRate * 2)
        put16(2)
        put16(16)
        data.append(contentsOf: Array("data".utf8))
        put32(dataBytes)
        for sample in audio.samples { put16(Int(UInt16(bitPattern: sample))) }
        return data
    }

    /// The bytes of a mono PCM 16-bit WAV file holding `audio`.
    public static func bytes(_ audio: Audio) -> [UInt8] { [UInt8](encode(audio)) }

    /// Writes `audio` as a mono PCM 16-bit WAV file, atomically (nothing half-written).
    public static func write(_ audio: Audio, to path: String) throws(SpeechError) {
        do { try encode(audio).write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
            throw .io(path: path, reason: "cannot write: \(FileDiagnostics.reasonWriting(path, error))")
        }
    }
}
