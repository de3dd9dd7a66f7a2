import Foundation

/// The search form of a name: lower case, diacritics removed, punctuation as spaces,
/// full-width ASCII as ASCII.
///
/// Here, beside the SQLite wrapper, because both FTS5 users (the gazetteer and the door
/// index) must fold alike.
///
/// Matches what FTS5's `unicode61 remove_diacritics 2` tokenizer does closely enough that
/// "exact" and "prefix" can be judged on the folded text. Hangul syllables survive (they
/// are decomposed and composed again).
package enum Fold {
    /// Letters without a canonical decomposition that the tokenizer still folds.
    private static let extra: [Character: String] = [
        "ø": "o", "ł": "l", "đ": "d", "ð": "d", "þ": "th", "æ": "ae", "œ": "oe", "ı": "i", "ß": "ss",
    ]

    /// - Parameter narrowing: full-width ASCII as ASCII (``narrow(_:)``); `false` folds as
    ///   door indexes made before it were (their search text kept "１１０" as it was).
    package static func fold(_ text: String, narrowing: Bool = true) -> String {
        let decomposed = text.lowercased().decomposedStringWithCanonicalMapping
        var scalars = String.UnicodeScalarView()
        for wide in decomposed.unicodeScalars {
            let scalar = narrowing ? narrow(wide) : wide
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark:
                // Hangul vowel and final jamo are letters, so only real diacritics go.
                continue
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                .decimalNumber, .letterNumber, .otherNumber:
                scalars.append(scalar)
            default:
                scalars.append(" ")
            }
        }
        var out = ""
        for ch in String(scalars).precomposedStringWithCanonicalMapping {
            if let replacement = extra[ch] { out += replacement } else { out.append(ch) }
        }
        return out.split(separator: " ").joined(separator: " ")
    }

    /// `text` with full-width ASCII (U+FF01…U+FF5E: "１１０", "Ｓ", "－", "，") and the
    /// ideographic space (U+3000) as ASCII, as Korean and Japanese IMEs and web pages write
    /// them: "세종대로 １１０" is "세종대로 110". Only these: NFKC would also join compatibility jamo
    /// ("ㄱㅏ") into a syllable and rewrite other symbols.
    package static func narrow(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { narrow($0) != $0 }) else { return text }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: text.unicodeScalars.map(narrow))
        return String(scalars)
    }

    /// One scalar of ``narrow(_:)``.
    private static func narrow(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        switch scalar.value {
        case 0xFF01...0xFF5E: Unicode.Scalar(scalar.value - 0xFEE0)!
        case 0x3000: " "
        default: scalar
        }
    }

    /// Whether the text has a Hangul syllable (U+AC00…U+D7A3).
    package static func isHangul(_ text: String) -> Bool {
        text.unicodeScalars.contains { (0xAC00...0xD7A3).contains($0.value) }
    }

    /// The folded name as the single token the `whole` column holds.
    package static func wholeToken(_ folded: String) -> String {
        String(decoding: folded.utf8.map { $0 == UInt8(ascii: " ") ? UInt8(ascii: "_") : $0 }, as: UTF8.self)
    }

    /// MATCH expressions for the three tiers of a search: the whole name equal to the
    /// query and starting with it (for `name_whole`), every word a prefix of some word
    /// (for `name_fts`).
    package static func matchTiers(_ query: String) -> (exact: String, startsWith: String, words: String)? {
        guard let words = matchExpression(query) else { return nil }
        let whole = wholeToken(fold(query))
        return ("\"\(whole)\"", "\"\(whole)\"*", words)
    }

    /// An FTS5 MATCH expression: each folded token quoted and made a prefix, ANDed;
    /// `nil` when nothing searchable is left.
    package static func matchExpression(_ query: String) -> String? {
        let tokens = fold(query).split(separator: " ")
        guard !tokens.isEmpty else { return nil }
        return tokens.map { "\"\($0)\"*" }.joined(separator: " ")
    }
}
