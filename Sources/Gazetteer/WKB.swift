import Foundation
import Geo

/// Well-Known Binary polygons, and the GeoPackage header in front of them.
enum WKB {
    /// A malformed blob: what was wrong and at which byte.
    struct Malformed: Error, CustomStringConvertible {
        let reason: String
        let offset: Int
        var description: String { "malformed WKB at byte \(offset): \(reason)" }
    }

    /// Rings of each polygon (exterior first), as read; no normalisation.
    typealias Rings = [[[LonLat]]]

    /// Reads a GeoPackage geometry blob ("GP" header, optional envelope, then WKB).
    static func readGeoPackage(_ blob: [UInt8]) throws(Malformed) -> Rings {
        guard blob.count >= 8, blob[0] == 0x47, blob[1] == 0x50 else {
            throw Malformed(reason: "no GeoPackage magic", offset: 0)
        }
        let envelopeDoubles = [0, 4, 6, 6, 8][Int((blob[3] >> 1) & 0x07) % 5]
        return try read(blob, from: 8 + envelopeDoubles * 8)
    }

    /// Reads a WKB Polygon or MultiPolygon starting at `start`.
    static func read(_ bytes: [UInt8], from start: Int = 0) throws(Malformed) -> Rings {
        var reader = Reader(bytes: bytes, offset: start)
        return try reader.geometry()
    }

    /// Writes a little-endian WKB MultiPolygon.
    static func write(_ polygons: [Polygon]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        out.append(1)
        append(UInt32(6), to: &out)
        append(UInt32(polygons.count), to: &out)
        for polygon in polygons {
            out.append(1)
            append(UInt32(3), to: &out)
            let rings = [polygon.exterior] + polygon.holes
            append(UInt32(rings.count), to: &out)
            for ring in rings {
                append(UInt32(ring.count), to: &out)
                for p in ring {
                    append(p.lon.bitPattern, to: &out)
                    append(p.lat.bitPattern, to: &out)
                }
            }
        }
        return out
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset: Int
        var little = true

        mutating func geometry() throws(Malformed) -> Rings {
            try order()
            let type = try uint32() % 1000  // ISO Z/M variants are not in our sources
            switch type {
            case 3: return [try polygon()]
            case 6:
                let count = try uint32()
                var out: Rings = []
                for _ in 0..<count {
                    try order()
                    let inner = try uint32()
                    guard inner % 1000 == 3 else {
                        throw Malformed(reason: "part type \(inner)", offset: offset)
                    }
                    out.append(try polygon())
                }
                return out
            default:
                throw Malformed(
                    reason: "geometry type \(type), expected Polygon or MultiPolygon", offset: offset)
            }
        }

        mutating func polygon() throws(Malformed) -> [[LonLat]] {
            let ringCount = try uint32()
            var rings: [[LonLat]] = []
            for _ in 0..<ringCount {
                let n = try uint32()
                guard Int(n) * 16 <= bytes.count - offset else {
                    throw Malformed(reason: "ring of \(n) points overruns", offset: offset)
                }
                var ring: [LonLat] = []
                ring.reserveCapacity(Int(n))
                for _ in 0..<n {
                    let x = try double()
                    let y = try double()
                    ring.append(LonLat(lon: x, lat: y))
                }
                rings.append(ring)
            }
            return rings
        }

        mutating func order() throws(Malformed) {
            guard offset < bytes.count else { throw Malformed(reason: "truncated", offset: offset) }
            little = bytes[offset] == 1
            offset += 1
        }

        mutating func uint32() throws(Malformed) -> UInt32 {
            guard offset + 4 <= bytes.count else { throw Malformed(reason: "truncated", offset: offset) }
            var v: UInt32 = 0
            for i in 0..<4 { v |= UInt32(bytes[offset + i]) << (8 * UInt32(i)) }
            offset += 4
            return little ? v : v.byteSwapped
        }

        mutating func double() throws(Malformed) -> Double {
            guard offset + 8 <= bytes.count else { throw Malformed(reason: "truncated", offset: offset) }
            var v: UInt64 = 0
            for i in 0..<8 { v |= UInt64(bytes[offset + i]) << (8 * UInt64(i)) }
            offset += 8
            return Double(bitPattern: little ? v : v.byteSwapped)
        }
    }
}
