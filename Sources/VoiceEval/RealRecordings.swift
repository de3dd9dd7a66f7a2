import Arrival
import Foundation
import Speech

/// Recordings of real people made with `pathfinder record` (see its help): `DIR/manifest.jsonl`,
/// one JSON object a line — `{"file": "…wav", "text": "여기 아니야", "speaker": "…",
/// "device": "…", "time": "…"}` — beside the WAV files. A line with `"problem"` (a take
/// `pathfinder record` kept after its last try though nothing was said in it, or it was cut
/// off or clipped: `TakeProblem`) does not hold its sentence and is left out, counted on
/// standard error.
enum RealRecordings {
    /// The speakers the acoustic model in `directory` was adapted on (its `speakers.txt`, one
    /// a line, written by `Scripts/adapt-model --real`); none when it has no such file.
    static func adaptedSpeakers(of directory: String) -> Set<String> {
        let text = (try? String(contentsOfFile: directory + "/speakers.txt", encoding: .utf8)) ?? ""
        return Set(text.split(separator: "\n").map(String.init))
    }

    static func load(_ directory: String) throws -> [Item] {
        let manifest = directory + "/manifest.jsonl"
        guard let text = try? String(contentsOfFile: manifest, encoding: .utf8) else {
            throw BadInput("\(manifest): not readable (record with: pathfinder record --out \(directory))")
        }
        var items: [Item] = []
        var leftOut: [String: Int] = [:]
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let location = "\(manifest) line \(index + 1)"
            if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            else {
                throw BadInput("\(location): not a JSON object")
            }
            func field(_ key: String) throws -> String {
                guard let value = object[key] as? String, !value.isEmpty else {
                    throw BadInput("\(location): \"\(key)\" missing or not a non-empty string")
                }
                return value
            }
            let file = try field("file"), sentence = try field("text"), speaker = try field("speaker")
            if object["problem"] != nil {
                let problem = try field("problem")
                guard TakeProblem(rawValue: problem) != nil else {
                    throw BadInput(
                        "\(location): \"problem\" \"\(problem)\" is not one of "
                            + TakeProblem.allCases.map(\.rawValue).joined(separator: ", "))
                }
                leftOut[problem, default: 0] += 1
                continue
            }
            let samples: [Int16]
            do { samples = try WAV.read16kMono(path: directory + "/" + file).samples } catch {
                throw BadInput("\(location): \(error)")
            }
            let kind: Item.Kind =
                Corpus.phrases.contains(sentence)
                ? .phrase : sentence == Corpus.anIya ? .anIya : .nearMiss
            items.append(
                Item(
                    kind: kind, text: sentence,
                    expected: kind == .phrase ? ArrivalWords.meaning(of: sentence) : nil,
                    voice: speaker,
                    session: "\(speaker) on \(object["device"] as? String ?? "an unnamed device")",
                    audio: Corpus.normalised(samples)))
        }
        if !leftOut.isEmpty {
            let counts = leftOut.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
            FileHandle.standardError.write(
                Data(
                    "\(manifest): \(leftOut.values.reduce(0, +)) takes marked with a problem left out (\(counts.joined(separator: ", ")))\n"
                        .utf8))
        }
        guard !items.isEmpty else { throw BadInput("\(manifest): no recordings listed") }
        return items
    }
}
