import Foundation

/// The voice benchmark's real talkers (`Benchmarks/voice-data/babble/SPLIT`, under the
/// repository at `repository`).
package func babbleDirectory(repository: String, split: String = "test") -> String {
    repository + "/Benchmarks/voice-data/babble/" + split
}

/// Six talkers at once, each the recordings in `directory` back to back from its own starting
/// point, `seconds` long, scaled to an RMS of 1 000 (sox reads the FLACs; the mix is made here,
/// so it is the same every run). Shared by the speech and command-line tests that put talkers
/// behind the walker.
package func talkerBabble(directory: String, seconds: Double) throws -> [Int16] {
    let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter {
        $0.hasSuffix(".flac")
    }
    .sorted()
    guard files.count >= 12 else {
        throw ToolMissing(
            message: "\(directory): \(files.count) babble recordings, need 12 (Benchmarks/voice-data)")
    }
    let scratch = NSTemporaryDirectory() + "pathfinder-babble-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: scratch) }
    var recordings: [[Int16]] = []
    for (index, file) in files.enumerated() {
        let raw = scratch + "/\(index).raw"
        let converted = try run(
            "sox",
            [
                "-R", directory + "/" + file, "-r", "16000", "-c", "1", "-b", "16", "-e", "signed-integer",
                "-t", "raw", raw,
            ],
            install: "sox")
        guard converted == 0, let data = FileManager.default.contents(atPath: raw) else {
            throw ToolMissing(message: "sox could not read \(directory)/\(file)")
        }
        recordings.append(data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) })
    }
    let count = Int(seconds * 16_000)
    var mix = [Double](repeating: 0, count: count)
    for talker in 0..<6 {
        var position = 0
        var next = talker * files.count / 6
        while position < count {
            for (k, s) in recordings[next % recordings.count].enumerated() where position + k < count {
                mix[position + k] += Double(s)
            }
            position += recordings[next % recordings.count].count
            next += 1
        }
    }
    let rms = (mix.reduce(0) { $0 + $1 * $1 } / Double(count)).squareRoot()
    return mix.map { Int16(clamping: Int(($0 / rms * 1_000).rounded())) }
}
