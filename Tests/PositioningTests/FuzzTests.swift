import Foundation
import Geo
import Positioning
import Testing

/// Real sentences, mutated: the parser must never trap and never emit anything out of range.
@Suite struct FuzzTests {
    static let seed: UInt64 = 0x5EED_2026
    static let lineCount = 120_000

    /// Every real sentence from the fixtures, and hand-made pressure/GST/GNS sentences
    /// (drawn one time in 20, or they would hardly ever come up).
    static func corpus() throws -> (real: [[UInt8]], extra: [[UInt8]]) {
        var lines: [[UInt8]] = []
        var extra: [[UInt8]] = []
        for name in Fixtures.logs {
            for line in try Fixtures.log(name).split(separator: 0x0A) where line.first == 0x24 {
                lines.append(Array(line.filter { $0 != 0x0D }))
            }
        }
        for body in [
            "IIXDR,P,1.02481,B,Barometer", "WIXDR,P,101325,P,BARO",
            "WIMDA,29.9213,I,1.01325,B,21.5,C,,C,45.0,,9.2,C,,T,,M,,N,,M",
            "WIMMB,29.9213,I,1.01325,B", "PGRMZ,93,f,3", "GNGST,223745.00,228650,2.5,2.4,126,0.98,1.0,3.1",
            "GNGNS,101010.00,3723.46587704,N,12202.26957864,W,AAN,14,0.9,6.0,-32.1,,",
        ] {
            extra.append(Array(nmea(body).utf8.dropLast(2)))
        }
        return (lines, extra)
    }

    /// Re-computes the checksum so a mutated body gets past validation into the field parsers.
    static func withChecksum(_ line: [UInt8]) -> [UInt8] {
        guard let star = line.lastIndex(of: 0x2A), line.first == 0x24 else { return line }
        let sum = line[1..<star].reduce(UInt8(0), ^)
        let hex = Array(String(sum, radix: 16, uppercase: true).utf8)
        return Array(line[...star]) + (hex.count == 1 ? [0x30] + hex : hex)
    }

    static func mutate(_ line: [UInt8], other: [UInt8], rng: inout SeededRandom) -> [UInt8] {
        var l = line
        switch Int.random(in: 0..<8, using: &rng) {
        case 0:  // flip a bit
            if !l.isEmpty {
                l[Int.random(in: 0..<l.count, using: &rng)] ^= 1 << UInt8.random(in: 0..<8, using: &rng)
            }
        case 1:  // cut
            l = Array(l.prefix(Int.random(in: 0...l.count, using: &rng)))
        case 2:  // splice two sentences
            l =
                Array(l.prefix(Int.random(in: 0...l.count, using: &rng)))
                + other.suffix(Int.random(in: 0...other.count, using: &rng))
        case 3:  // random bytes inserted
            let at = Int.random(in: 0...l.count, using: &rng)
            l.insert(
                contentsOf: (0..<Int.random(in: 1...40, using: &rng)).map { _ in
                    UInt8.random(in: 0...255, using: &rng)
                }, at: at)
        case 4:  // replace a field's text with digits, signs, points (valid checksum)
            let digits: [UInt8] = Array("0123456789.-+,NSEWAV".utf8)
            for _ in 0..<Int.random(in: 1...6, using: &rng) where l.count > 8 {
                l[Int.random(in: 7..<(l.count - 3), using: &rng)] = digits.randomElement(using: &rng)!
            }
            l = withChecksum(l)
        case 5:  // a field made huge or duplicated commas (valid checksum)
            if let comma = l.firstIndex(of: 0x2C) {
                let filler = Array(
                    repeating: [UInt8(0x39), 0x2C, 0x2C, 0x2E].randomElement(using: &rng)!,
                    count: Int.random(in: 1...30, using: &rng))
                l.insert(contentsOf: filler, at: comma)
            }
            l = withChecksum(l)
        case 6:  // junk line
            l = (0..<Int.random(in: 0...300, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        default:  // unchanged
            break
        }
        return l
    }

    @Test func mutatedRealSentencesNeverCrashOrProduceOutOfRangeValues() throws {
        let corpus = try Self.corpus()
        var rng = SeededRandom(seed: Self.seed)
        var parser = NMEAParser()
        var fixCount = 0
        var pressureCount = 0
        let lowest = Date(timeIntervalSince1970: UTCTimeBounds.earliest)
        let highest = Date(timeIntervalSince1970: UTCTimeBounds.latest)
        func check(_ events: [PositionEvent]) {
            for event in events {
                switch event {
                case .fix(let f):
                    fixCount += 1
                    #expect(f.isPlausible, "fix out of range: \(f)")
                    #expect(f.coordinate.latitude.isFinite && f.coordinate.longitude.isFinite)
                    #expect(f.time >= lowest && f.time <= highest, "time \(f.time)")
                    #expect(f.horizontalAccuracy.map { $0 > 0 } ?? true)
                    #expect(f.mode == .threeD || f.altitudeMSL == nil)
                case .pressure(let p):
                    pressureCount += 1
                    #expect(PressureReading.plausibleHPa.contains(p.hPa), "pressure \(p.hPa)")
                case .noFix(let t):
                    if let t { #expect(t >= lowest && t <= highest) }
                }
            }
        }
        for _ in 0..<Self.lineCount {
            let pick = { (rng: inout SeededRandom) in
                (Int.random(in: 0..<20, using: &rng) == 0 ? corpus.extra : corpus.real).randomElement(
                    using: &rng)!
            }
            let line = pick(&rng)
            let other = pick(&rng)
            var bytes = Self.mutate(line, other: other, rng: &rng)
            bytes += [[0x0D, 0x0A], [0x0A], [0x0D], []].randomElement(using: &rng)!
            // Feed in random chunks, as a serial port delivers them.
            var i = 0
            while i < bytes.count {
                let n = Int.random(in: 1...64, using: &rng)
                check(parser.feed(bytes[i..<min(i + n, bytes.count)]))
                i += n
            }
        }
        check(parser.finish())
        let s = parser.stats
        // The run really exercised every path.
        #expect(s.lines >= Self.lineCount / 2)
        #expect(fixCount > 1_000 && pressureCount > 100)
        #expect(s.badChecksum > 1_000 && s.junk > 1_000 && s.overlong > 100 && s.unknown > 1_000)
    }
}

/// The date range an NMEA time can map to (two-digit years 1980–2079, ZDA 1900–2199).
enum UTCTimeBounds {
    static let earliest = -2_208_988_800.0  // 1900-01-01
    static let latest = 7_289_654_400.0  // 2200-12-31
}
