import Foundation
import TestSupport
import Testing

@testable import Speech

/// `Scripts/sendump-to-mixw` on Debian's real en-us `sendump` (Scripts/adapt-model also checks
/// that `mk_s2sendump` re-quantises its output byte for byte; sphinxtrain is not a test
/// dependency, so this checks the layout and the arithmetic directly).
@Suite("sendump to mixture_weights")
struct SendumpConverterTests {
    static let sendump = PhraseModel.defaultAcousticModel + "/sendump"

    func u32(_ data: Data, _ at: Int) -> Int {
        data[at..<at + 4].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
    }

    @Test func weightsAreTheSendumpsBytesInS3Layout() throws {
        let script = URL(fileURLWithPath: modelsDirectory).deletingLastPathComponent().appendingPathComponent(
            "Scripts/sendump-to-mixw"
        ).path
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let output = directory + "/mixture_weights"
        #expect(try run("python3", [script, Self.sendump, output], install: "python3") == 0)

        // sendump: header strings, then n_density, n_senone, then bytes [stream][density][senone].
        let dump = try Data(contentsOf: URL(fileURLWithPath: Self.sendump))
        var position = 0
        repeat {
            let length = u32(dump, position)
            position += 4 + length
            if length == 0 { break }
        } while true
        let (densities, senones) = (u32(dump, position), u32(dump, position + 4))
        let bytes = dump[(position + 8)...]
        let streams = bytes.count / (densities * senones)
        #expect(densities == 128 && senones == 5126 && streams == 3)

        // mixture_weights: "s3" header, byte-order mark, dims, float32 [senone][stream][density].
        let mixw = try Data(contentsOf: URL(fileURLWithPath: output))
        let header = try #require(mixw.range(of: Data("endhdr\n".utf8)))
        #expect(mixw.prefix(3) == Data("s3\n".utf8))
        var at = header.upperBound
        #expect(u32(mixw, at) == 0x1122_3344)
        at += 4
        let dims: [Int] = [u32(mixw, at), u32(mixw, at + 4), u32(mixw, at + 8)]
        #expect(dims == [senones, streams, densities])
        #expect(u32(mixw, at + 12) == senones * streams * densities)
        let floats = at + 16
        #expect(mixw.count == floats + 4 * senones * streams * densities)
        func weight(_ s: Int, _ f: Int, _ d: Int) -> Double {
            Double(Float(bitPattern: UInt32(u32(mixw, floats + 4 * ((s * streams + f) * densities + d)))))
        }
        let base = bytes.startIndex
        for s in [0, 1, 2_500, senones - 1] {
            for f in 0..<streams {
                let weights = (0..<densities).map { weight(s, f, $0) }
                #expect(abs(weights.reduce(0, +) - 1) < 1e-4, "senone \(s) stream \(f) sums to 1")
                // Ratios are the bytes': w[d] / w[0] = 1.0001^-((b[d] - b[0]) << 10).
                let b = (0..<densities).map { Int(bytes[base + (f * densities + $0) * senones + s]) }
                for d in 0..<densities {
                    let steps = -log(weights[d] / weights[0]) / log(1.0001) / 1024
                    #expect(abs(steps - Double(b[d] - b[0])) < 0.01, "senone \(s) stream \(f) density \(d)")
                }
            }
        }
    }

    @Test func aWrongFileIsRefused() throws {
        let script = URL(fileURLWithPath: modelsDirectory).deletingLastPathComponent().appendingPathComponent(
            "Scripts/sendump-to-mixw"
        ).path
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bad = directory + "/sendump"
        var data = Data()
        for text in ["BEGIN", "feature_count 3"] {
            var length = UInt32(text.utf8.count + 1).littleEndian
            data.append(Data(bytes: &length, count: 4))
            data.append(Data((text + "\0").utf8))
        }
        data.append(Data(count: 4))  // end of header
        var dims: [UInt32] = [4, 2]
        data.append(Data(bytes: &dims, count: 8))
        data.append(Data(count: 5))  // 5 bytes, not 3 x 4 x 2
        try data.write(to: URL(fileURLWithPath: bad))
        #expect(try run("python3", [script, bad, directory + "/out"], install: "python3") != 0)
        #expect(!FileManager.default.fileExists(atPath: directory + "/out"))
    }
}
