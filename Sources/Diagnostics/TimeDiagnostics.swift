/// Times that parse but name no moment: Foundation's ISO 8601 parser is lenient and moves
/// "2025-02-30" to 2 March and "T25:08" to the next day, without a word.
public enum TimeDiagnostics {
    /// What is impossible in the calendar fields of an ISO 8601 time ("2025-02-30T10:08:24Z"):
    /// "day 30 is not in month 2 of 2025", "hour 25 is not 0…23"; nil when they are possible
    /// (or the text has no such fields to read: the parser's own check speaks for those).
    public static func calendarFault(in text: String) -> String? {
        let b = Array(text.utf8)
        guard b.count >= 19, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"), b[13] == UInt8(ascii: ":"),
            b[16] == UInt8(ascii: ":")
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for i in range {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b[i]) else { return nil }
                value = value * 10 + Int(b[i] - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19)
        else { return nil }
        guard (1...12).contains(month) else { return "month \(month) is not 1…12" }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        guard (1...days).contains(day) else {
            return "day \(day) is not in month \(month) of \(year) (1…\(days))"
        }
        guard hour <= 23 else { return "hour \(hour) is not 0…23" }
        guard minute <= 59 else { return "minute \(minute) is not 0…59" }
        guard second <= 60 else { return "second \(second) is not 0…60" }
        return nil
    }
}
