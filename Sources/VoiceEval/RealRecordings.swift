import Arrival
import Diagnostics
import Foundation
import Speech

/// Recordings of real people made with `pathfinder record` (see its help): `DIR/manifest.jsonl`,
/// one JSON object a line — `{"file": "…wav", "text": "여기 아니야", "speaker": "…",
/// "device": "…", "time": "…"}` — beside the WAV files. A line with `"problem"` (a take
/// `pathfinder record` kept after its last try though nothing was said in it, or it was cut
/// off or clipped: `TakeProblem`) does not hold its sentence and is left out, counted on
/// standard error. Read through `RecordingManifest`: a damaged line or a file named twice
/// stops the run naming its line.
enum RealRecordings {
    /// The speakers the acoustic model in `directory` was adapted on (its `speakers.txt`, one
    /// a line, written by `Scripts/adapt-model --real`); none when it has no such file.
    static func adaptedSpeakers(of directory: String) -> Set<String> {
        let text = (try? String(contentsOfFile: directory + "/speakers.txt", encoding: .utf8)) ?? ""
        return Set(TextDiagnostics.lines(of: text).filter { !$0.isEmpty }.map(String.init))
    }

    /// The recordings of every folder in `directories`, in turn (`--real A --real B`: one folder
    /// per person, as `pathfinder record --help` suggests). A folder named twice, under any
    /// path that leads to it, is bad input: its takes would count twice.
    static func load(_ directories: [String]) throws -> [Item] {
        var seen: [String: String] = [:]
        var items: [Item] = []
        for directory in directories {
            let resolved = URL(fileURLWithPath: directory).resolvingSymlinksInPath().standardizedFileURL.path
            if let first = seen[resolved] {
                throw BadInput("\(directory): the same folder as \(first), given twice")
            }
            seen[resolved] = directory
            items += try load(directory)
        }
        return items
    }

    /// The speakers of `items`, sorted.
    static func speakers(_ items: [Item]) -> [String] { Array(Set(items.map(\.voice))).sorted() }

    static func load(_ directory: String) throws -> [Item] {
        let manifest: RecordingManifest
        do { manifest = try RecordingManifest.read(directory: directory) } catch {
            throw BadInput("\(error)")
        }
        guard FileManager.default.fileExists(atPath: manifest.path) else {
            throw BadInput("\(manifest.path): not found (record with: pathfinder record --out \(directory))")
        }
        guard !manifest.entries.isEmpty else { throw BadInput("\(manifest.path): no recordings listed") }
        var items: [Item] = []
        var leftOut: [String: Int] = [:]
        for entry in manifest.entries {
            if let problem = entry.problem {
                leftOut[problem.rawValue, default: 0] += 1
                continue
            }
            let samples: [Int16]
            do { samples = try WAV.read16kMono(path: directory + "/" + entry.file).samples } catch {
                throw BadInput("\(manifest.path) line \(entry.line): \(error)")
            }
            // By what the sentence means (ArrivalWords, as typed answers are read), so an answer
            // written another way ("여기아니야", "여기가 입구야.") is scored as that answer, not
            // as a near-miss; anything meaning neither is a near-miss.
            let kind: Item.Kind =
                entry.text == RecordingScript.anIya
                ? .anIya : ArrivalWords.meaning(of: entry.text) != nil ? .phrase : .nearMiss
            items.append(
                Item(
                    kind: kind, text: entry.text,
                    expected: kind == .phrase ? ArrivalWords.meaning(of: entry.text) : nil,
                    voice: entry.speaker,
                    session: "\(entry.speaker) on \(entry.device ?? "an unnamed device")",
                    audio: Corpus.normalised(samples)))
        }
        guard !items.isEmpty else {
            let counts = leftOut.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
            let listed = manifest.entries.count
            throw BadInput(
                "\(manifest.path): \(listed) take\(listed == 1 ? "" : "s") listed, \(listed == 1 ? "" : "all ")marked with a problem (\(counts.joined(separator: ", "))): nothing to score"
            )
        }
        if !leftOut.isEmpty {
            let counts = leftOut.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
            let marked = leftOut.values.reduce(0, +)
            FileHandle.standardError.write(
                Data(
                    "\(manifest.path): \(marked) take\(marked == 1 ? "" : "s") marked with a problem left out (\(counts.joined(separator: ", ")))\n"
                        .utf8))
        }
        return items
    }
}
