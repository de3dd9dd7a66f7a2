import Geo

/// The database's compact polygon encoding: coordinates as integers of 10⁻⁵ degree
/// (the precision the builder rounds to), delta-encoded as zigzag varints. About a quarter
/// of WKB's size, and lossless for the rounded coordinates.
///
/// Layout: varint polygonCount; per polygon varint ringCount; per ring varint pointCount,
/// then (Δlon, Δlat) per point, the deltas continuing across rings and polygons.
enum GeometryBlob {
    static let scale = 100_000.0

    struct Malformed: Error, CustomStringConvertible {
        let offset: Int
        var description: String { "malformed geometry blob at byte \(offset)" }
    }

    static func encode(_ polygons: [Polygon]) -> [UInt8] {
        var out: [UInt8] = []
        var lastX: Int64 = 0
        var lastY: Int64 = 0
        put(UInt64(polygons.count), &out)
        for polygon in polygons {
            let rings = [polygon.exterior] + polygon.holes
            put(UInt64(rings.count), &out)
            for ring in rings {
                put(UInt64(ring.count), &out)
                for p in ring {
                    let x = Int64((p.lon * scale).rounded())
                    let y = Int64((p.lat * scale).rounded())
                    put(zigzag(x - lastX), &out)
                    put(zigzag(y - lastY), &out)
                    lastX = x
                    lastY = y
                }
            }
        }
        return out
    }

    static func decode(_ bytes: [UInt8]) throws(Malformed) -> [Polygon] {
        var offset = 0
        var x: Int64 = 0
        var y: Int64 = 0
        func next() throws(Malformed) -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                guard offset < bytes.count, shift < 64 else { throw Malformed(offset: offset) }
                let b = bytes[offset]
                offset += 1
                value |= UInt64(b & 0x7F) << shift
                if b & 0x80 == 0 { return value }
                shift += 7
            }
        }
        var polygons: [Polygon] = []
        let polygonCount = try next()
        for _ in 0..<polygonCount {
            var rings: [[LonLat]] = []
            let ringCount = try next()
            for _ in 0..<ringCount {
                let n = try next()
                guard n <= UInt64(bytes.count) else { throw Malformed(offset: offset) }
                var ring: [LonLat] = []
                ring.reserveCapacity(Int(n))
                for _ in 0..<n {
                    x += unzigzag(try next())
                    y += unzigzag(try next())
                    ring.append(LonLat(lon: Double(x) / scale, lat: Double(y) / scale))
                }
                rings.append(ring)
            }
            guard let exterior = rings.first else { throw Malformed(offset: offset) }
            polygons.append(Polygon(exterior: exterior, holes: Array(rings.dropFirst())))
        }
        guard offset == bytes.count else { throw Malformed(offset: offset) }
        return polygons
    }

    private static func zigzag(_ v: Int64) -> UInt64 { UInt64(bitPattern: (v << 1) ^ (v >> 63)) }
    private static func unzigzag(_ v: UInt64) -> Int64 {
        Int64(bitPattern: v >> 1) ^ -Int64(bitPattern: v & 1)
    }

    private static func put(_ value: UInt64, _ out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }
}
