import Diagnostics

/// The command line after the command's name, taken apart by hand in this one place.
///
/// Usage: read options and flags first (`option`, `flag`, …), then `positionals()`, then
/// `finish()`, which rejects anything left over so a typo never passes silently.
/// Accepts `--name value` and `--name=value`; `--` ends options.
package struct Arguments: Sendable {
    private var items: [String]
    private var afterDashDash: [String] = []
    /// The command's words so far, for messages ("pathfinder memory confirm").
    package let command: String

    package init(_ argv: [String], command: String) {
        self.command = command
        if let i = argv.firstIndex(of: "--") {
            items = Array(argv[..<i])
            afterDashDash = Array(argv[(i + 1)...])
        } else {
            items = argv
        }
    }

    /// Whether `--help` or `-h` was given.
    package var wantsHelp: Bool { items.contains("--help") || items.contains("-h") }

    /// The value of `--name VALUE` or `--name=VALUE`, removed from the list; `nil` if absent.
    /// - Throws: `CLIError.usage` if the option is given without a value or twice.
    package mutating func option(_ name: String) throws(CLIError) -> String? {
        var found: String?
        var i = 0
        while i < items.count {
            let item = items[i]
            var value: String?
            if item == name {
                guard i + 1 < items.count else {
                    throw .usage("\(command): \(name) needs a value")
                }
                // A flag where the value should be (`--device --baud 4800`): the value was
                // forgotten (before, "--baud" became the device, and "4800" an unknown argument).
                // A value that really starts with "--" can follow `=` (`--name=--x`).
                let next = items[i + 1]
                guard !next.hasPrefix("--") else {
                    throw .usage("\(command): \(name) needs a value (the next argument is \(next))")
                }
                value = next
                items.removeSubrange(i...(i + 1))
            } else if item.hasPrefix(name + "=") {
                value = String(item.dropFirst(name.count + 1))
                items.remove(at: i)
            } else {
                i += 1
                continue
            }
            if found != nil { throw .usage("\(command): \(name) given twice") }
            // No option takes an empty value (before, `--file=` was a file named "", read as
            // missing: `memory show` printed an empty memory, `confirm` failed at the rename).
            if value?.isEmpty == true { throw .usage("\(command): \(name) is empty (it needs a value)") }
            found = value
        }
        return found
    }

    /// A required option's value.
    package mutating func required(_ name: String) throws(CLIError) -> String {
        guard let value = try option(name) else { throw .usage("\(command): \(name) is required") }
        return value
    }

    /// An option parsed by `parse`, which returns `nil` for a bad value.
    /// - Parameter expected: what a good value looks like, for the message.
    package mutating func option<T>(
        _ name: String, expected: String, _ parse: (String) -> T?
    ) throws(CLIError) -> T? {
        guard let raw = try option(name) else { return nil }
        guard let value = parse(raw) else {
            throw .usage("\(command): \(name) \"\(raw)\" is not \(expected)")
        }
        return value
    }

    /// Whether `--name` is present (removed from the list).
    package mutating func flag(_ name: String) throws(CLIError) -> Bool {
        let count = items.count(where: { $0 == name })
        if items.contains(where: { $0.hasPrefix(name + "=") }) {
            throw .usage("\(command): \(name) takes no value")
        }
        if count > 1 { throw .usage("\(command): \(name) given twice") }
        items.removeAll { $0 == name }
        return count == 1
    }

    /// The first argument when it is a word (a subcommand such as `memory confirm`'s
    /// "confirm"), removed from the list; `nil` when there is none or it is an option.
    package mutating func subcommand() -> String? {
        guard let first = items.first, !first.hasPrefix("-") else { return nil }
        items.removeFirst()
        return first
    }

    /// The arguments left that are not options, removed from the list. Anything starting
    /// with `-` (other than a negative number) is left for `finish()` to reject.
    package mutating func positionals() -> [String] {
        // A number ("-5") or text that starts with one ("-1층", say's own example) is a word:
        // no option starts with a digit.
        let isOption: (String) -> Bool = {
            $0.hasPrefix("-") && !($0.dropFirst().first?.isNumber ?? false) && Double($0) == nil
        }
        let words = items.filter { !isOption($0) }
        items.removeAll { !isOption($0) }
        defer { afterDashDash = [] }
        return words + afterDashDash
    }

    /// Exactly `count` positionals, named in `names` for the message.
    package mutating func positionals(exactly names: [String]) throws(CLIError) -> [String] {
        let words = positionals()
        guard words.count == names.count else {
            throw .usage(
                "\(command): expected \(names.map { "<\($0)>" }.joined(separator: " ")), got \(words.count) argument\(words.count == 1 ? "" : "s")"
            )
        }
        return words
    }

    /// Everything not consumed yet, in order (a subcommand parses these itself).
    package var remaining: [String] { afterDashDash.isEmpty ? items : items + ["--"] + afterDashDash }

    /// Fails on anything not consumed.
    package func finish() throws(CLIError) {
        if let first = items.first ?? afterDashDash.first {
            throw .usage("\(command): unknown argument \"\(first)\"")
        }
    }
}

extension Arguments {
    /// A number as people write one: ``DecimalText/decimal(_:)`` ("12", "-0.5"; not "0x10",
    /// "1e2", "inf", "nan").
    package static func decimal(_ text: some StringProtocol) -> Double? { DecimalText.decimal(text) }

    /// Whether `field` is spelled as ``decimal(_:)`` reads (``DecimalText/isDecimal(_:)``).
    static func isDecimal(_ field: some Collection<UInt8>) -> Bool { DecimalText.isDecimal(field) }

    /// Parses "LAT,LON" in degrees.
    package static func coordinate(_ text: String) -> (Double, Double)? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2,
            let lat = decimal(parts[0].trimmingWhitespace()),
            let lon = decimal(parts[1].trimmingWhitespace()),
            abs(lat) <= 90, abs(lon) <= 180
        else { return nil }
        return (lat, lon)
    }
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
