import Foundation
import Testing

@testable import Speech

/// Decoders in one process do not disturb each other (issue #14 item 12: the demo's
/// "여기가 입구야" was heard as "[여기가] [입구야]" while other tests decoded beside it).
@Suite struct ConcurrentDecodeTests {
    static let answers = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("artifacts/demo/answers.wav").path

    /// The demo's answers, decoded by 4 concurrent tasks for 20 rounds: every decode gives
    /// the same bytes as a decode alone.
    @Test func fourConcurrentDecoders_twentyRounds_allIdentical() async throws {
        let model = try phraseModel()
        let path = Self.answers
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let alone = try encoder.encode(try Listener.decode(wav: path, model: model))
        #expect(String(decoding: alone, as: UTF8.self).contains("여기가 입구야"))
        for round in 0..<20 {
            let results = try await withThrowingTaskGroup(of: Data.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        let encoder = JSONEncoder()
                        encoder.outputFormatting = [.sortedKeys]
                        return try encoder.encode(try Listener.decode(wav: path, model: model))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for result in results {
                #expect(
                    result == alone,
                    "round \(round): \(String(decoding: result, as: UTF8.self)) ≠ \(String(decoding: alone, as: UTF8.self))"
                )
            }
        }
    }
}

@Suite struct DitherTests {
    /// The decoder's own dither draws the numbers sphinxbase's generator would (MT19937's
    /// published first outputs), never wraps a full-scale sample, and comes from the model's
    /// `-dither`/`-seed`, which PocketSphinx itself no longer sees.
    @Test func sameGeneratorAsSphinxbase_saturatesAtFullScale() throws {
        var reference = Dither(seed: 5489)
        #expect(reference.next() == 3_499_211_612)
        var one = Dither(seed: 1)
        #expect(one.next() == 1_791_095_845)
        var loud = [Int16](repeating: .max, count: 1_000)
        var dither = Dither(seed: 1)
        dither.apply(to: &loud)
        #expect(loud.allSatisfy { $0 == .max })
        var quiet = [Int16](repeating: 0, count: 4_000)
        dither.apply(to: &quiet)
        #expect(quiet.allSatisfy { $0 == 0 || $0 == 1 })
        #expect((800...1_200).contains(quiet.filter { $0 == 1 }.count))

        let split = Decoder.splitDither([("-dither", "yes"), ("-seed", "7"), ("-vad_threshold", "2.0")])
        #expect(split.seed == 7)
        #expect(split.settings.map { "\($0.0) \($0.1)" } == ["-vad_threshold 2.0", "-dither no"])
        #expect(Decoder.splitDither([("-seed", "7")]).seed == nil)
    }
}
