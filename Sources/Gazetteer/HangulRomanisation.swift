/// The Revised Romanisation of Korean, syllable by syllable, without the sound changes
/// between syllables: enough to tell which of a place's Hangul names is nearest its Latin
/// display name (서울 "seoul" for Seoul, not 경성 "gyeongseong").
enum HangulRomanisation {
    /// Initial consonants, medial vowels and final consonants in Unicode's syllable order
    /// (U+AC00 + (initial × 21 + vowel) × 28 + final).
    static let initials = [
        "g", "kk", "n", "d", "tt", "r", "m", "b", "pp", "s", "ss", "", "j", "jj", "ch", "k", "t", "p", "h",
    ]
    static let vowels = [
        "a", "ae", "ya", "yae", "eo", "e", "yeo", "ye", "o", "wa", "wae", "oe", "yo", "u", "wo", "we", "wi",
        "yu", "eu", "ui", "i",
    ]
    static let finals = [
        "", "k", "k", "k", "n", "n", "n", "t", "l", "k", "m", "l", "l", "l", "p", "l", "m", "p", "p", "t",
        "t",
        "ng", "t", "t", "k", "t", "p", "t",
    ]

    /// A Hangul syllable's initial, vowel and final, as indexes into ``initials``, ``vowels``
    /// and ``finals``; `nil` for any other scalar.
    static func parts(of scalar: Unicode.Scalar) -> (initial: Int, vowel: Int, final: Int)? {
        guard (0xAC00...0xD7A3).contains(scalar.value) else { return nil }
        let index = Int(scalar.value - 0xAC00)
        return (index / 588, index % 588 / 28, index % 28)
    }

    /// `text` with every Hangul syllable (U+AC00…U+D7A3) romanised; other characters as they are.
    static func revised(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            guard let (initial, vowel, final) = parts(of: scalar) else {
                out.unicodeScalars.append(scalar)
                continue
            }
            out += initials[initial] + vowels[vowel] + finals[final]
        }
        return out
    }
}
