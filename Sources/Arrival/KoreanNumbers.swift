/// Numbers written as Korean speech expects them, for the prompts espeak-ng speaks.
///
/// Korean reads numbers two ways: Sino-Korean (일, 이, 삼 …) for metres, floors and most
/// counts, native Korean (한, 두, 세 …) for clock hours and counted things. espeak-ng's
/// Korean voice reads Arabic digits the Sino way everywhere (and badly for hours), so the
/// prompts send Hangul (`spokenForm(of:)`).
public enum KoreanNumbers {
    private static let sinoDigits = ["영", "일", "이", "삼", "사", "오", "육", "칠", "팔", "구"]
    private static let smallUnits = ["", "십", "백", "천"]
    private static let largeUnits = ["", "만", "억", "조"]

    /// Sino-Korean reading: 0 → "영", 2 → "이", 30 → "삼십", 100 → "백", 1000 → "천",
    /// 10000 → "만", 12345 → "만 이천삼백사십오"; negative → "마이너스 …".
    public static func sino(_ n: Int) -> String {
        if n == 0 { return "영" }
        if n < 0 { return "마이너스 " + sino(n == .min ? .max : -n) }
        var groups: [String] = []
        var rest = n
        var groupIndex = 0
        while rest > 0 {
            let group = rest % 10_000
            rest /= 10_000
            if group > 0 {
                var text = fourDigits(group)
                // 10000 is "만", not "일만"; 100000000 is "일억" (as Koreans say it).
                if groupIndex == 1, group == 1 { text = "" }
                groups.insert(text + largeUnits[min(groupIndex, largeUnits.count - 1)], at: 0)
            }
            groupIndex += 1
        }
        return groups.joined(separator: " ")
    }

    /// 1…9999 in Sino-Korean, "일" dropped before 십/백/천 (10 → "십", 110 → "백십").
    private static func fourDigits(_ n: Int) -> String {
        var text = ""
        for position in stride(from: 3, through: 0, by: -1) {
            var power = 1
            for _ in 0..<position { power *= 10 }
            let digit = n / power % 10
            if digit == 0 { continue }
            if digit == 1, position > 0 {
                text += smallUnits[position]
            } else {
                text += sinoDigits[digit] + smallUnits[position]
            }
        }
        return text
    }

    /// Counters read with native numbers below 100 ("세 시간", "두 개", "한 곳", "두 번째"). Not
    /// 번 alone: an exit's number is sino ("삼번 출구").
    private static let nativeCounters = ["시간", "번째", "개", "명", "곳", "군데"]
    /// Words that begin with a native counter but count with sino numbers: "삼개월",
    /// "십개국", "일개소", "이개년".
    private static let sinoWords = ["개월", "개국", "개소", "개년"]

    private static let nativeOnes = ["", "한", "두", "세", "네", "다섯", "여섯", "일곱", "여덟", "아홉"]
    private static let nativeTens = ["", "열", "스물", "서른", "마흔", "쉰", "예순", "일흔", "여든", "아흔"]

    /// Native Korean as it stands before a counter or "시" (o'clock): 1 → "한", 2 → "두",
    /// 4 → "네", 12 → "열두", 20 → "스무", 21 → "스물한". Outside 1…99 Koreans switch to
    /// Sino-Korean, and so does this.
    public static func native(_ n: Int) -> String {
        guard (1...99).contains(n) else { return sino(n) }
        if n == 20 { return "스무" }
        return nativeTens[n / 10] + nativeOnes[n % 10]
    }

    /// Metres: 30 → "삼십 미터".
    public static func metres(_ n: Int) -> String { sino(n) + " 미터" }

    /// A Korean floor number (1 = ground floor): 2 → "이 층", -1 → "지하 일 층".
    public static func floor(_ n: Int) -> String { n < 0 ? "지하 " + sino(-n) + " 층" : sino(n) + " 층" }

    /// A clock direction: 2 → "두 시 방향", 12 → "열두 시 방향"; hours outside 1…12 wrap
    /// (0 → 12, 14 → 2).
    public static func clockDirection(_ hour: Int) -> String {
        let wrapped = ((hour - 1) % 12 + 12) % 12 + 1
        return native(wrapped) + " 시 방향"
    }

    /// `text` with every number written in Hangul the way a Korean reader would say it:
    /// "입구까지 30 미터" → "입구까지 삼십 미터", "2시 방향" → "두 시 방향", "3층" → "삼 층",
    /// "-1층" → "지하 일 층", "15m" → "십오 미터", "2.5" → "이 점 오".
    public static func spokenForm(of text: String) -> String {
        let characters = Array(text)
        var out = ""
        var index = 0
        func isDigit(_ i: Int) -> Bool {
            i < characters.count && characters[i].isASCII && characters[i].isNumber
        }
        func isLetter(_ i: Int) -> Bool { i < characters.count && characters[i].isLetter }
        /// Whether `i` starts "~N" or "-N" and N is followed by a native counter ("~3개").
        func rangeEndsInCounter(at i: Int) -> Bool {
            guard i < characters.count, characters[i] == "~" || characters[i] == "-", isDigit(i + 1) else {
                return false
            }
            var j = i + 1
            while isDigit(j) { j += 1 }
            while j < characters.count, characters[j] == " " { j += 1 }
            let rest = String(characters[j...])
            return nativeCounters.contains { rest.hasPrefix($0) }
                && !sinoWords.contains { rest.hasPrefix($0) }
        }
        /// The minutes of a clock time whose hour ends before `i`: ":MM", 00…59, no digit after.
        func clockMinutes(at i: Int) -> Int? {
            guard i + 2 < characters.count, characters[i] == ":", isDigit(i + 1), isDigit(i + 2),
                !isDigit(i + 3), let m = Int(String(characters[(i + 1)...(i + 2)])), m < 60
            else { return nil }
            return m
        }
        while index < characters.count {
            let negative =
                characters[index] == "-" && isDigit(index + 1)
                && (index == 0 || !(isDigit(index - 1) || isLetter(index - 1)))
            guard negative || isDigit(index) else {
                out.append(characters[index])
                index += 1
                continue
            }
            if negative { index += 1 }
            var digits = ""
            // A comma between digits groups thousands; `index` may already be past the end.
            while isDigit(index)
                || (index < characters.count && characters[index] == "," && isDigit(index + 1)
                    && !digits.isEmpty)
            {
                if characters[index] != "," { digits.append(characters[index]) }
                index += 1
            }
            var fraction = ""
            if index + 1 < characters.count, characters[index] == ".", isDigit(index + 1) {
                index += 1
                while isDigit(index) { fraction.append(characters[index]); index += 1 }
            }
            // Numbers too long for Int are read digit by digit.
            guard let value = Int(digits) else {
                out += digits.compactMap { $0.wholeNumberValue }.map { sinoDigits[$0] }.joined(separator: " ")
                continue
            }
            let signed = negative ? -value : value
            var after = index
            while after < characters.count, characters[after] == " " { after += 1 }
            func suffix(_ word: String) -> Bool {
                let letters = Array(word)
                guard after + letters.count <= characters.count,
                    Array(characters[after..<after + letters.count]) == letters
                else {
                    return false
                }
                return true
            }
            let readFraction =
                fraction.isEmpty
                ? "" : " 점 " + fraction.compactMap { $0.wholeNumberValue }.map { sinoDigits[$0] }.joined()
            let counter =
                fraction.isEmpty && (1...99).contains(signed) && !sinoWords.contains(where: suffix)
                ? nativeCounters.first(where: suffix) : nil
            if let counter {
                // "24시간" → "스물네 시간", "3개" → "세 개" (before, read as sino: "이십사시간");
                // the first is "첫 번째", not "한 번째".
                out += (counter == "번째" && signed == 1 ? "첫" : native(signed)) + " " + counter
                index = after + counter.count
            } else if fraction.isEmpty, (1...99).contains(signed), rangeEndsInCounter(at: index) {
                // "2~3개" → "두~세 개" (before, "이~세 개"): a range's first number counts too.
                out += native(signed)
            } else if fraction.isEmpty, !negative, (0...24).contains(value),
                let minutes = clockMinutes(at: index)
            {
                // "10:30" → "열 시 삼십 분" (before, "십:삼십").
                out += native(value) + " 시" + (minutes == 0 ? "" : " " + sino(minutes) + " 분")
                index += 3
            } else if fraction.isEmpty, suffix("시"), !suffix("시간") {
                out += native(signed) + " 시"
                index = after + 1
            } else if fraction.isEmpty, suffix("층") {
                out += floor(signed)
                index = after + 1
            } else if suffix("미터") {
                out += sino(signed) + readFraction + " 미터"
                index = after + 2
            } else if suffix("km"), !isLetter(after + 2) {
                out += sino(signed) + readFraction + " 킬로미터"
                index = after + 2
            } else if suffix("m"), !isLetter(after + 1) {
                out += sino(signed) + readFraction + " 미터"
                index = after + 1
            } else if fraction.isEmpty, digits.count > 1, digits.first == "0" {
                // A label's zeros are part of it: level "01" → "영 일", "007" → "영 영 칠"
                // (before, "일" and "칠", as if the label were 1 or 7).
                out +=
                    (negative ? "마이너스 " : "")
                    + digits.compactMap { $0.wholeNumberValue }.map { sinoDigits[$0] }.joined(separator: " ")
            } else {
                // "-0" keeps its sign: a level label, not the number 0 (before, "영").
                out += (negative && value == 0 ? "마이너스 " : "") + sino(signed) + readFraction
            }
        }
        return out
    }
}
