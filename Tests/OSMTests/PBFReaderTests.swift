import Foundation
import Geo
import OSM
import Testing

@Suite("Reading osmium's uncompressed PBF as a stream")
struct PBFReaderTests {
    static let opl = """
        n1 v3 dV c9 t2020-01-01T00:00:00Z i7 uanna Tentrance=main,name=%c138%%c885%%b300%%b85c%%20%110 x126.9769 y37.5663
        n2 T x-0.1 y-33.9
        w10 Tbuilding=yes,addr:street=Quai%20%Jean-Charles%20%Rey,note=a%2c%b%3d%c Nn1x126.9769y37.5663,n2x-0.1y-33.9,n3
        r20 Ttype=multipolygon,building=yes Mw10@outer,w11@inner,n1@

        """

    /// `text` (OPL) through the real `osmium cat` (or `command`) into PBF written as
    /// `format` says.
    static func pbf(_ text: String, format: String, command: [String] = ["cat"]) throws -> [UInt8] {
        let osmium = try #require(
            ["/usr/bin/osmium", "/usr/local/bin/osmium"].first {
                FileManager.default.isExecutableFile(atPath: $0)
            },
            "osmium is not installed: apt-get install osmium-tool (or run Scripts/setup)")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pbf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.opl")
        let output = dir.appendingPathComponent("out.osm.pbf")
        try text.write(to: input, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: osmium)
        process.arguments = command + [input.path, "-o", output.path, "-f", format]
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "osmium \(command[0]) -f \(format) failed")
        return [UInt8](try Data(contentsOf: output))
    }

    /// Reads `bytes` through a file descriptor, as the import reads osmium's pipe; with
    /// `locating`, ways take their nodes' locations from the nodes before them
    /// (``PBFReader/nodeLocations``).
    static func read(_ bytes: [UInt8], locating: Bool = false) throws -> [OSMElement] {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pbf-\(UUID().uuidString)")
        try Data(bytes).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let fd = open(url.path, O_RDONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        var reader = PBFReader(path: "x.osm.pbf")
        if locating { reader.nodeLocations = NodeLocations() }
        var out: [OSMElement] = []
        try reader.read(fd: fd) { out.append($0) }
        return out
    }

    static let uncompressed = "pbf,pbf_compression=none,locations_on_ways=true,add_metadata=false"

    @Test(
        "nodes (dense and not), ways with their nodes' locations, relations",
        arguments: [uncompressed, uncompressed + ",pbf_dense_nodes=false"])
    func elements(format: String) throws {
        let elements = try Self.read(try Self.pbf(Self.opl, format: format))
        #expect(elements.count == 4)
        guard case .node(let node) = elements[0], case .node(let second) = elements[1],
            case .way(let way, let locations) = elements[2], case .relation(let relation) = elements[3]
        else {
            Issue.record("\(elements)")
            return
        }
        #expect(node.id == 1 && node.tags == ["entrance": "main", "name": "세종대로 110"])
        // The same doubles as the decimals: 37.5663, not 37.566300000000005.
        #expect(node.coordinate == Coordinate(latitude: 37.5663, longitude: 126.9769))
        #expect(second.id == 2 && second.tags.isEmpty)
        #expect(second.coordinate == Coordinate(latitude: -33.9, longitude: -0.1))
        #expect(way.id == 10 && way.nodeIDs == [1, 2, 3])
        #expect(way.tags["addr:street"] == "Quai Jean-Charles Rey" && way.tags["note"] == "a,b=c")
        // Node 3 is not in the file: osmium's undefined location is no location.
        #expect(
            locations == [
                Coordinate(latitude: 37.5663, longitude: 126.9769),
                Coordinate(latitude: -33.9, longitude: -0.1), nil,
            ])
        #expect(relation.id == 20 && relation.tags == ["type": "multipolygon", "building": "yes"])
        #expect(relation.members.map(\.ref) == [10, 11, 1])
        #expect(relation.members.map(\.role) == ["outer", "inner", ""])
        #expect(relation.members.map(\.type) == ["way", "way", "node"])
    }

    /// Thousands of elements over several blocks, ids and coordinates delta-coded across
    /// each block: every one comes back in order.
    @Test func manyBlocks() throws {
        func degrees(_ i: Int) -> String { String(format: "%.4f", Double(i) / 1e4) }
        var text = ""
        for i in 1...20_000 { text += "n\(i) T x\(degrees(i)) y-\(degrees(i))\n" }
        // The second node without a location, as a way cut at an extract's edge.
        for i in 1...9_000 { text += "w\(i) Tbuilding=yes Nn\(i)x\(degrees(i))y-\(degrees(i)),n\(i + 1)\n" }
        let elements = try Self.read(try Self.pbf(text, format: Self.uncompressed))
        #expect(elements.count == 29_000)
        guard case .node(let last) = elements[19_999], case .way(let way, let locations) = elements[28_999]
        else {
            Issue.record("not nodes then ways")
            return
        }
        #expect(last.id == 20_000 && last.coordinate == Coordinate(latitude: -2, longitude: 2))
        #expect(way.id == 9_000 && way.nodeIDs == [9_000, 9_001])
        #expect(locations == [Coordinate(latitude: -0.9, longitude: 0.9), nil])
    }

    /// Without osmium's `locations_on_ways`, the reader adds them from the nodes it read: the
    /// same elements as osmium's `add-locations-to-ways` gives, over several blocks, a node
    /// missing from the file without a location. Untagged nodes are kept, not handed on.
    @Test func waysTakeTheirLocationsFromTheNodesRead() throws {
        func degrees(_ i: Int) -> String { String(format: "%.7f", Double(i) / 1e4 + 1e-7) }
        var text = "n1 Tentrance=yes x0.0001001 y-0.0001001\n"
        for i in 2...20_000 { text += "n\(i) T x\(degrees(i)) y-\(degrees(i))\n" }
        // Node 20 001 is not in the file.
        for i in 1...9_000 {
            text += "w\(i) Tbuilding=yes Nn\(i),n\(i + 1),n\(20_002 - i)\n"
        }
        text += "r1 Tbuilding=yes Mw1@outer\n"
        let osmiums = try Self.read(
            try Self.pbf(
                text, format: Self.uncompressed, command: ["add-locations-to-ways", "--ignore-missing-nodes"])
        )
        let ours = try Self.read(
            try Self.pbf(text, format: "pbf,pbf_compression=none,add_metadata=false"), locating: true)
        // osmium's node 1 (tagged) and ways; here untagged nodes are not handed on.
        let tagged = osmiums.filter {
            if case .node(let node) = $0 { return !node.tags.isEmpty }
            return true
        }
        #expect(ours.count == 1 + 9_000 + 1)
        // (Compared one by one: a failure prints the first that differs, not 9 000 ways.)
        let differing = zip(ours, tagged).first { $0.0 != $0.1 }
        #expect(differing == nil && ours.count == tagged.count, "\(String(describing: differing))")
        guard case .way(_, let locations) = ours[1] else {
            Issue.record("\(ours[1])")
            return
        }
        #expect(locations[2] == nil && locations[0] != nil)
    }

    /// Node locations are checked as they are kept, and the node at fault is named.
    @Test func aLocationOutOfRangeNamesTheUntaggedNode() throws {
        let bytes = try Self.pbf("n1 T x1 y2\nn7 T x1 y95\n", format: "pbf,pbf_compression=none")
        #expect {
            _ = try Self.read(bytes, locating: true)
        } throws: { error in
            guard let e = error as? OSMError else { return false }
            return e.element == "node 7, block 2" && e.reason.contains("out of range")
        }
    }

    /// A location at the end of the number range (granularity 1, a latitude of ±2⁶³ − 10
    /// nanodegrees) is out of range, said so, not a crash.
    @Test(arguments: [Int64.max - 10, Int64.min + 10])
    func anExtremeLocationIsOutOfRange(lat: Int64) throws {
        func varint(_ value: UInt64) -> [UInt8] {
            var value = value
            var out: [UInt8] = []
            while value >= 0x80 {
                out.append(UInt8(value & 0x7f) | 0x80)
                value >>= 7
            }
            return out + [UInt8(value)]
        }
        func field(_ number: UInt64, _ bytes: [UInt8]) -> [UInt8] {
            varint(number << 3 | 2) + varint(UInt64(bytes.count)) + bytes
        }
        let zigzag = UInt64(bitPattern: (lat << 1) ^ (lat >> 63))
        // DenseNodes { id [1], lat [lat], lon [0] } in a block of granularity 1.
        let dense = field(1, varint(2)) + field(8, varint(zigzag)) + field(9, varint(0))
        let block = field(1, field(1, [])) + field(2, field(2, dense)) + varint(17 << 3) + varint(1)
        let blob = field(1, block)
        let header = field(1, Array("OSMData".utf8)) + varint(3 << 3) + varint(UInt64(blob.count))
        let bytes = [0, 0, 0, UInt8(header.count)] + header + blob
        #expect {
            _ = try Self.read(bytes, locating: true)
        } throws: { error in
            guard let e = error as? OSMError else { return false }
            return e.element == "node 1, block 1" && e.reason.contains("out of range")
        }
    }

    @Test func aCutStreamIsAnError() throws {
        let bytes = try Self.pbf(Self.opl, format: Self.uncompressed)
        for cut in [2, 30, bytes.count - 5] {
            #expect {
                _ = try Self.read(Array(bytes.prefix(cut)))
            } throws: { error in
                guard let e = error as? OSMError else { return false }
                return e.path == "x.osm.pbf" && e.reason.contains("the stream ends inside")
                    && e.reason.contains("cut short")
            }
        }
    }

    @Test func compressedBlocksAreRefusedByName() throws {
        let bytes = try Self.pbf(Self.opl, format: "pbf")
        #expect {
            _ = try Self.read(bytes)
        } throws: { error in
            (error as? OSMError)?.reason.contains("pbf_compression=none") == true
        }
    }

    @Test func aLocationOutOfRangeNamesTheNode() throws {
        let bytes = try Self.pbf("n1 T x1 y2\nn7 T x1 y95\n", format: Self.uncompressed)
        #expect {
            _ = try Self.read(bytes)
        } throws: { error in
            guard let e = error as? OSMError else { return false }
            return e.element == "node 7, block 2" && e.reason.contains("out of range")
        }
    }

    /// Bytes that are no PBF at all (a text file on the pipe) are named, not trusted.
    @Test func garbageIsAnError() throws {
        #expect {
            _ = try Self.read(Array("n1 T x1 y2\nw3 Tbuilding=yes Nn1\n".utf8))
        } throws: { error in
            guard let e = error as? OSMError else { return false }
            return e.element == "block 1" && !e.reason.isEmpty
        }
    }

    /// A string index past the block's table: the element at fault is named.
    @Test func aTagOutsideTheStringTable() throws {
        // PrimitiveBlock { stringtable { "" "k" } primitivegroup { way { id 5, keys [1], vals [9] } } }
        let way: [UInt8] = [0x08, 0x05, 0x12, 0x01, 0x01, 0x1a, 0x01, 0x09]
        let group: [UInt8] = [0x1a, UInt8(way.count)] + way
        let table: [UInt8] = [0x0a, 0x00, 0x0a, 0x01, UInt8(ascii: "k")]
        let block: [UInt8] = [0x0a, UInt8(table.count)] + table + [0x12, UInt8(group.count)] + group
        let blob: [UInt8] = [0x0a, UInt8(block.count)] + block
        let type = Array("OSMData".utf8)
        let header: [UInt8] = [0x0a, UInt8(type.count)] + type + [0x18, UInt8(blob.count)]
        let bytes = [0, 0, 0, UInt8(header.count)] + header + blob
        #expect {
            _ = try Self.read(bytes)
        } throws: { error in
            guard let e = error as? OSMError else { return false }
            return e.element == "way 5, block 1"
                && e.reason.contains("string 9 is not in the block's table of 2")
        }
    }
}
