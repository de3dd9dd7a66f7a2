/// Numbers on a command line as people write them, checked in one place for every program
/// (`pathfinder`'s `Arguments`, VoiceEval's flags).
package enum DecimalText {
    /// A number as people write one: an optional sign, digits, at most one point ("12",
    /// "-0.5", "+3."). `Double(String)` also reads "0x10" as 16, "1e2" as 100, "inf" and
    /// "nan", none of which anyone means as seconds, metres or degrees: nil for those.
    package static func decimal(_ text: some StringProtocol) -> Double? {
        isDecimal(text.utf8) ? Double(String(text)) : nil
    }

    /// Whether `field` is spelled as ``decimal(_:)`` reads: an optional sign, digits, at most
    /// one point.
    package static func isDecimal(_ field: some Collection<UInt8>) -> Bool {
        var digits = 0
        var point = false
        for (offset, byte) in field.enumerated() {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits += 1
            case UInt8(ascii: "."):
                if point { return false }
                point = true
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                if offset != 0 { return false }
            default: return false
            }
        }
        return digits > 0
    }
}
