import Foundation
import SQLite

/// What the door index's search table holds for a building, and how queries are folded to
/// match it: the gazetteer's `Fold` (case, diacritics, hyphens, punctuation, full-width
/// ASCII), then a space
/// between Hangul and digits so "세종대로110" and "세종대로 110" are the same words.
enum SearchText {
    /// Between the alternatives of one column (a building's name and its shop's name);
    /// the tokenizer ignores it, the ranking splits on it.
    static let separator = " ; "

    /// The non-empty `parts` as one column's alternatives, joined by ``separator``.
    static func alternatives(_ parts: [String]) -> String {
        parts.filter { !$0.isEmpty }.joined(separator: separator)
    }

    /// Between a building's own names (its name tags, its doors' `name`/`ref`) and those of
    /// the places inside it (shops, offices): the tokenizer ignores it, and folded text never
    /// holds it (``Fold`` keeps letters and digits only), so a match is told own or inside by
    /// the side it is on. An index made before it has none: all its names count as own.
    static let placesSeparator = " | "

    /// A building's `names` column: its own names, then, after ``placesSeparator``, the words
    /// of the places inside it (each ``names(_:)``).
    static func names(own: String, places: [String]) -> String {
        let inside = alternatives(places)
        return inside.isEmpty ? own : own + placesSeparator + inside
    }

    /// A `names` column's alternatives: the building's own, and those of the places inside.
    static func alternatives(ofNames names: String) -> (own: [String], inside: [String]) {
        let sides = names.components(separatedBy: placesSeparator)
        func split(_ text: String) -> [String] {
            text.components(separatedBy: separator).filter { !$0.isEmpty }
        }
        return (split(sides[0]), sides.dropFirst().flatMap(split))
    }

    /// `Fold.fold`, then Hangul and digits apart.
    static func normalize(_ text: String) -> String { normalize(text, narrowing: true) }

    /// ``normalize(_:)``; `narrowing` is `Fold.fold`'s: `false` for an index made before
    /// full-width ASCII was folded (``DoorIndexSchema/narrowFold``).
    static func normalize(_ text: String, narrowing: Bool) -> String {
        if let quick = quickFold(text) { return quick }
        let folded = Fold.fold(text, narrowing: narrowing)
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

    /// ``normalize(_:)`` of text made of plain ASCII and Hangul syllables (most street names
    /// and numbers, a million times in a country's import), without Foundation's Unicode
    /// normalisation: ASCII letters lower-cased, letters, digits and syllables kept, anything
    /// else a space, runs of spaces one, a space between a syllable and a digit. Nil for
    /// other text.
    static func quickFold(_ text: String) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 4)
        var space = false
        // What the last byte written was part of: a digit, a syllable, or anything else.
        var last = Kind.other
        var bytes = text.utf8.makeIterator()
        while let byte = bytes.next() {
            let kind: Kind
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): kind = .digit
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"): kind = .other
            case 0..<0x80:
                space = true
                continue
            case 0xEA...0xED:
                // A syllable, U+AC00…U+D7A3, is three bytes: 1110xxxx 10xxxxxx 10xxxxxx.
                guard let second = bytes.next(), let third = bytes.next(), second & 0xC0 == 0x80,
                    third & 0xC0 == 0x80
                else { return nil }
                let scalar = UInt32(byte & 0x0F) << 12 | UInt32(second & 0x3F) << 6 | UInt32(third & 0x3F)
                guard (0xAC00...0xD7A3).contains(scalar) else { return nil }
                if !out.isEmpty && (space || last == .digit) { out.append(UInt8(ascii: " ")) }
                out += [byte, second, third]
                space = false
                last = .syllable
                continue
            default:
                return nil
            }
            if !out.isEmpty && (space || (kind == .digit && last == .syllable)) {
                out.append(UInt8(ascii: " "))
            }
            space = false
            out.append(byte | (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? 0x20 : 0))
            last = kind
        }
        return String(decoding: out, as: UTF8.self)
    }

    private enum Kind { case digit, syllable, other }

    private static func isHangul(_ ch: Character) -> Bool {
        ch.unicodeScalars.first.map { (0xAC00...0xD7A3).contains($0.value) } ?? false
    }

    /// Name tags that find a building (or a shop in it): `name`, its languages and variants.
    static func isNameKey(_ key: String) -> Bool {
        key == "name" || key.hasPrefix("name:") || key == "alt_name" || key == "official_name"
            || key == "short_name" || key == "loc_name" || key == "old_name" || key == "addr:housename"
    }

    /// The name a building is called by, as written: `name`, else `name:ko` (the prompts are
    /// Korean), else `name:en`, else the first other `name:LANG` by key. A hotel mapped with
    /// `name:ko` and `name:en` only was "이름 없는 건물" to the walker and `null` in a search.
    /// Only language subkeys count: `name:etymology` or `name:etymology:wikidata` are no name.
    static func displayName(_ tags: [String: String]) -> String? {
        func present(_ key: String) -> String? {
            tags[key].flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
        }
        if let name = present("name") ?? present("name:ko") ?? present("name:en") { return name }
        return tags.keys.filter { $0.hasPrefix("name:") && isLanguage($0.dropFirst("name:".count)) }
            .sorted().lazy.compactMap(present).first
    }

    /// Whether a key's subkey names a language: a BCP 47 tag, a 2–3 letter language, then
    /// subtags ("sv", "zh-Hant", "ko-Latn"); not `etymology`, `type`, `name`, nor `old`
    /// (three letters, but a former name: `name:old`).
    static func isLanguage(_ subkey: Substring) -> Bool {
        let parts = subkey.split(separator: "-", omittingEmptySubsequences: false)
        return parts[0] != "old" && (2...3).contains(parts[0].count)
            && parts[0].allSatisfy { $0.isASCII && $0.isLowercase }
            && parts.dropFirst().allSatisfy {
                !$0.isEmpty && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
            }
    }

    /// The folded, distinct names in `tags`, joined by ``separator``.
    static func names(_ tags: [String: String]) -> String {
        nameList(tags).joined(separator: separator)
    }

    /// The folded, distinct names in `tags`, by key.
    static func nameList(_ tags: [String: String]) -> [String] {
        var out: [String] = []
        // Name keys only are sorted, and the few names compared as a list.
        for key in tags.keys.filter(isNameKey).sorted() {
            let folded = normalize(tags[key]!)
            if !folded.isEmpty && !out.contains(folded) { out.append(folded) }
        }
        return out
    }

    /// Shorter forms of an address as people paste it, to look for when the query as written
    /// matches nothing (OSM tags a building's street and number, rarely its city, postcode,
    /// staircase or flat), longest first:
    /// - without a neighbourhood or postcode in parentheses and commas ("서울특별시, 중구, 세종대로
    ///   110 (태평로1가)" → "서울특별시 중구 세종대로 110"), and without a Korean postcode before the
    ///   region ("04524 서울특별시 …");
    /// - without its leading Korean region words one at a time ("중구 세종대로 110", "세종대로
    ///   110"). A word is dropped only while it names a region (``isKoreanRegion(_:before:)``),
    ///   a house number (a digit) is among the words left and two words or more are left (a
    ///   road and its number joined, "세종대로110", counting as two), at most four times: "해군 작전
    ///   사령부" (no number) is never turned into "작전 사령부", which would name the army's; a
    ///   읍/면/동 before the road is one ("양평읍 양평시장길 10" → "양평시장길 10");
    /// - of each of those, what ends at the house number (``houseNumberForms(_:)``): without
    ///   what follows it ("Kaivokatu 10, 00100 Helsinki" → "Kaivokatu 10", "세종대로 110 3층 301호"
    ///   → "세종대로 110", "Mannerheimintie 5 A 12" → "Mannerheimintie 5 A"; a complex's building
    ///   number kept first: "반포대로 275 103동 1203호" → "반포대로 275 103동"), then without its
    ///   letter ("Mannerheimintie 5"), or a range typed for one number by either end
    ///   ("Mannerheimintie 5-7" → "Mannerheimintie 5", "Mannerheimintie 7");
    /// - a number-first address without its last parts after commas ("10 Quai Jean-Charles
    ///   Rey, 69000 Lyon" → "10 Quai Jean-Charles Rey"), while a digit is left.
    /// Composed (NFC) first: an address pasted in decomposed Hangul names its regions too.
    static func addressForms(_ query: String) -> [String] { shorterForms(query).map(\.text) }

    /// ``addressForms(_:)`` with what each must hold to: a form that dropped the house letter
    /// matches the number only bare (``AddressForm/bareNumber``), and each keeps the words it
    /// left out (``AddressForm/dropped``), of which a city or region chooses among its matches.
    static func shorterForms(_ query: String) -> [AddressForm] {
        // Full-width commas, parentheses and digits as ASCII ("서울특별시，중구，세종대로 １１０").
        let query = Fold.narrow(query).precomposedStringWithCanonicalMapping
        let written = query.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let unbracketed = query.replacingOccurrences(
            of: "\\([^()]*\\)", with: " ", options: .regularExpression)
        var words = unbracketed.replacingOccurrences(of: ",", with: " ").split(whereSeparator: \.isWhitespace)
            .map(String.init)
        var forms: [AddressForm] = []
        let all = words
        func add(_ words: [String], bare: Bool = false, range: ClosedRange<Int>? = nil) {
            let form = words.joined(separator: " ")
            if !words.isEmpty, form != written, !forms.contains(where: { $0.text == form }) {
                var dropped = all
                for word in words { dropped.firstIndex(of: word).map { _ = dropped.remove(at: $0) } }
                forms.append(AddressForm(text: form, bareNumber: bare, numberRange: range, dropped: dropped))
            }
        }
        add(words)
        if words.count >= 3, isPostcode(words[0]), isHangul(words[1]) {
            words.removeFirst()
            add(words)
        }
        var shortened = [words]
        var dropped = 0
        while dropped < 4, words.dropFirst().map(addressParts).reduce(0, +) >= 2,
            isKoreanRegion(words[0], before: words[1]),
            words.dropFirst().contains(where: { $0.contains(where: \.isNumber) })
        {
            words.removeFirst()
            dropped += 1
            add(words)
            shortened.append(words)
        }
        // A city, region or postcode written first, before a comma ("Helsinki, Mannerheimintie 5",
        // "00100 Helsinki, Kaivokatu 10"): the address after it, the parts before each comma
        // dropped in turn (at most ``commaDrops``: each form is a search) while a street and
        // house number, or the number and a street, start what is left (before, nothing was
        // found; without a comma where the street starts is not known: "Vanha Porvoontie 5" is
        // not "Porvoontie 5"). Only parts before the address: "10 Kaivokatu, 00100 Helsinki" and
        // "Mannerheimintie, 5 A" (a letter is no street) keep theirs.
        let commaParts = unbracketed.split(separator: ",")
            .map { $0.split(whereSeparator: \.isWhitespace).map(String.init) }.filter { !$0.isEmpty }
        var numberFirst = commaParts.first.map { [$0] } ?? []
        for k in commaParts.indices.dropFirst().prefix(Self.commaDrops) {
            let before = commaParts[k - 1]
            guard houseNumberForms(before).isEmpty, turned(before) == nil else { break }
            let rest = Array(commaParts[k...].joined())
            // The number first, in its own part or with the street after a comma ("10, Kaivokatu").
            let first = turned(commaParts[k]) != nil ? commaParts[k] : rest
            guard !houseNumberForms(rest).isEmpty || turned(first) != nil else { break }
            add(rest)
            shortened.append(rest)
            numberFirst.append(first)
        }
        for words in shortened {
            for form in houseNumberForms(words) { add(form.words, bare: form.bareNumber, range: form.range) }
        }
        let parts = unbracketed.split(separator: ",", omittingEmptySubsequences: false)
        if let first = shortened[0].first, isHouseNumber(first) {
            for kept in (1..<max(parts.count, 1)).reversed() {
                let words = parts[..<kept].joined(separator: " ").split(whereSeparator: \.isWhitespace)
                    .map(String.init)
                guard words.count >= 2, words.dropFirst().contains(where: { $0.contains(where: \.isLetter) })
                else { break }
                add(words)
            }
        }
        // An address written number first, turned as addresses are stored, with its shorter
        // forms ("5-7 Testikatu" → "Testikatu 5-7" → "Testikatu 5", "… 7"): a letter stored
        // after the number is then found as after a street ("36 Aleksanterinkatu" finds 36a;
        // before, audit 15's A15-8, nothing), also after a city ("Helsinki, 36 Aleksanterinkatu").
        for part in numberFirst {
            guard let turned = turned(part) else { continue }
            add(turned)
            for form in houseNumberForms(turned) { add(form.words, bare: form.bareNumber, range: form.range) }
        }
        return forms
    }

    /// The most comma-separated parts dropped from the front of an address
    /// (``shorterForms(_:)``): a country, region, city, district, neighbourhood and building; a
    /// query of 60 commas made 60 forms, each a search (audit 16: 0.5 s).
    static let commaDrops = 6

    /// A part of an address written number first (up to a comma), turned as addresses are
    /// stored: "36 Aleksanterinkatu" → "Aleksanterinkatu 36"; nil unless a house number (not a
    /// postcode) comes first and a street follows, words without digits and not only house
    /// letters ("5 A" is a number and its letter).
    static func turned(_ words: [String]) -> [String]? {
        guard words.count >= 2, isHouseNumber(words[0]), !isPostcode(words[0]) else { return nil }
        let street = Array(words.dropFirst())
        guard !street.contains(where: { $0.contains(where: \.isNumber) }), !street.allSatisfy(isHouseLetter)
        else { return nil }
        return street + [words[0]]
    }

    /// Shorter forms of an address's `words` that end at its house number: the first word
    /// after the street written as a number on a house ("10", "13A", "5-1", "22-24"), or a
    /// Korean road and its number joined ("세종대로110"), and a single letter after it (a
    /// staircase: "5 A"). Without what follows (a flat, floor, unit, postcode, city), then
    /// without the letter, then, for a range typed where one number is tagged, each end
    /// (not in Korean, where "5-1" is 본번 5, 부번 1: another building than 5). None for an
    /// address that starts with its number: where its street ends is not known. A form
    /// without the letter written (`bareNumber`) matches only the bare number or a range
    /// holding it: "Keskuskatu 1A" is not Keskuskatu 1B; a range's end (with the range, `range`)
    /// only the number alone or a range holding all of the one written: "Iso Roobertinkatu 1-3"
    /// is not the lot 3-5 (audit 15, A15-7: its end 3 found it, and `go` walked there), but is
    /// the lot 1-5 (audit 16). A lot number written with 번지 is
    /// that number ("31-2번지" → "31-2"; "31번지 2호" → "31-2", ``withLotNumbers(_:)``). A
    /// Korean building number in a complex right after the number ("103동" of "반포대로 275
    /// 103동 1203호") is kept in a form tried first (``buildingNumber(_:at:)``): the complex's
    /// buildings share its address. A 호 of three or more digits right after 번지 ("31번지
    /// 201호") may be the lot's 부번 or a flat: the lot with it is tried first, then the lot
    /// alone, the flat dropped.
    static func houseNumberForms(_ words: [String]) -> [NumberForm] {
        var forms = numberForms(withLotNumbers(words))
        for form in numberForms(withLotNumbers(words, flatAfterLot: true))
        where !forms.contains(where: { $0.words == form.words }) {
            forms.append(form)
        }
        return forms
    }

    /// A shorter form's words, and how its house number matches (``AddressForm/bareNumber``,
    /// ``AddressForm/numberRange``).
    typealias NumberForm = (words: [String], bareNumber: Bool, range: ClosedRange<Int>?)

    /// ``houseNumberForms(_:)`` of words whose lot numbers are read already.
    private static func numberForms(_ words: [String]) -> [NumberForm] {
        guard let first = words.first, !isHouseNumber(first),
            let at = words.indices.first(where: {
                ($0 > 0 && isHouseNumber(words[$0])) || roadAndNumber(words[$0]) != nil
            })
        else { return [] }
        let street = Array(words[..<at])
        let number = words[at]
        var forms: [NumberForm] = []
        if let building = buildingNumber(words, at: at + 1) {
            forms.append((Array(words[...at]) + [building], false, nil))
        }
        let letter = at + 1 < words.count && isHouseLetter(words[at + 1])
        forms.append((Array(words[...(letter ? at + 1 : at)]), false, nil))
        guard roadAndNumber(number) == nil else { return forms }
        let digits = String(number.prefix { $0.isNumber || $0 == "-" })
        let letterDropped = letter || number.last?.isLetter == true
        if letter || digits != number { forms.append((street + [digits], letterDropped, nil)) }
        let ends = digits.split(separator: "-").map(String.init)
        if ends.count == 2, !street.contains(where: { $0.contains(where: isHangul) }), let low = Int(ends[0]),
            let high = Int(ends[1]),
            low < high
        {
            forms += ends.map { (street + [$0], letterDropped, low...high) }
        }
        return forms
    }

    /// A house number as written: digits, a second number after a hyphen (a range, or a
    /// Korean 부번), a letter ("10", "13A", "5-1", "22-24").
    static func isHouseNumber(_ word: String) -> Bool {
        word.range(of: "^[0-9]+(-[0-9]+)?[A-Za-z]?$", options: .regularExpression) != nil
    }

    /// The building number of an apartment complex written at `words[at]` ("103동", "제103동",
    /// "103 동", and with its flat written on, "103동1203호"), as buildings are named ("103동");
    /// or the shorthand 동-호 ("103-1203", "103-1203호": a flat of three or four digits) right
    /// after a Korean street and its number, where the number is already written, so the pair
    /// is no 본번-부번; nil when there is none.
    static func buildingNumber(_ words: [String], at: Int) -> String? {
        guard at < words.count else { return nil }
        var word = words[at]
        if word.allSatisfy(\.isNumber), at + 1 < words.count, words[at + 1] == "동" { word += "동" }
        let korean = words[..<at].contains { $0.contains(where: isHangul) }
        guard
            word.range(of: "^제?[0-9]+동([0-9]+호?)?$", options: .regularExpression) != nil
                || (korean && word.range(of: "^[0-9]{1,4}-[0-9]{3,4}호?$", options: .regularExpression) != nil)
        else { return nil }
        return word.drop { $0 == "제" }.prefix(while: \.isNumber) + "동"
    }

    /// An address's `words` with a lot number (지번) written with 번지 as the number alone
    /// ("31-2번지", "31-2 번지" → "31-2"), and a 부번 written the older way, with 호 right after
    /// 번지 ("31번지 2호", "31번지2호", "31 번지 2 호"), joined to its 본번 ("31-2"): that 호 is part
    /// of the lot, never a flat, and the lot is never read as 31, another building. A 호 after a
    /// lot that has its 부번 ("31-2번지 301호") or not right after 번지 ("31번지 3층 301호") is a
    /// flat, left to be dropped. Other words as they are. `flatAfterLot`: a 호 of three or more
    /// digits right after 번지 ("31번지 201호") is read as a flat instead ("31 201호").
    static func withLotNumbers(_ words: [String], flatAfterLot: Bool = false) -> [String] {
        let flat = "(?<![^ ])([0-9]+) ?번지 ?([0-9]{3,}) ?호(?![^ ])"
        let subLot = "(?<![^ ])([0-9]+) ?번지 ?([0-9]+) ?호(?![^ ])"
        let lot = "(?<![^ ])([0-9]+(?:-[0-9]+)?[A-Za-z]?) ?번지(?![^ ])"
        let joined = words.joined(separator: " ")
        return
            (flatAfterLot
            ? joined.replacingOccurrences(of: flat, with: "$1 $2호", options: .regularExpression) : joined)
            .replacingOccurrences(of: subLot, with: "$1-$2", options: .regularExpression)
            .replacingOccurrences(of: lot, with: "$1", options: .regularExpression)
            .split(separator: " ").map(String.init)
    }

    /// A single Latin letter: a staircase or house letter ("5 A").
    static func isHouseLetter(_ word: String) -> Bool {
        word.count == 1 && word.allSatisfy { $0.isASCII && $0.isLetter }
    }

    /// A Korean road and its number written as one word ("세종대로110", "세종대로23길5-1"): the
    /// number, nil for any other word.
    static func roadAndNumber(_ word: String) -> String? {
        guard let match = word.range(of: "[0-9]+(-[0-9]+)?$", options: .regularExpression),
            match.lowerBound > word.startIndex, isPlace(String(word[..<match.lowerBound]))
        else { return nil }
        return String(word[match])
    }

    /// How many words of an address `word` is: two for a road and its number joined.
    private static func addressParts(_ word: String) -> Int { roadAndNumber(word) == nil ? 1 : 2 }

    /// A Korean postcode: five digits ("04524").
    static func isPostcode(_ word: String) -> Bool {
        word.count == 5 && word.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// Whether `word`, followed by `next`, names a Korean region as an address starts with
    /// one: Korea, a province or metropolitan city by its full or short name ("서울특별시",
    /// "서울", "경기도", "경기"), or a city, county or district — a Hangul word of two syllables
    /// or more ending in 시, 군 or 구 ("수원시", "기장군", "중구") — when what follows is another
    /// region or a road, neighbourhood or village ("세종대로", "효원로23길", "우동", "기장읍"). Many
    /// words end so and name no region: "해군 작전 사령부 110", "택시 승강장 3", "야구 경기장 2" keep
    /// their first word (a review found them shortened into other buildings' names). A town,
    /// township or neighbourhood (a word of two syllables or more, digits aside, ending in 읍,
    /// 면 or 동: "양평읍", "역삼1동") is one before a road ("양평시장길", "추성로1371"), as an
    /// official road-name address names it between the 시/군/구 and the road. A region in Latin
    /// letters (``isRomanisedRegion(_:)``) is one before Hangul or another region.
    static func isKoreanRegion(_ word: String, before next: String) -> Bool {
        if koreanRegions.contains(word) || ["특별시", "광역시", "특별자치시", "특별자치도"].contains(where: word.hasSuffix) {
            return true
        }
        if isRomanisedRegion(word) {
            return next.contains(where: isHangul) || isRomanisedRegion(next)
                || isKoreanRegion(next, before: "")
        }
        if word.filter({ !$0.isNumber }).count >= 2, ["읍", "면", "동"].contains(where: word.hasSuffix),
            isPlace(word)
        {
            let road = roadAndNumber(next).map { String(next.dropLast($0.count)) } ?? next
            return isPlace(road) && ["로", "길"].contains(where: road.hasSuffix)
        }
        return endsLikeARegion(word)
            && (isKoreanRegion(next, before: "") || endsLikeARegion(next) || isPlace(next))
    }

    /// A Hangul word of two syllables or more ending in 시, 군 or 구.
    static func endsLikeARegion(_ word: String) -> Bool {
        isHangul(word) && word.count >= 2 && ["시", "군", "구"].contains(where: word.hasSuffix)
    }

    /// A road, neighbourhood or village as an address names it: Hangul (digits allowed inside,
    /// "세종대로23길") ending in 로, 길, 동, 가, 읍, 면 or 리, digits after it aside ("태평로1가").
    static func isPlace(_ word: String) -> Bool {
        let letters = word.filter { !$0.isNumber }
        let end = word.trimmingCharacters(in: .decimalDigits)
        return isHangul(letters) && ["로", "길", "동", "가", "읍", "면", "리"].contains(where: end.hasSuffix)
    }

    /// Whether every scalar of `word` is a Hangul syllable (and there is one).
    static func isHangul(_ word: String) -> Bool {
        !word.isEmpty && word.unicodeScalars.allSatisfy { (0xAC00...0xD7A3).contains($0.value) }
    }

    /// Whether `word` names Korea, a province or a metropolitan city in Latin letters, as a
    /// relative abroad writes it before a Korean address, in any case, hyphens aside: by its
    /// romanised name (``romanisedRegions``: "Korea", "Seoul", "Gyeonggi", "Chungcheongbuk"),
    /// with -si or -do, or with the official ending ("Seoul-teukbyeolsi", "Busan-gwangyeoksi",
    /// "Jeju-teukbyeoljachido"); or a city, county or district by its romanised ending
    /// ("Suwon-si", "Yangpyeong-gun", "Jung-gu").
    static func isRomanisedRegion(_ word: String) -> Bool {
        guard word.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "-") }) else { return false }
        let name = word.lowercased()
        if ["-si", "-gun", "-gu"].contains(where: name.hasSuffix), name.count >= 5 { return true }
        let joined = name.replacingOccurrences(of: "-", with: "")
        return romanisedEndings.contains {
            joined.hasSuffix($0) && romanisedRegions.contains(String(joined.dropLast($0.count)))
        }
    }

    /// What follows a romanised region's name, hyphens aside: nothing, -si, -do, or the
    /// official ending of a special or metropolitan city or a special self-governing one.
    static let romanisedEndings = [
        "", "si", "do", "teukbyeolsi", "gwangyeoksi", "teukbyeoljachisi", "teukbyeoljachido",
    ]

    /// ``koreanRegions`` in Latin letters (Revised Romanization), the provinces also by their
    /// full names ("Chungcheongbuk" of Chungcheongbuk-do).
    static let romanisedRegions: Set<String> = [
        "korea", "seoul", "busan", "daegu", "incheon", "gwangju", "daejeon", "ulsan", "sejong", "gyeonggi",
        "gangwon", "chungbuk", "chungnam", "jeonbuk", "jeonnam", "gyeongbuk", "gyeongnam", "jeju",
        "chungcheongbuk", "chungcheongnam", "jeollabuk", "jeollanam", "gyeongsangbuk", "gyeongsangnam",
    ]

    /// Korea, and its provinces and metropolitan cities by the short names and the provinces'
    /// full names people write first in an address (the cities' full names end in 시).
    static let koreanRegions: Set<String> = [
        "대한민국", "한국", "서울", "부산", "대구", "인천", "광주", "대전", "울산", "세종", "경기", "강원", "충북",
        "충남", "전북", "전남", "경북", "경남", "제주", "경기도", "강원도", "충청북도", "충청남도", "전라북도", "전라남도",
        "경상북도", "경상남도",
    ]

    /// The folded addresses in `tags`: street and house number, the same for `addr:place`,
    /// then for each street or place name in another language (`addr:street:LANG`,
    /// `addr:place:LANG` by key: bilingual Helsinki's "Södra Esplanaden" beside
    /// "Eteläesplanadi"; before, only the first was searched), each once, and `addr:full`.
    /// The number after the street only: the word index matches words in
    /// any order, and a whole-name search turns a query that starts with the number around
    /// (``numberLast(_:)``), so the other order is not stored — at a country's size it was
    /// a third of the import's time.
    static func addresses(_ tags: [String: String]) -> [String] {
        var out: [String] = []
        let number = tags["addr:housenumber"].map(normalize) ?? ""
        let languages = tags.keys.filter { key in
            for prefix in ["addr:street:", "addr:place:"] where key.hasPrefix(prefix) {
                return isLanguage(key.dropFirst(prefix.count))
            }
            return false
        }
        for key in ["addr:street", "addr:place"] + languages.sorted() {
            guard let street = tags[key].map(normalize), !street.isEmpty else { continue }
            let address = number.isEmpty ? street : "\(street) \(number)"
            if !out.contains(address) { out.append(address) }
        }
        if let full = tags["addr:full"].map(normalize), !full.isEmpty { out.append(full) }
        return out
    }

    /// A folded query that may start with a house number ("10 quai jean charles rey", "110 1
    /// 세종대로") turned around as addresses are stored, the number last: one form for each
    /// way to split its leading words that have a digit ("10 5th avenue": "5th avenue 10"
    /// and "avenue 10 5th"), as (the street's words, the number's words). Empty when the
    /// query does not start with a number or has nothing after it.
    /// At most ``numberWords`` leading words are a house number: a query of thousands of
    /// numbers made thousands of forms, each a copy of the rest (20 KB: 4.5 s and 1.85 GB).
    static func numberLast(_ tokens: [String]) -> [(street: [String], number: [String])] {
        var out: [(street: [String], number: [String])] = []
        var k = 0
        while k < min(tokens.count - 1, numberWords),
            tokens[k].utf8.contains(where: { (48...57).contains($0) })
        {
            k += 1
            out.append((Array(tokens[k...]), Array(tokens[..<k])))
        }
        return out
    }

    /// The most words a house number is written in ("110 1", "5th" of "10 5th avenue", "22 24").
    static let numberWords = 3

    /// The house number a folded query ends with, as its words ("mannerheimintie 13" → ["13"],
    /// "세종대로 23 길 5 1" → ["5", "1"], "mannerheimintie 22 24" → ["22", "24"]): its last word
    /// or two when they are digits and a word with a letter comes before; `korean` when the
    /// query has Hangul (a second number is then a 부번, another building, never a range's
    /// end). Nil for other queries, a number alone among them ("10").
    static func houseNumber(_ tokens: [String]) -> (words: [String], korean: Bool)? {
        let digits = { (word: String) in !word.isEmpty && word.utf8.allSatisfy { (48...57).contains($0) } }
        let count = tokens.reversed().prefix { digits($0) }.count
        guard count > 0, count < tokens.count else { return nil }
        let words = Array(tokens.suffix(min(count, 2)))
        return (words, tokens.contains(where: isHangul))
    }

    /// A folded query's address, the words one name or address must hold together: the word
    /// before its first number (digits, perhaps a letter joined: "13a"), that number, and the
    /// numbers and single letters right after it ("vuorikatu 8", "keskuskatu 1 a" of
    /// "keskuskatu 1 a"; in Korean the word and the number alone: "세종대로 23" of "세종대로 23 길
    /// 5 1", "반포대로 275" of "반포대로 275 103 동", whose 동 is a building's name); nil when there
    /// is no number or nothing before it.
    static func addressRun(_ tokens: [String]) -> [String]? {
        let number = { (word: String) in word.range(of: "^[0-9]+[a-z]?$", options: .regularExpression) != nil
        }
        guard let first = tokens.firstIndex(where: number), first > 0 else { return nil }
        var end = first
        // In Korean a number after it is a 부번, or a complex's building ("103 동"), which is
        // its own name, not part of the address.
        let korean = tokens.contains(where: isHangul)
        while !korean, end + 1 < tokens.count, number(tokens[end + 1]) || isFoldedLetter(tokens[end + 1][...])
        {
            end += 1
        }
        return Array(tokens[(first - 1)...end])
    }

    /// Whether a stored whole token that starts with a query's whole token (`rest` what
    /// follows it) continues its house number ``houseNumber(_:)`` as a whole word: with a
    /// letter ("13" → "13a") or another word ("terminal 1" → "terminal 1 parking",
    /// "세종대로 23" → "세종대로 23 길 5"), or, in a Finnish or other range, its higher end
    /// ("22" → "22 24") — never with a digit ("1" → "10", "세종대로 11" → "세종대로 110") or a
    /// Korean 부번 ("5" → "5 1").
    /// `bare`: a house letter, joined or apart ("13a", "13 a"), does not continue it (a form
    /// that dropped the letter written, ``AddressForm/bareNumber``). `afterRoad`: the query's
    /// number follows a Korean road or place (``isPlace(_:)``), which no Hangul word continues.
    /// `range`: a range only if it holds all of this one (``AddressForm/numberRange``).
    static func continuesNumber(
        _ rest: Substring, _ number: (words: [String], korean: Bool), bare: Bool = false,
        afterRoad: Bool = false, range: ClosedRange<Int>? = nil
    ) -> Bool {
        guard let first = rest.unicodeScalars.first else { return true }
        if ("0"..."9").contains(first) { return false }
        guard first == "_" else { return !bare }
        let next = rest.dropFirst().prefix { $0 != "_" }
        // After a Korean road, a Hangul word makes another road or place, or a name: "충무로 1"
        // is not 충무로1가 24, "세종대로 23" not 세종대로23길 5, "을지로 3" not "을지로3가점"
        // (before, audit 15, each found, and `go` walked there).
        if afterRoad, next.first.map(isHangul) == true {
            return false
        }
        guard let start = next.unicodeScalars.first, ("0"..."9").contains(start) else {
            return !(bare && isFoldedLetter(next))
        }
        return isRangeEnd(String(next), after: number, within: range)
    }

    /// Whether the number `word` beside a stored house number that is the query's makes a
    /// range with it (`higher`: after it; else before it): only for a one-word, non-Korean
    /// house number, and the range running upwards ("22-24" by "22" or "24"); with `range` (the
    /// query's number is an end of that range written, ``AddressForm/numberRange``), a stored
    /// range holding all of it: 1-5 for 1-3, never 3-5.
    private static func isRangeEnd(
        _ word: String, after number: (words: [String], korean: Bool), higher: Bool = true,
        within range: ClosedRange<Int>? = nil
    ) -> Bool {
        guard number.words.count == 1, !number.korean, let n = Int(number.words[0]), let other = Int(word),
            higher ? other > n : other < n
        else {
            return false
        }
        guard let range else { return true }
        let stored = higher ? n...other : other...n
        return stored.contains(range.lowerBound) && stored.contains(range.upperBound)
    }

    /// Whether folded `field` (one name or address) holds a query's address as written: `word`
    /// (the one before its house number) with the number right after it (``holdsNumber(_:_:bare:)``
    /// there), and before `word` the words the query has before it, in their places read back
    /// from the street, or regions it left out (``precedes(_:_:)``): "pohjoinen makasiinikatu 2"
    /// is not "eteläinen makasiinikatu 2", "gs25 을지로 3 가점" not "을지로 3", "중앙로 5 번길 5"
    /// not "중앙로 12 번길 5"; "서울특별시 중구 세종대로 110" is "세종대로 110" and "서울 중구 세종대로
    /// 110". `query`: the query's words, its house number last.
    static func holdsAddress(
        _ field: Substring, after word: String, _ number: (words: [String], korean: Bool), bare: Bool,
        range: ClosedRange<Int>? = nil, query: [String]
    ) -> Bool {
        let words = field.split(separator: " ").map(String.init)
        let asked = Array(query.prefix(max(0, query.count - number.words.count - 1)))
        // After a Korean road no Hangul word follows the number: "충무로 1 가 24" is 충무로1가 24.
        let road = number.korean && isPlace(word)
        for i in words.indices where words[i] == word && precedes(Array(words[...i]), asked) {
            let rest = words[(i + 1)...].joined(separator: " ")
            guard holdsNumber(rest[...], number, bare: bare, range: range, atStart: true) else { continue }
            let after = i + 1 + number.words.count
            if road, after < words.count, words[after].first.map(isHangul) == true {
                continue
            }
            return true
        }
        return false
    }

    /// Whether folded `address` (a street and its number) has the query's house number as its
    /// own (``holdsNumber(_:_:bare:range:atStart:)`` from its first word that starts with a digit,
    /// after at least one word): "aleksanterinkatu 52" has 52, not 5 or 2.
    static func holdsHouseNumber(
        _ address: String, _ number: (words: [String], korean: Bool), bare: Bool, range: ClosedRange<Int>?
    ) -> Bool {
        let words = address.split(separator: " ")
        guard let at = words.firstIndex(where: { $0.first?.isNumber == true }), at > 0 else { return false }
        return holdsNumber(
            words[at...].joined(separator: " ")[...], number, bare: bare, range: range, atStart: true)
    }

    /// Whether the words of a field before its street (`stored`, the street last) are those a
    /// query has before it (`asked`), read back from the street: each the query's word in its
    /// place, or a region the query left out; the query may have more in front (a name, a
    /// region).
    static func precedes(_ stored: [String], _ asked: [String]) -> Bool {
        var q = asked.count
        for j in stored.indices.dropLast().reversed() {
            if q > 0, asked[q - 1] == stored[j] {
                q -= 1
            } else if !(isKoreanRegion(stored[j], before: stored[j + 1]) || endsLikeARegion(stored[j])) {
                return false
            }
        }
        return true
    }

    /// Whether folded `field` is the address a query asked (`tokens`, folded; a number written
    /// first turned): a street and its house number that are words of the query in a row, the
    /// number perhaps with a house letter the query lacks ("aleksanterinkatu 36a" for
    /// "aleksanterinkatu 36", "36 aleksanterinkatu", "36 a aleksanterinkatu", "helsinki
    /// aleksanterinkatu 36" or "aleksanterinkatu 36 helsinki"; a letter joined or apart is one).
    /// A building with neither a name nor an address is called only by that: never by a shop's
    /// longer name that holds the address ("kahvila satamakatu 8", "galleria 4 kuus"), a range
    /// holding the number ("uudenmaankatu 1 5" for "… 1") or a postcode ("helsinki 00130")
    /// (audits 16 and 17). A place's name written exactly as asked ("latitude 25") cannot be told
    /// from an address point's.
    static func isAddressAsked(_ field: String, _ tokens: [String]) -> Bool {
        let words = joiningHouseLetters(field.split(separator: " ").map(String.init))
        // The house number: its last word or two ("15 17" of a range) start with a digit.
        let numbers = words.reversed().prefix { $0.first?.isNumber == true }.count
        guard numbers > 0, numbers <= 2, words.count > numbers, let last = words.last else { return false }
        let number = String(last.prefix { $0.isNumber })
        guard number.count == last.count || isFoldedLetter(last.dropFirst(number.count)), !isPostcode(number)
        else { return false }
        // The street, and a range's lower end.
        let street = Array(words.dropLast())
        return ([tokens] + numberLast(tokens).map { $0.street + $0.number }).contains { query in
            let asked = joiningHouseLetters(query)
            guard asked.count >= words.count else { return false }
            return (0...(asked.count - words.count)).contains { i in
                Array(asked[i..<(i + street.count)]) == street
                    && [last, number].contains(asked[i + street.count])
            }
        }
    }

    /// `words` with a house letter apart after a number joined to it ("36 a" → "36a").
    private static func joiningHouseLetters(_ words: [String]) -> [String] {
        var out: [String] = []
        for word in words {
            if isFoldedLetter(word[...]), let previous = out.last, previous.allSatisfy(\.isNumber) {
                out[out.count - 1] += word
            } else {
                out.append(word)
            }
        }
        return out
    }

    /// Folded `field` with each run of its words that a word of the query `written` (its words as
    /// written) folds to, as written: "aleksanterinkatu 36a" for "Aleksanterinkatu 36" is
    /// "Aleksanterinkatu 36a", "pitkansillanranta 17" for "Pitkänsillanranta 17," "Pitkänsillanranta
    /// 17", "pohjoisesplanadi 15 17" for "Pohjoisesplanadi 15-17" "Pohjoisesplanadi 15-17",
    /// "세종대로 23 길 5" for "세종대로23길 5" "세종대로23길 5" (before, audit 16, a range without its
    /// hyphen). The other words as folded.
    static func asWritten(_ field: String, _ written: [String]) -> String {
        let typed = written.map {
            $0.trimmingCharacters(in: .punctuationCharacters.union(.symbols))
                .precomposedStringWithCanonicalMapping
        }
        let folded = typed.map { normalize($0).split(separator: " ").map(String.init) }
        let words = field.split(separator: " ").map(String.init)
        var out: [String] = []
        var i = 0
        while i < words.count {
            let longest = folded.indices.filter {
                !folded[$0].isEmpty && words[i...].starts(with: folded[$0])
            }
            .max { folded[$0].count < folded[$1].count }
            out.append(longest.map { typed[$0] } ?? words[i])
            i += longest.map { folded[$0].count } ?? 1
        }
        return out.joined(separator: " ")
    }

    /// Whether folded `field` holds folded `text` from the start of one of its words, or, for a
    /// text that starts with a Hangul syllable (a word's worth of letters: "시청" in
    /// "서울특별시청"), anywhere: the search inside words for an address written number first
    /// finds no number that ends another word ("2 galleria" is not "g12 galleria": before,
    /// audit 16, found).
    static func holdsFromWordStart(_ field: String, _ text: String) -> Bool {
        guard let first = text.first, !isHangul(first) else { return field.contains(text) }
        var from = field.startIndex
        while let found = field.range(of: text, range: from..<field.endIndex) {
            if found.lowerBound == field.startIndex || field[field.index(before: found.lowerBound)] == " " {
                return true
            }
            from = field.index(after: found.lowerBound)
        }
        return false
    }

    /// Whether folded `field` holds a query's ``addressRun(_:)`` as written: its words in a row,
    /// and before them only words of the `query`.
    static func holdsRun(_ field: Substring, _ run: [String], query: Set<String>) -> Bool {
        let words = field.split(separator: " ")
        guard words.count >= run.count else { return false }
        for i in 0...(words.count - run.count) {
            if zip(words[i...], run).allSatisfy({ $0 == $1 }) { return true }
            guard query.contains(String(words[i])) else { return false }
        }
        return false
    }

    /// Whether folded `field` (one name or address) holds the query's house number
    /// ``houseNumber(_:)`` as a whole: its words in a row, the last perhaps followed by a
    /// letter ("13" in "13a"), no number right before or after them but a range's other end.
    /// A word search found "mannerheimintie 10" for "mannerheimintie 1" (its `1*`) and
    /// "세종대로 23 길 5 1" for "세종대로 23 길 5" (each word somewhere).
    /// `bare`: no house letter follows, joined or apart (``AddressForm/bareNumber``). `range`: a
    /// range beside it only if it holds all of this one (``AddressForm/numberRange``). `atStart`:
    /// only as the field's first words (or a range's higher end after its lower).
    static func holdsNumber(
        _ field: Substring, _ number: (words: [String], korean: Bool), bare: Bool = false,
        range: ClosedRange<Int>? = nil,
        atStart: Bool = false
    ) -> Bool {
        let words = field.split(separator: " ")
        let k = number.words.count
        guard words.count >= k else { return false }
        let isNumber = { (word: Substring) in word.utf8.allSatisfy { (48...57).contains($0) } }
        for i in 0...(atStart ? min(1, words.count - k) : words.count - k) {
            // At the start, or a range's higher end right after its lower ("22 24").
            if atStart, i == 1, !isNumber(words[0]) { break }
            guard zip(words[i..<(i + k - 1)], number.words).allSatisfy({ $0 == $1 }) else { continue }
            let last = words[i + k - 1]
            let n = number.words[k - 1]
            guard last.hasPrefix(n),
                last.dropFirst(n.count).unicodeScalars.first.map({ !bare && !("0"..."9").contains($0) })
                    ?? true
            else { continue }
            if bare, i + k < words.count, isFoldedLetter(words[i + k]) { continue }
            if i > 0, isNumber(words[i - 1]),
                !isRangeEnd(String(words[i - 1]), after: number, higher: false, within: range)
            {
                continue
            }
            if i + k < words.count, isNumber(words[i + k]),
                !isRangeEnd(String(words[i + k]), after: number, within: range)
            {
                continue
            }
            return true
        }
        return false
    }

    /// A folded word that is one Latin letter: a house letter.
    private static func isFoldedLetter(_ word: Substring) -> Bool {
        word.utf8.count == 1 && word.utf8.allSatisfy { (97...122).contains($0) }
    }

    /// The other way to write the house letter in folded `text`: joined when apart ("13 a" →
    /// "13a") and apart when joined ("13a" → "13 a"); nil when it has none. OSM tags
    /// "13A" as often as "13 A", and people type either: both are one house number.
    static func otherHouseLetter(_ text: String) -> String? {
        var tokens = text.split(separator: " ").map(String.init)
        let digits = { (word: String) in !word.isEmpty && word.utf8.allSatisfy { (48...57).contains($0) } }
        let letter = { (word: String) in
            word.utf8.count == 1 && word.utf8.allSatisfy { (97...122).contains($0) }
        }
        if let i = tokens.indices.dropLast().first(where: { digits(tokens[$0]) && letter(tokens[$0 + 1]) }) {
            tokens[i] += tokens.remove(at: i + 1)
            return tokens.joined(separator: " ")
        }
        if let i = tokens.indices.first(where: {
            tokens[$0].utf8.count >= 2 && digits(String(tokens[$0].dropLast()))
                && letter(String(tokens[$0].suffix(1)))
        }) {
            let word = tokens[i]
            tokens[i...i] = [String(word.dropLast()), String(word.suffix(1))]
            return tokens.joined(separator: " ")
        }
        return nil
    }

    /// The word-index (`building_search`) terms that every name or address holding the folded
    /// query `tokens` as one run of text holds, for the search inside words: the words between
    /// the first and the last whole (spaces around them in the run), the last as the start of a
    /// word; not the first, which may end a longer word ("rautatieasema" in
    /// "päärautatieasema"). Only words the index's tokenizer keeps as one token, as they are
    /// (ASCII letters and digits, Latin letters to U+024F, Hangul syllables); nil when there is
    /// none, or only a one-letter start (a doclist of most rows): then every row is read.
    static func withinTerms(_ tokens: [String]) -> String? {
        guard tokens.count >= 2 else { return nil }
        let kept = { (word: String) in
            word.unicodeScalars.allSatisfy { scalar in
                switch scalar.value {
                case 0x30...0x39, 0x61...0x7A, 0xC0...0x24F, 0xAC00...0xD7A3:
                    scalar.properties.isAlphabetic
                        || scalar.properties.numericType != nil
                default: false
                }
            }
        }
        var terms = tokens.dropFirst().dropLast().filter(kept).map { "\"\($0)\"" }
        if let last = tokens.last, kept(last), last.count >= 2 || !terms.isEmpty {
            terms.append("\"\(last)\"*")
        }
        return terms.isEmpty ? nil : terms.joined(separator: " ")
    }

    /// Whether the last of folded `tokens` is a house letter after a number ("5 a"): a whole
    /// word, not the start of one (a word search took "a" as any word starting with a).
    static func endsWithHouseLetter(_ tokens: [String]) -> Bool {
        guard tokens.count >= 2, let last = tokens.last, last.utf8.count == 1,
            last.utf8.allSatisfy({ (97...122).contains($0) })
        else { return false }
        return tokens[tokens.count - 2].utf8.allSatisfy { (48...57).contains($0) }
    }

    /// Every alternative of folded `text` (joined by ``separator``) as one token, for the
    /// `building_whole` table.
    static func wholeTokens(_ text: String) -> [String] {
        wholeTokens(text.components(separatedBy: separator))
    }

    /// Each folded alternative as one token: its spaces as `_` (`Fold.wholeToken`).
    static func wholeTokens(_ alternatives: [String]) -> [String] {
        alternatives.filter { !$0.isEmpty }.map(Fold.wholeToken)
    }

    /// A node that names a place inside a building: a named shop, office, amenity, craft,
    /// tourism or healthcare node.
    static func isPlaceInside(_ tags: [String: String]) -> Bool {
        guard tags["name"] != nil else { return false }
        return ["shop", "office", "amenity", "craft", "tourism", "healthcare"].contains { tags[$0] != nil }
    }

    /// A node that is an address alone: a house number on a street or place, no name (a named
    /// one is a place inside by its name, or nothing), not an entrance (whose address is its
    /// door's).
    static func isAddressPoint(_ tags: [String: String]) -> Bool {
        tags["addr:housenumber"] != nil && (tags["addr:street"] != nil || tags["addr:place"] != nil)
            && tags["name"] == nil && tags["entrance"] == nil
    }

    /// The osmium `tags-filter` expressions for those nodes, and for address points.
    static let placeFilters = [
        "n/shop", "n/office", "n/amenity", "n/craft", "n/tourism", "n/healthcare", "n/addr:housenumber",
    ]
}
