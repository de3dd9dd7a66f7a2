import Geo

/// The outline's compact storage form: little-endian UInt32 ring count, then per ring a
/// UInt8 role (0 outer, 1 inner), a UInt32 point count and the points as Int32 pairs of
/// latitude and longitude in 1e-7 degrees — OpenStreetMap's own precision, so nothing is lost.
extension BuildingOutline {
    var blob: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(4 + rings.reduce(0) { $0 + 5 + $1.points.count * 8 })
        func put32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { out += $0 } }
        put32(UInt32(rings.count))
        for ring in rings {
            out.append(ring.role.rawValue)
            put32(UInt32(ring.points.count))
            for p in ring.points {
                put32(UInt32(bitPattern: Int32((p.latitude * 1e7).rounded())))
                put32(UInt32(bitPattern: Int32((p.longitude * 1e7).rounded())))
            }
        }
        return out
    }

    /// Reads the storage form; nil when the bytes are not one.
    init?(blob: [UInt8]) {
        var at = 0
        func get32() -> UInt32? {
            guard at + 4 <= blob.count else { return nil }
            defer { at += 4 }
            return UInt32(blob[at]) | UInt32(blob[at + 1]) << 8 | UInt32(blob[at + 2]) << 16
                | UInt32(blob[at + 3]) << 24
        }
        guard let count = get32() else { return nil }
        var rings: [Ring] = []
        for _ in 0..<count {
            guard at < blob.count, let role = Ring.Role(rawValue: blob[at]) else { return nil }
            at += 1
            guard let n = get32(), Int(n) * 8 <= blob.count - at else { return nil }
            var points: [Coordinate] = []
            points.reserveCapacity(Int(n))
            for _ in 0..<n {
                guard let lat = get32(), let lon = get32() else { return nil }
                points.append(
                    Coordinate(
                        latitude: Double(Int32(bitPattern: lat)) / 1e7,
                        longitude: Double(Int32(bitPattern: lon)) / 1e7))
            }
            rings.append(Ring(role: role, points: points))
        }
        guard at == blob.count else { return nil }
        self.init(rings: rings)
    }
}
