import Foundation
import SQLite

/// What the door index's search table holds for a building, and how queries are folded to
/// match it: the gazetteer's `Fold` (case, diacritics, hyphens, punctuation), then a space
/// between Hangul and digits so "세종대로110" and "세종대로 110" are the same words.
enum SearchText {
    /// Between the alternatives of one column (a building's name and its shop's name);
    /// the tokenizer ignores it, the ranking splits on it.
    static let separator = " ; "

    /// `Fold.fold`, then Hangul and digits apart.
    static func normalize(_ text: String) -> String {
        if let ascii = asciiFold(text) { return ascii }
        let folded = Fold.fold(text)
        guard Fold.isHangul(folded) else { return folded }
        var out = ""
        var previous: Character?
        for ch in folded {
            if let p = previous, (isHangul(p) && ch.isNumber) || (p.isNumber && isHangul(ch)) { out += " " }
            out.append(ch)
            previous = ch
        }
        return out
    }

    /// `Fold.fold` of plain ASCII, without Foundation's Unicode normalisation (most street
    /// names and numbers, a million times in a country's import): letters lower-cased,
    /// letters and digits kept, anything else a space, runs of spaces one. Nil for other text.
    static func asciiFold(_ text: String) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        var space = false
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                if space && !out.isEmpty { out.append(UInt8(ascii: " ")) }
                space = false
                out.append(byte | (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? 0x20 : 0))
            case 0..<0x80:
                space = true
            default:
                return nil
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func isHangul(_ ch: Character) -> Bool {
        ch.unicodeScalars.first.map { (0xAC00...0xD7A3).contains($0.value) } ?? false
    }

    /// Name tags that find a building (or a shop in it): `name`, its languages and variants.
    static func isNameKey(_ key: String) -> Bool {
        key == "name" || key.hasPrefix("name:") || key == "alt_name" || key == "official_name"
            || key == "short_name" || key == "loc_name" || key == "old_name" || key == "addr:housename"
    }

    /// The folded, distinct names in `tags`, joined by ``separator``.
    static func names(_ tags: [String: String]) -> String {
        var seen = Set<String>()
        var out: [String] = []
        for key in tags.keys.sorted() where isNameKey(key) {
            let folded = normalize(tags[key]!)
            if !folded.isEmpty && seen.insert(folded).inserted { out.append(folded) }
        }
        return out.joined(separator: separator)
    }

    /// The folded addresses in `tags`: street and house number in both orders, the same for
    /// `addr:place`, and `addr:full`.
    static func addresses(_ tags: [String: String]) -> String {
        var out: [String] = []
        let number = tags["addr:housenumber"].map(normalize) ?? ""
        for key in ["addr:street", "addr:place"] {
            guard let street = tags[key].map(normalize), !street.isEmpty else { continue }
            if number.isEmpty {
                out.append(street)
            } else {
                out += ["\(street) \(number)", "\(number) \(street)"]
            }
        }
        if let full = tags["addr:full"].map(normalize), !full.isEmpty { out.append(full) }
        return out.joined(separator: separator)
    }

    /// Every alternative of `names` and `addresses` as one token (spaces as `_`), for the
    /// `building_whole` table.
    static func wholeTokens(_ names: String, _ addresses: String) -> String {
        (names.components(separatedBy: separator) + addresses.components(separatedBy: separator))
            .filter { !$0.isEmpty }.map(Fold.wholeToken).joined(separator: " ")
    }

    /// A node that names a place inside a building: a named shop, office, amenity, craft,
    /// tourism or healthcare node.
    static func isPlaceInside(_ tags: [String: String]) -> Bool {
        guard tags["name"] != nil else { return false }
        return ["shop", "office", "amenity", "craft", "tourism", "healthcare"].contains { tags[$0] != nil }
    }

    /// The osmium `tags-filter` expressions for those nodes.
    static let placeFilters = ["n/shop", "n/office", "n/amenity", "n/craft", "n/tourism", "n/healthcare"]
}
