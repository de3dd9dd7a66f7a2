import Arrival
import Foundation
import Speech

/// One scripted utterance of the development set.
struct Item {
    enum Kind: String, CaseIterable {
        case phrase, nearMiss = "near-miss", heldOut = "near-miss held out", unrelated = "unrelated Korean",
            english = "English"
    }
    var kind: Kind
    var text: String
    /// What the walker meant (phrases only).
    var expected: ArrivalWords?
    var voice: String
    var audio: [Int16]  // 16 kHz mono, normalised to `DevSet.speechRMS`
}

enum DevSet {
    /// The 13 phrases, spoken with natural spaces.
    static let phrases = [
        "여기 아니야", "여기 아냐", "여기가 아니야", "여기가 아냐", "여기 아닌데", "입구 아니야", "입구가 아니야", "이 입구 아니야",
        "여기가 입구야", "여기 입구야", "여기 맞아", "입구 찾았어", "여기가 맞아",
    ]
    /// Korean that sounds close to a phrase but means neither.
    static let nearMisses = [
        "여기 앉아", "거기 아니야", "여기 어디야", "저기가 입구야", "여기가 출구야", "여기 아기야", "입구 찾아봐", "여기 많아",
    ]
    /// Near-misses none of whose words is a decoy in the model: a check that the decoys do
    /// not merely memorise `nearMisses`.
    static let heldOutNearMisses = ["여기 안이야", "입구 앞이야", "여기 가자", "여기 아파"]
    /// Everyday Korean and Pathfinder's own prompts (which must never trigger anything).
    static let unrelated = [
        "다른 입구로 안내할게", "입구까지 삼십 미터 남았어요", "두 시 방향으로 걸어가세요", "오늘 날씨가 정말 좋네요",
        "지하 일 층으로 내려가세요", "커피 한 잔 주세요", "버스 정류장이 어디에 있어요", "엘리베이터를 타고 올라가세요",
        "조금만 더 가면 돼요", "문이 잠겨 있어요", "여기서 잠깐 기다려 주세요", "친구를 만나러 가요",
        "왼쪽으로 돌아서 계속 가세요", "계단이 너무 많아요", "사람이 많아서 시끄러워요", "도착했는지 모르겠어요",
        "어디로 가야 할지 알려줘", "전화 좀 해줄래", "이 건물 이름이 뭐예요", "점심 먹으러 가자",
    ]
    static let voices = ["ko", "ko+m3", "ko+f2"]
    static let speeds = [130, 175, 220]
    /// Target speech level: -20 dBFS RMS, a close-talking microphone.
    static let speechRMS = 3_277.0

    static func make(englishDirectory: String) throws -> [Item] {
        var items: [Item] = []
        for voice in voices {
            for speed in speeds {
                let speaker = try Speaker(voice: voice, wordsPerMinute: speed)
                func spoken(_ text: String) throws -> [Int16] {
                    normalised(try speaker.synthesize(text).resampled(to: 16_000).samples)
                }
                let tag = "\(voice)@\(speed)"
                for phrase in phrases {
                    items.append(
                        Item(
                            kind: .phrase, text: phrase, expected: ArrivalWords.meaning(of: phrase),
                            voice: tag, audio: try spoken(phrase)))
                }
                for text in nearMisses {
                    items.append(
                        Item(kind: .nearMiss, text: text, expected: nil, voice: tag, audio: try spoken(text)))
                }
                for text in heldOutNearMisses {
                    items.append(
                        Item(kind: .heldOut, text: text, expected: nil, voice: tag, audio: try spoken(text)))
                }
                // Unrelated sentences are many already: one speed per voice keeps the run short.
                if speed == 175 {
                    for text in unrelated {
                        items.append(
                            Item(
                                kind: .unrelated, text: text, expected: nil, voice: tag,
                                audio: try spoken(text)))
                    }
                }
            }
        }
        let files = (try? FileManager.default.subpathsOfDirectory(atPath: englishDirectory)) ?? []
        for file in files.sorted() where file.hasSuffix(".wav") || file.hasSuffix(".raw") {
            let path = englishDirectory + "/" + file
            let samples: [Int16]
            if file.hasSuffix(".wav") {
                samples = try WAV.read16kMono(path: path).samples
            } else {
                // The test data's .raw files are headerless 16 kHz mono 16-bit little-endian.
                let data = try Data(contentsOf: URL(fileURLWithPath: path))
                samples = stride(from: 0, to: data.count - 1, by: 2).map {
                    Int16(bitPattern: UInt16(data[$0]) | UInt16(data[$0 + 1]) << 8)
                }
            }
            items.append(
                Item(kind: .english, text: file, expected: nil, voice: "recorded", audio: normalised(samples))
            )
        }
        guard items.contains(where: { $0.kind == .english }) else {
            throw EvalError(
                "no English test audio under \(englishDirectory) (apt-get install pocketsphinx-testdata)")
        }
        return items
    }

    /// Scales to `speechRMS`, measured over the louder half of 20 ms frames (speech, not pauses).
    static func normalised(_ samples: [Int16]) -> [Int16] {
        let level = activeRMS(samples)
        guard level > 0 else { return samples }
        let gain = speechRMS / level
        return samples.map { Int16(clamping: Int((Double($0) * gain).rounded())) }
    }

    static func activeRMS(_ samples: [Int16]) -> Double {
        let frames = stride(from: 0, to: samples.count, by: 320).map { start -> Double in
            let slice = samples[start..<min(start + 320, samples.count)]
            return slice.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(slice.count)
        }.sorted(by: >)
        let loud = frames.prefix(max(1, frames.count / 2))
        return (loud.reduce(0, +) / Double(loud.count)).squareRoot()
    }
}

struct EvalError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
