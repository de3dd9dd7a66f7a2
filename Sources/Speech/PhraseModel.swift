import Diagnostics
import Foundation

/// The Korean phrase model on disk: en-us acoustic model, the phrase dictionary, the
/// grammar and the decoder settings (`models/` in the repository; see models/README.md).
public struct PhraseModel: Sendable, Hashable {
    /// Debian's en-us acoustic model (package `pocketsphinx-en-us`).
    public static let defaultAcousticModel = "/usr/share/pocketsphinx/model/en-us/en-us"
    /// The folder inside the models directory holding the noise-adapted acoustic model.
    public static let adaptedAcousticModelName = "en-us-adapted"
    /// The environment variable naming the models directory.
    public static let environmentVariable = "PATHFINDER_MODELS"

    /// Directory of the acoustic model (`-hmm`).
    public var acousticModel: String
    /// Pronunciation dictionary (`-dict`): phrases as single tokens plus syllable fillers.
    public var dictionary: String
    /// Finite-state grammar (`-fsg`).
    public var grammar: String
    /// Decoder settings (`-flag value` pairs) from `pathfinder.args`, applied after the defaults.
    public var settings: [(String, String)]
    /// Confidence thresholds from `operating-point.json` (chosen on the development split).
    public var operatingPoint: OperatingPoint
    /// The noise-adapted acoustic model's folder ``load(directory:)`` looked for and did not
    /// find (no `mdef` in it), so ``acousticModel`` is Debian's stock one; `nil` when the
    /// adapted model is used, or for a model made by hand.
    public var missingAdaptedModel: String?

    /// What a program listening on this model says when it falls back to Debian's stock
    /// acoustic model: which folder is missing, what that costs and how to restore it. The
    /// fallback itself stays (a model is better than none), but unsaid it passed for the product's.
    public var stockModelWarning: String? {
        guard let missing = missingAdaptedModel, acousticModel == Self.defaultAcousticModel else {
            return nil
        }
        let what =
            FileManager.default.fileExists(atPath: missing)
            ? "\(missing) has no mdef" : "\(missing) is missing"
        return
            "\(what): listening with Debian's stock en-us acoustic model (\(Self.defaultAcousticModel)), which fails four of the five model checks (docs/speech.md: Checking a model before it ships); restore it (git checkout -- models/\(Self.adaptedAcousticModelName) in a checkout, Scripts/install again for an install) or make one with Scripts/adapt-model"
    }

    public init(
        acousticModel: String = PhraseModel.defaultAcousticModel, dictionary: String, grammar: String,
        settings: [(String, String)] = [], operatingPoint: OperatingPoint = .placeholder
    ) {
        self.acousticModel = acousticModel
        self.dictionary = dictionary
        self.grammar = grammar
        self.settings = settings
        self.operatingPoint = operatingPoint
    }

    public static func == (a: PhraseModel, b: PhraseModel) -> Bool {
        a.acousticModel == b.acousticModel && a.dictionary == b.dictionary && a.grammar == b.grammar
            && a.settings.map { [$0.0, $0.1] } == b.settings.map { [$0.0, $0.1] }
            && a.operatingPoint == b.operatingPoint
    }

    /// Sets `flag` to `value`: in the place of the model's own setting of it (every other
    /// copy removed, so no later line overrides it), or after its settings when it has none.
    public mutating func set(_ flag: String, to value: String) {
        guard let index = settings.firstIndex(where: { $0.0 == flag }) else {
            settings.append((flag, value))
            return
        }
        settings[index].1 = value
        let rest = settings[(index + 1)...].filter { $0.0 != flag }
        settings.replaceSubrange((index + 1)..., with: rest)
    }

    /// A `pathfinder.args` line's `-flag value` (comments already cut), or `nil` when it is
    /// anything else.
    public static func setting(from line: String) -> (flag: String, value: String)? {
        let fields = line.split(whereSeparator: \.isWhitespace).map(String.init)
        guard fields.count == 2, fields[0].hasPrefix("-") else { return nil }
        return (fields[0], fields[1])
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(dictionary)
        hasher.combine(grammar)
    }

    /// The running program's path (`/proc/self/exe` on Linux, so a bare name on `$PATH` works).
    static func executablePath() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine
            .arguments.first ?? ""
    }

    /// The model in `directory` (`pathfinder.dict`, `pathfinder.fsg`, optional `pathfinder.args`
    /// and `operating-point.json`). The acoustic model is `directory/en-us-adapted` when it
    /// holds one (the noise-adapted model `Scripts/adapt-model` writes), else Debian's en-us
    /// (``missingAdaptedModel`` then names the folder, ``stockModelWarning`` says so).
    /// - Throws: `SpeechError.model` naming the missing file, the bad settings line or the
    ///   bad operating-point field.
    public static func load(directory: String) throws(SpeechError) -> PhraseModel {
        let dictionary = directory + "/pathfinder.dict"
        let grammar = directory + "/pathfinder.fsg"
        for file in [dictionary, grammar] where !FileManager.default.isReadableFile(atPath: file) {
            throw .model("\(file) not found or not readable")
        }
        var settings: [(String, String)] = []
        let argsPath = directory + "/pathfinder.args"
        if let text = try? String(contentsOfFile: argsPath, encoding: .utf8) {
            for (number, raw) in TextDiagnostics.lines(of: text).enumerated() {
                let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
                if line.allSatisfy(\.isWhitespace) { continue }
                guard let setting = setting(from: String(line)) else {
                    throw .model("\(argsPath) line \(number + 1): expected \"-flag value\", got \"\(raw)\"")
                }
                settings.append(setting)
            }
        }
        let adapted = directory + "/" + adaptedAcousticModelName
        let hasAdapted = FileManager.default.fileExists(atPath: adapted + "/mdef")
        let pointPath = directory + "/operating-point.json"
        let operatingPoint =
            FileManager.default.fileExists(atPath: pointPath)
            ? try OperatingPoint.load(path: pointPath) : .placeholder
        var model = PhraseModel(
            acousticModel: hasAdapted ? adapted : defaultAcousticModel, dictionary: dictionary,
            grammar: grammar,
            settings: settings, operatingPoint: operatingPoint)
        model.missingAdaptedModel = hasAdapted ? nil : adapted
        return model
    }

    /// Finds the models directory: `explicit` if given, else `$PATHFINDER_MODELS`, else
    /// `$PATHFINDER_DATA/models`, else `../share/pathfinder/models` beside the executable (an
    /// install), else the first `models/` holding `pathfinder.fsg` in the executable's
    /// directory or one of its parents (so `.build/release/pathfinder` finds the repository's `models/`). The
    /// current directory is deliberately not searched: a run elsewhere must not pick up a
    /// stray tree by accident.
    /// - Throws: `SpeechError.model` listing where it looked.
    public static func locate(
        explicit: String? = nil,
        environment: [String: String]? = nil,
        executable: String? = nil
    ) throws(SpeechError) -> PhraseModel {
        let environment = environment ?? ProcessInfo.processInfo.environment
        let executable = executable ?? executablePath()
        if let explicit { return try load(directory: explicit) }
        if let fromEnvironment = environment[environmentVariable], !fromEnvironment.isEmpty {
            return try load(directory: fromEnvironment)
        }
        // Pathfinder's data directory, found as every other default data path is (the CLI's
        // `Artifacts`): $PATHFINDER_DATA, else ../share/pathfinder beside the executable
        // (Scripts/install), else the checkout above it.
        if let data = environment["PATHFINDER_DATA"], !data.isEmpty {
            return try load(directory: data + "/models")
        }
        let resolved = URL(fileURLWithPath: executable).resolvingSymlinksInPath().standardizedFileURL
        let installed = resolved.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("share/pathfinder/models").path
        if FileManager.default.fileExists(atPath: installed + "/pathfinder.fsg") {
            return try load(directory: installed)
        }
        var tried: [String] = [installed]
        var directory = resolved.deletingLastPathComponent()
        while true {
            let candidate = directory.appendingPathComponent("models").path
            tried.append(candidate)
            if FileManager.default.fileExists(atPath: candidate + "/pathfinder.fsg") {
                return try load(directory: candidate)
            }
            let parent = directory.deletingLastPathComponent()
            if parent.path == directory.path { break }
            directory = parent
        }
        throw .model(
            "no models/pathfinder.fsg above \(resolved.path); set \(environmentVariable) or pass a models directory (looked in \(tried.prefix(3).joined(separator: ", "))…)"
        )
    }
}
