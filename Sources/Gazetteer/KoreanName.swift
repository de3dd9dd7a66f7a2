import Foundation
import SQLite

/// A place's Korean name, for saying where the walker is.
///
/// The gazetteer keeps the first Hangul name GeoNames lists for a place, without a language
/// tag or a mark for historic names, so it is sometimes not the name in use: Seoul's is
/// 경성 (its colonial-era name), Istanbul's 비잔티움, Saint Petersburg's 레닌그라드,
/// Cascavel's 방울뱀 ("rattlesnake"). A Hangul name is said only when it sounds like the
/// place's own name (``reads(_:as:)``), so the walker never hears an old or unrelated one.
package enum KoreanName {
    /// A Hangul name is the place's name when at least this share of its consonants (as
    /// ``consonants(ofHangul:)`` groups them) are the display name's, in order: a
    /// transliteration keeps most (헬싱키 and Helsinki, all; 멕시코 시 and Mexico City, all),
    /// another name keeps few (경성 and Seoul: 1 of 6; 비잔티움 and Istanbul: 2 of 5).
    package static let minimumShared = 0.6

    /// Whether `hangul` is a Korean rendering of `latin` (a display name in Latin letters):
    /// their consonants, grouped as Korean hears them, mostly agree in order.
    package static func reads(_ hangul: String, as latin: String) -> Bool {
        let korean = consonants(ofHangul: hangul)
        guard !korean.isEmpty else { return false }  // vowels only: nothing to compare
        let shared = commonSubsequence(korean, consonants(ofLatin: latin))
        return Double(shared) >= minimumShared * Double(korean.count)
    }

    /// Whether `text` is written in Hangul syllables only (U+AC00…U+D7A3, as
    /// ``HangulRomanisation/parts(of:)`` reads them) and has one: "서울" is; "", "서울 시" (a
    /// space), "Seoul시" and conjoining jamo (decomposed Hangul, U+1100…) are not.
    package static func isHangulOnly(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy { HangulRomanisation.parts(of: $0) != nil }
    }

    /// The consonant classes of Hangul syllables, romanised: K (ㄱㄲㅋ), T, P, S (ㅅㅆㅈㅉㅊ), L, M,
    /// N (ㄴ, final ㅇ); ㅇ and ㅎ count as none. A trailing " 시" (city) is not part of the name.
    static func consonants(ofHangul text: String) -> [Character] {
        var text = Substring(text)
        if text.hasSuffix(" 시") { text = text.dropLast(2) }
        var out: [Character] = []
        for scalar in text.unicodeScalars {
            guard let parts = HangulRomanisation.parts(of: scalar) else { continue }
            add(initials[parts.initial], to: &out)
            add(finals[parts.final], to: &out)
        }
        return out
    }

    /// The consonant classes of a Latin name, with the spellings Korean renders as one sound
    /// (sh, ch, zh, th, ph; f as p, v as b, z and j as s; w, y and h silent).
    static func consonants(ofLatin text: String) -> [Character] {
        var letters = String(
            String.UnicodeScalarView(
                text.lowercased().decomposedStringWithCanonicalMapping.unicodeScalars.filter {
                    $0.isASCII && $0.properties.isAlphabetic
                }))
        for (spelling, sound) in latinSounds {
            letters = letters.replacingOccurrences(of: spelling, with: sound)
        }
        var out: [Character] = []
        for letter in letters { add(latinClasses[letter], to: &out) }
        return out
    }

    private static func add(_ class: Character?, to out: inout [Character]) {
        guard let `class`, out.last != `class` else { return }
        out.append(`class`)
    }

    /// Initial consonants of Hangul syllables, in Unicode order.
    private static let initials: [Character?] = [
        "K", "K", "N", "T", "T", "L", "M", "P", "P", "S", "S", nil, "S", "S", "S", "K", "T", "P", nil,
    ]
    /// Final consonants, in Unicode order (the first: none).
    private static let finals: [Character?] = [
        nil, "K", "K", "K", "N", "N", "N", "T", "L", "K", "M", "L", "L", "L", "P", "L", "M", "P", "P", "T",
        "T", "N", "T", "T", "K", "T", "P", "T",
    ]
    /// Spellings read as one sound, replaced before the letters are classed.
    private static let latinSounds = [
        ("zh", "j"), ("ch", "j"), ("sh", "s"), ("th", "t"), ("ph", "p"), ("kh", "k"), ("gh", "g"),
        ("ng", "n"), ("ck", "k"), ("ce", "se"), ("ci", "si"), ("x", "s"), ("q", "j"),
    ]
    private static let latinClasses: [Character: Character] = [
        "g": "K", "k": "K", "c": "K", "b": "P", "p": "P", "f": "P", "v": "P", "d": "T", "t": "T", "s": "S",
        "z": "S", "j": "S", "l": "L", "r": "L", "m": "M", "n": "N",
    ]

    /// The length of the longest common subsequence of `a` and `b`.
    static func commonSubsequence(_ a: [Character], _ b: [Character]) -> Int {
        var previous = [Int](repeating: 0, count: b.count + 1)
        for x in a {
            var row = [0]
            for (j, y) in b.enumerated() {
                row.append(x == y ? previous[j] + 1 : max(previous[j + 1], row[j]))
            }
            previous = row
        }
        return previous[b.count]
    }
}

extension GazetteerDatabase {
    /// The Hangul name stored for a place (`kind`: "city", "region" or "country"; `key`: its
    /// stable ID, "1835848", "KR.11", "KR") when it reads as `display` (``KoreanName``), else nil.
    package func koreanName(kind: String, key: String, display: String) throws -> String? {
        let s = try connection.cached(
            "SELECT n.name FROM place p JOIN name n ON n.place = p.id WHERE p.kind = ? AND p.key = ? AND n.hangul = 1 ORDER BY n.id LIMIT 1"
        )
        try s.bind([.text(kind), .text(key)])
        guard try s.step(), let name = s.text(0) else { return nil }
        return KoreanName.reads(name, as: display) ? name : nil
    }
}
