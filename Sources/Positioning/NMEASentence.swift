/// One checksum-valid NMEA sentence as fields over its bytes (no `$`, no `*hh`).
///
/// Accessors return `nil` for empty or malformed fields and for values outside their valid
/// range, so everything built from them is valid by construction.
struct NMEASentence {
    let bytes: [UInt8]
    /// Byte ranges of the comma-separated fields; field 0 is the address (`GPRMC`).
    let fields: [Range<Int>]

    var count: Int { fields.count }

    func isEmpty(_ i: Int) -> Bool { i >= fields.count || fields[i].isEmpty }

    /// The field's only character, or `nil` when empty or longer.
    func char(_ i: Int) -> UInt8? {
        guard i < fields.count, fields[i].count == 1 else { return nil }
        return bytes[fields[i].lowerBound]
    }

    func string(_ i: Int) -> String? {
        guard i < fields.count else { return nil }
        return String(decoding: bytes[fields[i]], as: UTF8.self)
    }

    /// A plain decimal number (`-12.5`, `0093.4`); no exponents, no spaces.
    func double(_ i: Int) -> Double? {
        guard i < fields.count else { return nil }
        return NMEASentence.decimal(bytes[fields[i]])
    }

    /// A non-negative integer of at most 9 digits.
    func int(_ i: Int) -> Int? {
        guard i < fields.count, (1...9).contains(fields[i].count) else { return nil }
        var v = 0
        for b in bytes[fields[i]] {
            guard b >= 0x30, b <= 0x39 else { return nil }
            v = v * 10 + Int(b - 0x30)
        }
        return v
    }

    /// `hhmmss[.sss]` as milliseconds since midnight.
    func timeOfDay(_ i: Int) -> Int? {
        guard i < fields.count else { return nil }
        let r = fields[i]
        guard r.count >= 6 else { return nil }
        var digits = [Int](repeating: 0, count: 6)
        for k in 0..<6 {
            let b = bytes[r.lowerBound + k]
            guard b >= 0x30, b <= 0x39 else { return nil }
            digits[k] = Int(b - 0x30)
        }
        let h = digits[0] * 10 + digits[1]
        let m = digits[2] * 10 + digits[3]
        let s = digits[4] * 10 + digits[5]
        // 23:59:60 is a leap second, kept as 86 400 000 ms and more so its epoch stays distinct
        // from its neighbours (`UTCTime.date` reads it as 23:59:59.999); 60 in another minute
        // is no time.
        guard h < 24, m < 60, s < 60 || (s == 60 && h == 23 && m == 59) else { return nil }
        var ms = 0
        if r.count > 6 {
            guard bytes[r.lowerBound + 6] == 0x2E,
                let fraction = NMEASentence.decimal(bytes[(r.lowerBound + 6)..<r.upperBound])
            else {
                return nil
            }
            ms = Int((fraction * 1000).rounded())
            if ms >= 1000 { ms = 999 }
        }
        return ((h * 60 + m) * 60 + s) * 1000 + ms
    }

    /// `ddmm.mmmm` (latitude) or `dddmm.mmmm` (longitude) with its hemisphere letter in the
    /// next field, as signed degrees; `nil` if empty, malformed or out of range.
    func angle(_ i: Int, max: Double, positive: UInt8, negative: UInt8) -> Double? {
        guard let raw = double(i), raw >= 0, let hemisphere = char(i + 1) else { return nil }
        let degrees = (raw / 100).rounded(.down)
        let minutes = raw - degrees * 100
        guard minutes < 60 else { return nil }
        let value = degrees + minutes / 60
        guard value <= max else { return nil }
        switch hemisphere {
        case positive: return value
        case negative: return -value
        default: return nil
        }
    }

    func latitude(_ i: Int) -> Double? { angle(i, max: 90, positive: 0x4E, negative: 0x53) }  // N S
    func longitude(_ i: Int) -> Double? { angle(i, max: 180, positive: 0x45, negative: 0x57) }  // E W

    private static let powersOfTen: [Double] = (0...18).map { p in
        var v = 1.0
        for _ in 0..<p { v *= 10 }
        return v
    }

    /// Parses `[-+]digits[.digits]`. Exact for up to 15 significant digits (integer mantissa
    /// divided once by an exact power of ten, which rounds correctly); longer goes through
    /// the standard library.
    static func decimal(_ s: ArraySlice<UInt8>) -> Double? {
        var i = s.startIndex
        guard i < s.endIndex else { return nil }
        var negative = false
        if s[i] == 0x2D || s[i] == 0x2B {
            negative = s[i] == 0x2D
            i += 1
        }
        var mantissa = 0
        var significant = 0
        var fractionDigits = 0
        var anyDigit = false
        var seenPoint = false
        while i < s.endIndex {
            let b = s[i]
            if b == 0x2E {
                if seenPoint { return nil }
                seenPoint = true
            } else if b >= 0x30, b <= 0x39 {
                anyDigit = true
                if mantissa > 0 || b != 0x30 { significant += 1 }
                if seenPoint { fractionDigits += 1 }
                if significant > 15 || fractionDigits >= powersOfTen.count {
                    return slowDecimal(s)
                }
                mantissa = mantissa * 10 + Int(b - 0x30)
            } else {
                return nil
            }
            i += 1
        }
        // "." and "-" alone are not numbers.
        guard anyDigit else { return nil }
        let value = Double(mantissa) / powersOfTen[fractionDigits]
        return negative ? -value : value
    }

    private static func slowDecimal(_ s: ArraySlice<UInt8>) -> Double? {
        // Only digits, one point and a leading sign: no exponent, "inf" or "nan" sneaks in.
        let body = s.first == 0x2D || s.first == 0x2B ? s.dropFirst() : s
        guard body.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E }),
            body.count(where: { $0 == 0x2E }) <= 1
        else { return nil }
        return Double(String(decoding: s, as: UTF8.self))
    }
}
