import Diagnostics
import Foundation

/// What `pathfinder record` asks a person to say: the 13 answers (`ArrivalWords`' sentences,
/// spoken with their natural spaces), "여기 안이야" (it sounds like "여기 아니야"; the
/// benchmark gives it its own line) and near-misses that mean neither.
public enum RecordingScript {
    public static let answers = [
        "여기 아니야", "여기 아냐", "여기가 아니야", "여기가 아냐", "여기 아닌데", "입구 아니야", "입구가 아니야", "이 입구 아니야",
        "여기가 입구야", "여기 입구야", "여기 맞아", "입구 찾았어", "여기가 맞아",
    ]
    public static let anIya = "여기 안이야"
    public static let nearMisses = ["거기 아니야", "저기가 입구야", "여기 앉아", "입구 앞이야", "여기 가자", "여기 어디야", "이 길 아니야"]
    /// In the order a round asks for them.
    public static let sentences = answers + [anIya] + nearMisses
}

/// `DIR/manifest.jsonl` beside a folder of recordings: one JSON object a line,
/// `{"file": "…wav", "text": "여기 아니야", "speaker": "…", "device": "…", "time": "…"}`, and
/// `"problem"` on a take kept after its last try (``TakeProblem``). `pathfinder record` appends
/// to it; `Scripts/voice-eval --real` and `Scripts/adapt-model --real` read it. Both read it
/// through ``read(directory:)``, which refuses a damaged manifest naming its line, so a
/// recorder never appends to one the benchmark would then refuse.
public struct RecordingManifest: Sendable {
    public struct Entry: Sendable, Equatable {
        /// 1-based line of the manifest.
        public var line: Int
        /// A plain file name in the manifest's folder.
        public var file: String
        /// What was said: one of ``RecordingScript/sentences`` when `pathfinder record` wrote
        /// the line, any sentence when a person did.
        public var text: String
        public var speaker: String
        public var device: String?
        public var problem: TakeProblem?
    }

    public static let fileName = "manifest.jsonl"

    public let path: String
    public let entries: [Entry]
    /// The file's last byte is not a newline (a line a reader wrote by hand, or an append cut
    /// short): an appender starts with one.
    public let lacksFinalNewline: Bool

    /// Reads `directory`'s manifest; none there is an empty one.
    /// - Throws: ``SpeechError/badAudio(path:reason:)`` naming the line for a line that is not
    ///   a JSON object with the fields above, a file named twice or outside the folder, or
    ///   text that is not UTF-8;
    ///   ``SpeechError/io(path:reason:)`` when it exists and cannot be read.
    public static func read(directory: String) throws(SpeechError) -> RecordingManifest {
        let path = directory + "/" + fileName
        guard FileManager.default.fileExists(atPath: path) else {
            return RecordingManifest(path: path, entries: [], lacksFinalNewline: false)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .io(path: path, reason: "cannot be read")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw .badAudio(path: path, reason: "not UTF-8 text")
        }
        var entries: [Entry] = []
        var lineOfFile: [String: Int] = [:]
        for (index, line) in TextDiagnostics.lines(of: text).enumerated() {
            if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            func bad(_ reason: String) -> SpeechError {
                .badAudio(path: path, reason: "line \(index + 1): \(reason)")
            }
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            else {
                throw bad("not a JSON object")
            }
            func field(_ key: String) throws(SpeechError) -> String {
                guard let value = object[key] as? String, !value.isEmpty else {
                    throw bad("\"\(key)\" missing or not a non-empty string")
                }
                return value
            }
            let file = try field("file"), sentence = try field("text"), speaker = try field("speaker")
            guard file.hasSuffix(".wav"), !file.contains("/"), !file.hasPrefix(".") else {
                throw bad("\"file\" \"\(file)\" is not the name of a .wav file in this folder")
            }
            if let first = lineOfFile[file] { throw bad("\"\(file)\" is listed already, on line \(first)") }
            lineOfFile[file] = index + 1
            var problem: TakeProblem?
            if object["problem"] != nil {
                let name = try field("problem")
                guard let known = TakeProblem(rawValue: name) else {
                    throw bad(
                        "\"problem\" \"\(name)\" is not one of "
                            + TakeProblem.allCases.map(\.rawValue).joined(separator: ", "))
                }
                problem = known
            }
            entries.append(
                Entry(
                    line: index + 1, file: file, text: sentence, speaker: speaker,
                    device: object["device"] as? String, problem: problem))
        }
        return RecordingManifest(
            path: path, entries: entries, lacksFinalNewline: data.last.map { $0 != 0x0A } ?? false)
    }
}
