public import Geo

#if canImport(Glibc)
    import Glibc
#endif

/// One OSM element from a stream. Ways carry their nodes' locations when the stream has
/// them (osmium's `add-locations-to-ways`): nil for a node missing from the extract.
public enum OSMElement: Sendable, Hashable {
    case node(OSMNode)
    case way(OSMWay, locations: [Coordinate?])
    case relation(OSMRelation)
}

/// Reads osmium's OPL (one element a line) from a file descriptor as a stream: a line is
/// parsed, handed on and forgotten, so memory does not grow with the input.
///
/// The format (docs.osmcode.org/opl-file-format): `n12 Tk=v,k2=v2 x24.94 y60.17`,
/// `w5 Tbuilding=yes Nn1x24.9y60.1,n2x…`, `r7 Ttype=multipolygon Mw5@outer,w6@inner`;
/// metadata fields (`v`, `c`, `t`, `i`, `u`, `d`) are skipped. Characters outside plain
/// ASCII punctuation and letters are escaped as `%hex%` (their code point).
public struct OPLReader {
    /// Names the stream in errors ("Seoul.osm.pbf (osmium's OPL output)").
    public let path: String
    /// Lines read so far.
    public private(set) var line = 0

    public init(path: String) { self.path = path }

    /// Reads `fd` to its end, calling `body` with each element in stream order.
    /// - Throws: `OSMError` naming the line and element of a malformed line; whatever
    ///   `body` throws.
    public mutating func read(fd: Int32, _ body: (OSMElement) throws -> Void) throws {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var filled = 0
        while true {
            if filled == buffer.count { buffer += [UInt8](repeating: 0, count: buffer.count) }
            let n = buffer.withUnsafeMutableBytes { raw in
                Glibc.read(fd, raw.baseAddress! + filled, raw.count - filled)
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw OSMError(
                    path: path, line: line, reason: "cannot read: \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            filled += n
            var start = 0
            try buffer.withUnsafeBufferPointer { all in
                while let end = all[start..<filled].firstIndex(of: UInt8(ascii: "\n")) {
                    line += 1
                    if end > start {
                        try body(try parse(UnsafeBufferPointer(rebasing: all[start..<end])))
                    }
                    start = end + 1
                }
            }
            if start > 0 {
                buffer.withUnsafeMutableBufferPointer { b in
                    b.baseAddress!.update(from: b.baseAddress! + start, count: filled - start)
                }
                filled -= start
            }
        }
        if filled > 0 {
            // osmium ends every line; a last line without one means the stream was cut.
            line += 1
            throw OSMError(path: path, line: line, reason: "the stream ends inside a line (cut short?)")
        }
    }

    /// Parses one line (without its newline).
    public func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(OSMError) -> OSMElement {
        var cursor = Cursor(bytes: bytes)
        let type = cursor.next()
        guard let id = cursor.integer() else {
            throw error(nil, "expected n, w or r and a numeric id at the start")
        }
        // The element's name is made only for an error: formatting it for every line cost
        // more than parsing most lines.
        let name: Name
        switch type {
        case UInt8(ascii: "n"): name = Name(type: "node", id: id)
        case UInt8(ascii: "w"): name = Name(type: "way", id: id)
        case UInt8(ascii: "r"): name = Name(type: "relation", id: id)
        default: throw error(nil, "unknown element type \"\(Character(Unicode.Scalar(type)))\"")
        }
        var tags: [String: String] = [:]
        var x: Int64?
        var y: Int64?
        var nodeIDs: [Int64] = []
        var locations: [Coordinate?] = []
        var members: [OSMMember] = []
        while !cursor.atEnd {
            guard cursor.peek() == UInt8(ascii: " ") else {
                throw error(name, "expected a space at byte \(cursor.at)")
            }
            cursor.at += 1
            let field = cursor.next()
            switch field {
            case UInt8(ascii: "T"):
                // Room for a building's usual tags at once, rather than growing 1, 2, 4, 8.
                if !cursor.atEnd && cursor.peek() != UInt8(ascii: " ") { tags.reserveCapacity(8) }
                while !cursor.atEnd && cursor.peek() != UInt8(ascii: " ") {
                    guard let key = cursor.string(until: UInt8(ascii: "=")),
                        cursor.next() == UInt8(ascii: "=")
                    else {
                        throw error(name, "a tag without \"=\"")
                    }
                    guard let value = cursor.string(until: UInt8(ascii: ",")) else {
                        throw error(name, "bad %-escape in the value of tag \(key)")
                    }
                    tags[key] = value
                    if cursor.peek() == UInt8(ascii: ",") { cursor.at += 1 }
                }
            case UInt8(ascii: "x"):
                x = cursor.fixed7()
                if x == nil && !cursor.atEnd && cursor.peek() != UInt8(ascii: " ") {
                    throw error(name, "bad x")
                }
            case UInt8(ascii: "y"):
                y = cursor.fixed7()
                if y == nil && !cursor.atEnd && cursor.peek() != UInt8(ascii: " ") {
                    throw error(name, "bad y")
                }
            case UInt8(ascii: "N"):
                let count = cursor.count(of: UInt8(ascii: ","), before: UInt8(ascii: " ")) + 1
                nodeIDs.reserveCapacity(count)
                locations.reserveCapacity(count)
                while !cursor.atEnd && cursor.peek() != UInt8(ascii: " ") {
                    guard cursor.next() == UInt8(ascii: "n"), let ref = cursor.integer() else {
                        throw error(name, "bad node reference at byte \(cursor.at)")
                    }
                    nodeIDs.append(ref)
                    var location: Coordinate?
                    if cursor.peek() == UInt8(ascii: "x") {
                        cursor.at += 1
                        let lon = cursor.fixed7()
                        guard cursor.next() == UInt8(ascii: "y") else {
                            throw error(name, "node \(ref): x without y")
                        }
                        let lat = cursor.fixed7()
                        if let lon, let lat { location = try coordinate(lat, lon, name) }
                    }
                    locations.append(location)
                    if cursor.peek() == UInt8(ascii: ",") { cursor.at += 1 }
                }
            case UInt8(ascii: "M"):
                while !cursor.atEnd && cursor.peek() != UInt8(ascii: " ") {
                    let t = cursor.next()
                    guard let ref = cursor.integer(), cursor.next() == UInt8(ascii: "@"),
                        let role = cursor.string(until: UInt8(ascii: ","))
                    else { throw error(name, "bad member at byte \(cursor.at)") }
                    let memberType =
                        switch t {
                        case UInt8(ascii: "n"): "node"
                        case UInt8(ascii: "w"): "way"
                        default: "relation"
                        }
                    members.append(OSMMember(type: memberType, ref: ref, role: role))
                    if cursor.peek() == UInt8(ascii: ",") { cursor.at += 1 }
                }
            default:
                // Metadata (version, changeset, timestamp, user): not needed.
                while !cursor.atEnd && cursor.peek() != UInt8(ascii: " ") { cursor.at += 1 }
            }
        }
        switch type {
        case UInt8(ascii: "n"):
            guard let x, let y else { throw error(name, "a node without a location (x and y)") }
            return .node(OSMNode(id: id, coordinate: try coordinate(y, x, name), tags: tags))
        case UInt8(ascii: "w"):
            return .way(OSMWay(id: id, nodeIDs: nodeIDs, tags: tags), locations: locations)
        default:
            return .relation(OSMRelation(id: id, members: members, tags: tags))
        }
    }

    /// An element as errors name it ("way 5").
    private struct Name {
        var type: StaticString
        var id: Int64
        var text: String { "\(type) \(id)" }
    }

    private func coordinate(_ lat: Int64, _ lon: Int64, _ name: Name) throws(OSMError) -> Coordinate {
        // An exact integer over an exact power of ten: the same double as parsing the decimal.
        let c = Coordinate(latitude: Double(lat) / 1e7, longitude: Double(lon) / 1e7)
        guard c.isValid else {
            throw error(name, "lat/lon \(c.latitude),\(c.longitude) out of range")
        }
        return c
    }

    private func error(_ element: Name?, _ reason: String) -> OSMError {
        OSMError(path: path, line: line, element: element?.text, reason: reason)
    }
}

/// A read position in one line.
private struct Cursor {
    let bytes: UnsafeBufferPointer<UInt8>
    var at = 0

    var atEnd: Bool { at >= bytes.count }
    func peek() -> UInt8 { at < bytes.count ? bytes[at] : 0 }

    mutating func next() -> UInt8 {
        defer { at += 1 }
        return peek()
    }

    /// How many `byte`s lie between here and the next `stop` (or the end).
    func count(of byte: UInt8, before stop: UInt8) -> Int {
        var n = 0
        var i = at
        while i < bytes.count && bytes[i] != stop {
            if bytes[i] == byte { n += 1 }
            i += 1
        }
        return n
    }

    /// An optionally negative decimal integer.
    mutating func integer() -> Int64? {
        var negative = false
        if peek() == UInt8(ascii: "-") {
            negative = true
            at += 1
        }
        var value: Int64 = 0
        let start = at
        while at < bytes.count, bytes[at] >= 48, bytes[at] <= 57, at - start < 18 {
            value = value * 10 + Int64(bytes[at] - 48)
            at += 1
        }
        guard at > start else { return nil }
        return negative ? -value : value
    }

    /// A decimal number in units of 1e-7 (osmium writes at most seven decimals); nil when
    /// the field is empty (a node without a location).
    mutating func fixed7() -> Int64? {
        let start = at
        var negative = false
        if peek() == UInt8(ascii: "-") {
            negative = true
            at += 1
        }
        var whole: Int64 = 0
        while at < bytes.count, bytes[at] >= 48, bytes[at] <= 57, whole < 1_000 {
            whole = whole * 10 + Int64(bytes[at] - 48)
            at += 1
        }
        var fraction: Int64 = 0
        var digits = 0
        if peek() == UInt8(ascii: ".") {
            at += 1
            while at < bytes.count, bytes[at] >= 48, bytes[at] <= 57 {
                if digits < 7 {
                    fraction = fraction * 10 + Int64(bytes[at] - 48)
                    digits += 1
                }
                at += 1
            }
        }
        guard at > start + (negative ? 1 : 0) else { return nil }
        while digits < 7 {
            fraction *= 10
            digits += 1
        }
        let magnitude = whole * 10_000_000 + fraction
        return negative ? -magnitude : magnitude
    }

    /// Text up to `stop`, a space or the end, with `%hex%` escapes decoded; nil on a bad
    /// escape.
    mutating func string(until stop: UInt8) -> String? {
        // Most keys and values have no escape: one String straight from the line's bytes
        // (stored inline when short) instead of a byte array first.
        let start = at
        while at < bytes.count {
            let b = bytes[at]
            if b == stop || b == UInt8(ascii: " ") || (stop == UInt8(ascii: "=") && b == UInt8(ascii: ",")) {
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)
            }
            if b == UInt8(ascii: "%") { break }
            at += 1
        }
        if at == bytes.count {
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)
        }
        var out = Array(UnsafeBufferPointer(rebasing: bytes[start..<at]))
        while at < bytes.count {
            let b = bytes[at]
            // A key also ends at "," (malformed, caught by the caller).
            if b == stop || b == UInt8(ascii: " ") || (stop == UInt8(ascii: "=") && b == UInt8(ascii: ",")) {
                break
            }
            if b == UInt8(ascii: "%") {
                at += 1
                var code: UInt32 = 0
                var n = 0
                while at < bytes.count, bytes[at] != UInt8(ascii: "%") {
                    guard let digit = hex(bytes[at]), n < 6 else { return nil }
                    code = code << 4 | digit
                    n += 1
                    at += 1
                }
                guard at < bytes.count, n > 0, let scalar = Unicode.Scalar(code) else { return nil }
                at += 1
                UTF8.encode(scalar) { out.append($0) }
                continue
            }
            out.append(b)
            at += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    private func hex(_ b: UInt8) -> UInt32? {
        switch b {
        case 48...57: UInt32(b - 48)
        case 97...102: UInt32(b - 87)
        case 65...70: UInt32(b - 55)
        default: nil
        }
    }
}
