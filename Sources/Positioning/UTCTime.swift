import Foundation

/// UTC calendar arithmetic without time zones or formatters: deterministic and fast.
enum UTCTime {
    /// Days since 1970-01-01 for a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// (year, month, day) for days since 1970-01-01.
    static func civil(days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func isValid(year: Int, month: Int, day: Int) -> Bool {
        guard (1..<13).contains(month), day >= 1, (1900...2199).contains(year) else { return false }
        let lengths = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        return day <= lengths[month - 1] + (month == 2 && leap ? 1 : 0)
    }

    /// The last millisecond of a day, 23:59:59.999: a leap second, 23:59:60.x, reads as it, so
    /// time never goes back. (Before, as the next day's 00:00:00.x, and the real 00:00:00.0
    /// after it went back; Foundation's `Date` has no leap seconds to hold it.)
    static let lastMillisecondOfDay = 86_399_999

    /// The date for `days` since 1970 plus `milliseconds` into that day; a leap second's
    /// (86 400 000 and more) is the day's last millisecond.
    static func date(days: Int, milliseconds: Int) -> Date {
        let ms = min(milliseconds, lastMillisecondOfDay)
        return Date(timeIntervalSince1970: Double(days) * 86_400 + Double(ms) / 1000)
    }

    /// ISO 8601 UTC with a `Z`; milliseconds only when the time has a fraction, so whole
    /// seconds stay readable by Foundation's plain `.iso8601` decoder.
    static func iso8601(_ date: Date) -> String {
        let totalMs = Int((date.timeIntervalSince1970 * 1000).rounded())
        let days = Int((Double(totalMs) / 86_400_000).rounded(.down))
        let msOfDay = totalMs - days * 86_400_000
        let (y, mo, d) = civil(days: days)
        let h = msOfDay / 3_600_000
        let mi = msOfDay / 60_000 % 60
        let s = msOfDay / 1000 % 60
        let ms = msOfDay % 1000
        func pad(_ v: Int, _ n: Int) -> String {
            let t = String(v)
            return String(repeating: "0", count: max(0, n - t.count)) + t
        }
        let base = "\(pad(y, 4))-\(pad(mo, 2))-\(pad(d, 2))T\(pad(h, 2)):\(pad(mi, 2)):\(pad(s, 2))"
        return ms == 0 ? base + "Z" : base + "." + pad(ms, 3) + "Z"
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fff]Z` (gpsd's form); `nil` for anything else. A leap
    /// second, `23:59:60[.fff]`, is 23:59:59.999 (``lastMillisecondOfDay``).
    static func parseISO8601(_ text: String) -> Date? {
        let b = Array(text.utf8)
        guard b.count >= 20, b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54, b[13] == 0x3A, b[16] == 0x3A,
            b.last == 0x5A
        else { return nil }
        func num(_ r: Range<Int>) -> Int? {
            var v = 0
            for i in r {
                guard (0x30...0x39).contains(b[i]) else { return nil }
                v = v * 10 + Int(b[i] - 0x30)
            }
            return v
        }
        guard let y = num(0..<4), let mo = num(5..<7), let d = num(8..<10), let h = num(11..<13),
            let mi = num(14..<16), let s = num(17..<19), isValid(year: y, month: mo, day: d), h < 24, mi < 60,
            s < 60 || (s == 60 && h == 23 && mi == 59)
        else { return nil }
        var fraction = 0.0
        if b[19] == 0x2E {
            var scale = 0.1
            for i in 20..<(b.count - 1) {
                guard (0x30...0x39).contains(b[i]) else { return nil }
                fraction += Double(b[i] - 0x30) * scale
                scale /= 10
            }
        } else if b.count != 20 {
            return nil
        }
        let day = days(year: y, month: mo, day: d)
        if s == 60 { return date(days: day, milliseconds: lastMillisecondOfDay) }
        let seconds = Double(day) * 86_400 + Double(h * 3600 + mi * 60 + s)
        return Date(timeIntervalSince1970: seconds + fraction)
    }
}
