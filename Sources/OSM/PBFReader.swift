import Geo

#if canImport(Glibc)
    import Glibc
#endif

/// Reads osmium's uncompressed `.osm.pbf` output from a file descriptor as a stream: one
/// block (up to 8 000 elements) is parsed, handed on element by element and forgotten, so
/// memory does not grow with the input.
///
/// The format (wiki.openstreetmap.org/wiki/PBF_Format; osmium's `protobuf_tags.hpp`): a
/// 4-byte big-endian length, a `BlobHeader` ("OSMHeader" or "OSMData" and the blob's size),
/// the `Blob`; an "OSMData" blob is a `PrimitiveBlock` of string table, groups of dense
/// nodes, ways and relations, and the coordinates' granularity and offset. Ways carry their
/// nodes' locations when osmium wrote them (`locations_on_ways`, its
/// `add-locations-to-ways`); a node missing from the extract has none.
///
/// Only raw blobs are read — osmium's `pbf_compression=none`, which the import asks for:
/// compressing only to decompress on the other end of a pipe costs time. Metadata (versions,
/// users, timestamps) is skipped. Tag keys and values come from each block's string table,
/// made into `String`s once a block rather than once a tag.
public struct PBFReader {
    /// Names the stream in errors ("Seoul.osm.pbf (osmium's output)").
    public let path: String
    /// Blocks read so far (the header block included).
    public private(set) var block = 0
    /// When set, every node's location is kept in it, ways that come without locations take
    /// theirs from it, and untagged nodes are not handed on: osmium's `add-locations-to-ways`
    /// done while reading. Emptied at the first relation.
    package var nodeLocations: NodeLocations?
    /// When set, a node without a location is skipped as a deleted version: osmium writes one
    /// so in a history file, and a history file whose mark a conversion lost (`osmium cat
    /// x.osh.pbf -o x.osm.pbf`) keeps no other sign of the deletion; `osmium time-filter`
    /// then hands it on as the node's last version. Elsewhere it is damage, and said.
    package var placelessNodesAreDeleted = false

    public init(path: String) { self.path = path }

    /// The largest `BlobHeader` and blob the format allows (64 kB and 32 MB).
    static let maxHeader = 64 << 10
    static let maxBlob = 32 << 20
    /// Features a reader must understand; osmium's output needs no others.
    static let knownFeatures: Set<String> = ["OsmSchema-V0.6", "DenseNodes"]

    /// Reads `fd` to its end, calling `body` with each element in stream order.
    /// - Throws: `OSMError` naming the block (and element) of malformed or cut input;
    ///   whatever `body` throws.
    public mutating func read(fd: Int32, _ body: (OSMElement) throws -> Void) throws {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let size = try fill(fd, &buffer, count: 4)
            if size == 0 { return }
            guard size == 4 else { throw error(nil, "the stream ends inside a block's length (cut short?)") }
            block += 1
            let headerLength = buffer[0..<4].reduce(0) { $0 << 8 | Int($1) }
            guard headerLength <= Self.maxHeader else {
                throw error(nil, "a block header of \(headerLength) bytes (at most \(Self.maxHeader))")
            }
            guard try fill(fd, &buffer, count: headerLength) == headerLength else {
                throw error(nil, "the stream ends inside a block header (cut short?)")
            }
            let (type, dataSize) = try buffer.withUnsafeBytes { raw in
                try header(Wire(raw, 0, headerLength))
            }
            guard dataSize <= Self.maxBlob else {
                throw error(nil, "a block of \(dataSize) bytes (at most \(Self.maxBlob))")
            }
            guard try fill(fd, &buffer, count: dataSize) == dataSize else {
                throw error(nil, "the stream ends inside a block (cut short?)")
            }
            try buffer.withUnsafeBytes { raw in
                let data = try blob(Wire(raw, 0, dataSize))
                switch type {
                case "OSMHeader": try headerBlock(data)
                case "OSMData": try primitiveBlock(data, body)
                // The format says to skip blocks of other types.
                default: break
                }
            }
        }
    }

    /// Reads exactly `count` bytes into the start of `buffer` (grown if needed), or fewer at
    /// the end of the stream; returns how many.
    private func fill(_ fd: Int32, _ buffer: inout [UInt8], count: Int) throws(OSMError) -> Int {
        if buffer.count < count { buffer = [UInt8](repeating: 0, count: count) }
        var filled = 0
        while filled < count {
            let n = buffer.withUnsafeMutableBytes { raw in
                Glibc.read(fd, raw.baseAddress! + filled, count - filled)
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw error(nil, "cannot read: \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            filled += n
        }
        return filled
    }

    /// The `BlobHeader`: the blob's type and size.
    private func header(_ wire: Wire) throws(OSMError) -> (type: String, size: Int) {
        var wire = wire
        var type: String?
        var size: Int?
        while !wire.atEnd {
            let (field, kind) = try key(&wire)
            switch (field, kind) {
            case (1, 2): type = String(decoding: try bytes(&wire).buffer, as: UTF8.self)
            case (3, 0): size = Int(try varint(&wire))
            default: try skip(&wire, kind)
            }
        }
        guard let type, let size, size >= 0 else { throw error(nil, "a block header without type or size") }
        return (type, size)
    }

    /// A `Blob`'s data: raw only.
    private func blob(_ wire: Wire) throws(OSMError) -> Wire {
        var wire = wire
        var raw: Wire?
        while !wire.atEnd {
            let (field, kind) = try key(&wire)
            switch (field, kind) {
            case (1, 2): raw = try bytes(&wire)
            case (3, 2), (4, 2), (6, 2), (7, 2):
                throw error(
                    nil, "a compressed block: only uncompressed PBF is read (osmium's pbf_compression=none)")
            default: try skip(&wire, kind)
            }
        }
        guard let raw else { throw error(nil, "a block without data") }
        return raw
    }

    /// The `HeaderBlock`: refuses data that needs a feature this reader lacks.
    private func headerBlock(_ wire: Wire) throws(OSMError) {
        var wire = wire
        while !wire.atEnd {
            let (field, kind) = try key(&wire)
            if field == 4 && kind == 2 {
                let feature = String(decoding: try bytes(&wire).buffer, as: UTF8.self)
                guard Self.knownFeatures.contains(feature) else {
                    throw error(nil, "the file needs the feature \"\(feature)\", which this reader lacks")
                }
            } else {
                try skip(&wire, kind)
            }
        }
    }

    /// A `PrimitiveBlock`: its string table and coordinate scale first (they may come after
    /// the groups), then the groups in order.
    private func primitiveBlock(_ wire: Wire, _ body: (OSMElement) throws -> Void) throws {
        var wire = wire
        var strings: [String] = []
        var groups: [Wire] = []
        var scale = Scale()
        while !wire.atEnd {
            let (field, kind) = try key(&wire)
            switch (field, kind) {
            case (1, 2):
                var table = try bytes(&wire)
                while !table.atEnd {
                    let (field, kind) = try key(&table)
                    guard field == 1 && kind == 2 else {
                        try skip(&table, kind)
                        continue
                    }
                    strings.append(String(decoding: try bytes(&table).buffer, as: UTF8.self))
                }
            case (2, 2): groups.append(try bytes(&wire))
            case (17, 0): scale.granularity = Int64(truncatingIfNeeded: try varint(&wire))
            case (19, 0): scale.latOffset = Int64(bitPattern: try varint(&wire))
            case (20, 0): scale.lonOffset = Int64(bitPattern: try varint(&wire))
            default: try skip(&wire, kind)
            }
        }
        guard scale.granularity > 0 else { throw error(nil, "granularity \(scale.granularity)") }
        let block = Block(strings: strings, scale: scale)
        for var group in groups {
            while !group.atEnd {
                let (field, kind) = try key(&group)
                switch (field, kind) {
                case (1, 2): if let node = try node(try bytes(&group), block) { try body(.node(node)) }
                case (2, 2): try denseNodes(try bytes(&group), block, body)
                case (3, 2): try body(try way(try bytes(&group), block))
                case (4, 2):
                    nodeLocations?.removeAll()
                    try body(.relation(try relation(try bytes(&group), block)))
                default: try skip(&group, kind)
                }
            }
        }
    }

    /// One block's strings and coordinate scale.
    private struct Block {
        var strings: [String]
        var scale: Scale

        func string(_ index: UInt64, _ reader: PBFReader, _ name: Name) throws(OSMError) -> String {
            guard index < strings.count else {
                throw reader.error(name, "string \(index) is not in the block's table of \(strings.count)")
            }
            return strings[Int(index)]
        }

        /// Tags from parallel lists of key and value indexes.
        func tags(
            _ keys: Wire, _ values: Wire, _ reader: PBFReader, _ name: Name
        ) throws(OSMError)
            -> [String: String]
        {
            var keys = keys
            var values = values
            var tags: [String: String] = [:]
            if !keys.atEnd { tags.reserveCapacity(8) }
            while !keys.atEnd {
                guard !values.atEnd else { throw reader.error(name, "more tag keys than values") }
                let key = try string(try reader.varint(&keys), reader, name)
                tags[key] = try string(try reader.varint(&values), reader, name)
            }
            guard values.atEnd else { throw reader.error(name, "more tag values than keys") }
            return tags
        }
    }

    /// Coordinates in the block: nanodegrees = offset + granularity × value.
    private struct Scale {
        var granularity: Int64 = 100
        var latOffset: Int64 = 0
        var lonOffset: Int64 = 0

        /// Degrees, as the same double as the decimal osmium would print for it.
        func degrees(_ value: Int64, offset: Int64) -> Double {
            let nano = offset &+ granularity &* value
            // In osmium's 1e-7 degrees: an exact integer over an exact power of ten.
            return nano % 100 == 0 ? Double(nano / 100) / 1e7 : Double(nano) / 1e9
        }

        /// In 1e-7 degrees (osmium's unit), rounded (wrapping, as the nanodegrees do: a
        /// value that large is out of range anyway).
        func e7(_ value: Int64, offset: Int64) -> Int64 {
            let nano = offset &+ granularity &* value
            return nano >= 0 ? (nano &+ 50) / 100 : (nano &- 50) / 100
        }

        /// osmium's undefined location (a way's node missing from the extract): 2³¹ − 1 in
        /// 1e-7 degrees.
        func isUndefined(_ value: Int64, offset: Int64) -> Bool {
            offset &+ granularity &* value == Int64(Int32.max) * 100
        }
    }

    private func coordinate(
        _ lat: Int64, _ lon: Int64, _ block: Block, _ name: Name
    ) throws(OSMError)
        -> Coordinate
    {
        let c = Coordinate(
            latitude: block.scale.degrees(lat, offset: block.scale.latOffset),
            longitude: block.scale.degrees(lon, offset: block.scale.lonOffset))
        guard c.isValid else { throw error(name, OSMError.locationOutOfRange(c.latitude, c.longitude)) }
        return c
    }

    /// Whether a node at `lat`, `lon` is a deleted version (``placelessNodesAreDeleted``).
    private func isDeleted(_ lat: Int64, _ lon: Int64, _ block: Block) -> Bool {
        let scale = block.scale
        return placelessNodesAreDeleted && scale.isUndefined(lat, offset: scale.latOffset)
            && scale.isUndefined(lon, offset: scale.lonOffset)
    }

    /// Keeps a node's location in ``nodeLocations`` (when set); whether it was kept.
    private func keep(
        _ id: Int64, _ lat: Int64, _ lon: Int64, _ block: Block, _ name: Name
    ) throws(OSMError) -> Bool {
        guard let nodeLocations else { return false }
        let scale = block.scale
        let (lat, lon) = (scale.e7(lat, offset: scale.latOffset), scale.e7(lon, offset: scale.lonOffset))
        let c = Self.coordinate(e7: lat, lon)
        guard c.isValid else { throw error(name, OSMError.locationOutOfRange(c.latitude, c.longitude)) }
        nodeLocations.add(id, lat: Int32(lat), lon: Int32(lon))
        return true
    }

    /// A location in 1e-7 degrees as degrees.
    private static func coordinate(e7 lat: Int64, _ lon: Int64) -> Coordinate {
        Coordinate(latitude: Double(lat) / 1e7, longitude: Double(lon) / 1e7)
    }

    private func node(_ wire: Wire, _ block: Block) throws(OSMError) -> OSMNode? {
        var wire = wire
        var id: Int64 = 0
        var lat: Int64?
        var lon: Int64?
        var keys = Wire.empty
        var values = Wire.empty
        while !wire.atEnd {
            let (field, kind) = try key(&wire)
            switch (field, kind) {
            case (1, 0): id = zigzag(try varint(&wire))
            case (2, 2): keys = try bytes(&wire)
            case (3, 2): values = try bytes(&wire)
            case (8, 0): lat = zigzag(try varint(&wire))
            case (9, 0): lon = zigzag(try varint(&wire))
            default: try skip(&wire, kind)
            }
        }
        let name = Name(type: "node", id: id)
        guard let lat, let lon else { throw error(name, "a node without a location") }
        if isDeleted(lat, lon, block) { return nil }
        if try keep(id, lat, lon, block, name) && keys.atEnd { return nil }
        return OSMNode(
            id: id, coordinate: try coordinate(lat, lon, block, name),
            tags: try block.tags(keys, values, self, name))
    }

    /// `DenseNodes`: parallel delta-coded lists of ids, latitudes and longitudes, and one list
    /// of key and value indexes, each node's ended by 0.
    private func denseNodes(_ wire: Wire, _ block: Block, _ body: (OSMElement) throws -> Void) throws {
        var wire = wire
        var ids = Wire.empty
        var lats = Wire.empty
        var lons = Wire.empty
        var keysValues = Wire.empty
        while !wire.atEnd {
            let (field, kind) = try key(&wire)
            switch (field, kind) {
            case (1, 2): ids = try bytes(&wire)
            case (8, 2): lats = try bytes(&wire)
            case (9, 2): lons = try bytes(&wire)
            case (10, 2): keysValues = try bytes(&wire)
            default: try skip(&wire, kind)
            }
        }
        var id: Int64 = 0
        var lat: Int64 = 0
        var lon: Int64 = 0
        while !ids.atEnd {
            id &+= zigzag(try varint(&ids))
            let name = Name(type: "node", id: id)
            guard !lats.atEnd, !lons.atEnd else { throw error(name, "a node without a location") }
            lat &+= zigzag(try varint(&lats))
            lon &+= zigzag(try varint(&lons))
            var tags: [String: String] = [:]
            while !keysValues.atEnd {
                let k = try varint(&keysValues)
                if k == 0 { break }
                guard !keysValues.atEnd else { throw error(name, "a tag key without a value") }
                let key = try block.string(k, self, name)
                tags[key] = try block.string(try varint(&keysValues), self, name)
            }
            if isDeleted(lat, lon, block) { continue }
            if try keep(id, lat, lon, block, name) && tags.isEmpty { continue }
            try body(.node(OSMNode(id: id, coordinate: try coordinate(lat, lon, block, name), tags: tags)))
        }
    }

    /// A way's or relation's fields: its id (a plain varint), tag keys and values, and the
    /// packed lists 8, 9 and 10 (a way's node ids, latitudes and longitudes; a relation's
    /// roles, member ids and member types).
    private func fields(
        _ wire: Wire
    ) throws(OSMError) -> (
        id: Int64, keys: Wire, values: Wire, lists: (Wire, Wire, Wire)
    ) {
        var wire = wire
        var id: Int64 = 0
        var keys = Wire.empty
        var values = Wire.empty
        var lists = (Wire.empty, Wire.empty, Wire.empty)
        while !wire.atEnd {
            let (field, kind) = try key(&wire)
            switch (field, kind) {
            case (1, 0): id = Int64(bitPattern: try varint(&wire))
            case (2, 2): keys = try bytes(&wire)
            case (3, 2): values = try bytes(&wire)
            case (8, 2): lists.0 = try bytes(&wire)
            case (9, 2): lists.1 = try bytes(&wire)
            case (10, 2): lists.2 = try bytes(&wire)
            default: try skip(&wire, kind)
            }
        }
        return (id, keys, values, lists)
    }

    private func way(_ wire: Wire, _ block: Block) throws(OSMError) -> OSMElement {
        let element = try fields(wire)
        let (id, keys, values) = (element.id, element.keys, element.values)
        var (refs, lats, lons) = element.lists
        let name = Name(type: "way", id: id)
        let count = refs.varintCount
        var nodeIDs: [Int64] = []
        var locations: [Coordinate?] = []
        nodeIDs.reserveCapacity(count)
        locations.reserveCapacity(count)
        let located = !lats.atEnd
        var ref: Int64 = 0
        var lat: Int64 = 0
        var lon: Int64 = 0
        while !refs.atEnd {
            ref &+= zigzag(try varint(&refs))
            nodeIDs.append(ref)
            guard located else {
                locations.append(
                    nodeLocations?.location(ref).map { Self.coordinate(e7: Int64($0.lat), Int64($0.lon)) })
                continue
            }
            guard !lats.atEnd, !lons.atEnd else { throw error(name, "fewer locations than nodes") }
            lat &+= zigzag(try varint(&lats))
            lon &+= zigzag(try varint(&lons))
            let scale = block.scale
            if scale.isUndefined(lat, offset: scale.latOffset)
                || scale.isUndefined(lon, offset: scale.lonOffset)
            {
                locations.append(nil)
            } else {
                locations.append(try coordinate(lat, lon, block, name))
            }
        }
        return .way(
            OSMWay(id: id, nodeIDs: nodeIDs, tags: try block.tags(keys, values, self, name)),
            locations: locations)
    }

    private func relation(_ wire: Wire, _ block: Block) throws(OSMError) -> OSMRelation {
        let element = try fields(wire)
        let (id, keys, values) = (element.id, element.keys, element.values)
        var (roles, refs, types) = element.lists
        let name = Name(type: "relation", id: id)
        var members: [OSMMember] = []
        var ref: Int64 = 0
        while !refs.atEnd {
            guard !roles.atEnd, !types.atEnd else { throw error(name, "a member without a role or type") }
            ref &+= zigzag(try varint(&refs))
            let role = try block.string(try varint(&roles), self, name)
            let type: String
            switch try varint(&types) {
            case 0: type = "node"
            case 1: type = "way"
            case 2: type = "relation"
            case let other: throw error(name, "member type \(other)")
            }
            members.append(OSMMember(type: type, ref: ref, role: role))
        }
        return OSMRelation(id: id, members: members, tags: try block.tags(keys, values, self, name))
    }

    // MARK: Protocol buffers' wire format

    /// A field's number and wire type.
    private func key(_ wire: inout Wire) throws(OSMError) -> (field: UInt64, kind: UInt64) {
        let key = try varint(&wire)
        return (key >> 3, key & 7)
    }

    func varint(_ wire: inout Wire) throws(OSMError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while wire.at < wire.end {
            let byte = wire.base[wire.at]
            wire.at += 1
            value |= UInt64(byte & 0x7f) << shift
            if byte < 0x80 { return value }
            shift += 7
            guard shift < 64 else { break }
        }
        throw error(nil, "a malformed number in block \(block)")
    }

    private func zigzag(_ value: UInt64) -> Int64 {
        Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
    }

    /// A length-delimited field's bytes.
    private func bytes(_ wire: inout Wire) throws(OSMError) -> Wire {
        let length = try varint(&wire)
        guard length <= UInt64(wire.end - wire.at) else {
            throw error(nil, "a field runs past the end of its block \(block)")
        }
        defer { wire.at += Int(length) }
        return Wire(base: wire.base, at: wire.at, end: wire.at + Int(length))
    }

    private func skip(_ wire: inout Wire, _ kind: UInt64) throws(OSMError) {
        switch kind {
        case 0: _ = try varint(&wire)
        case 1, 5:
            let size = kind == 1 ? 8 : 4
            guard wire.end - wire.at >= size else { throw error(nil, "a field runs past its block \(block)") }
            wire.at += size
        case 2: _ = try bytes(&wire)
        default: throw error(nil, "wire type \(kind) in block \(block)")
        }
    }

    /// An element as errors name it ("way 5").
    private struct Name {
        var type: StaticString
        var id: Int64
        var text: String { "\(type) \(id)" }
    }

    private func error(_ element: Name?, _ reason: String) -> OSMError {
        OSMError(
            path: path, element: element.map { "\($0.text), block \(block)" } ?? "block \(block)",
            reason: reason)
    }
}

/// A run of bytes being read: a message, or a packed list.
struct Wire {
    let base: UnsafePointer<UInt8>
    var at: Int
    let end: Int

    static var empty: Wire { Wire(base: UnsafePointer(bitPattern: 1)!, at: 0, end: 0) }

    init(base: UnsafePointer<UInt8>, at: Int, end: Int) {
        self.base = base
        self.at = at
        self.end = end
    }

    init(_ raw: UnsafeRawBufferPointer, _ at: Int, _ end: Int) {
        self.init(base: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), at: at, end: end)
    }

    var atEnd: Bool { at >= end }
    var buffer: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base + at, count: end - at) }
    /// How many varints a packed list holds: its bytes without the continuation bit.
    var varintCount: Int {
        var n = 0
        for i in at..<end where base[i] < 0x80 { n += 1 }
        return n
    }
}
