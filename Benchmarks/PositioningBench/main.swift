import Foundation
import Geo
import Positioning

// Positioning benchmark: NMEA parser throughput on the real logs, and the CPU a live
// 10 Hz stream costs through NMEASource (reader thread, parser, async stream).
// Run with Scripts/bench-positioning (release build).
#if canImport(Glibc)
    import Glibc
#endif

let paths = Array(CommandLine.arguments.dropFirst())
guard !paths.isEmpty else {
    FileHandle.standardError.write(Data("usage: PositioningBench LOG...\n".utf8))
    exit(2)
}
var corpus: [UInt8] = []
for path in paths {
    guard let data = FileManager.default.contents(atPath: path) else {
        FileHandle.standardError.write(Data("PositioningBench: cannot read \(path)\n".utf8))
        exit(2)
    }
    corpus += data
    corpus.append(0x0A)
}
let sentencesPerPass = NMEAParser.parse(corpus).stats.sentences

// 1. Throughput: parse the concatenated logs repeatedly for about 3 s; best of 5 rounds.
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

var best = 0.0
var checksum = 0
for _ in 0..<5 {
    let passes = 200
    let start = ContinuousClock.now
    for _ in 0..<passes {
        var parser = NMEAParser()
        checksum &+= parser.feed(corpus).count
        checksum &+= parser.finish().count
    }
    let elapsed = ContinuousClock.now - start
    let seconds = elapsed.inSeconds
    best = max(best, Double(sentencesPerPass * passes) / seconds)
}
let bytesPerSentence = Double(corpus.count) / Double(sentencesPerPass)
print(
    String(
        format: "parser: %.0f sentences/s (%.1f MB/s) on %d bytes, %d sentences of %d real logs [%d]",
        best, best * bytesPerSentence / 1e6, corpus.count, sentencesPerPass, paths.count, checksum % 10))

// 2. A live 10 Hz stream: u-blox epochs (≈23 sentences each, the heaviest log) written
// into a FIFO every 100 ms for 10 s, read by NMEASource on its thread, consumed as
// events. CPU time of the whole process (writer included) over wall time.
let ublox = paths.first { $0.contains("ublox") } ?? paths[0]
let text = String(decoding: FileManager.default.contents(atPath: ublox)!, as: UTF8.self)
var epochList: [[UInt8]] = []
for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("$") {
    if line.dropFirst(3).hasPrefix("RMC") || epochList.isEmpty { epochList.append([]) }
    epochList[epochList.count - 1] += Array((line + "\r\n").utf8)
}
let epochs = epochList
let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("pathfinder-bench-\(getpid()).fifo")
    .path
unlink(fifo)
guard mkfifo(fifo, 0o600) == 0 else {
    print("mkfifo failed")
    exit(1)
}
defer { unlink(fifo) }
let seconds = 10
let writer = Thread {
    let fd = open(fifo, O_WRONLY)
    for i in 0..<(seconds * 10) {
        let bytes = epochs[i % epochs.count]
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, bytes.count) }
        usleep(100_000)
    }
    close(fd)
}
writer.start()
let source = NMEASource(.file(path: fifo, paced: false))
let fd = try source.open()
let cpu0 = cpuSeconds()
let wall0 = ContinuousClock.now
var fixes = 0
for await event in source.events(from: fd) {
    if case .fix = event { fixes += 1 }
}
let wall = ContinuousClock.now - wall0
let wallSeconds = wall.inSeconds
let cpu = cpuSeconds() - cpu0
print(
    String(
        format: "10 Hz stream: %d epochs in %.1f s wall, %.3f s CPU = %.2f %% of one core (%d sentences/s)",
        fixes,
        wallSeconds, cpu, cpu / wallSeconds * 100, source.stats.sentences / max(1, Int(wallSeconds.rounded()))
    ))
