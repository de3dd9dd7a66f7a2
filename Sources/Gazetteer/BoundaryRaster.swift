import Geo

/// A raster of 1/8° cells over the globe saying, for every cell that no boundary edge
/// touches, which boundary answers each of its points (or that it is sea): inside such a
/// cell containment cannot change, so the answer at its centre holds everywhere in it.
/// Cells an edge touches say "test the polygons". Built once by the builder from the
/// stored polygons, stored run-length encoded per row in the `raster` table.
struct BoundaryRaster {
    static let cellsPerDegree = 8
    static let rows = 180 * cellsPerDegree
    static let columns = 360 * cellsPerDegree

    /// A cell's value: `mixed` (test polygons), `sea`, or a boundary's id + 1.
    static let mixed: Int64 = 0
    static let sea: Int64 = 1

    /// Per row: the first column of each run and the run's value.
    var starts: [[Int32]]
    var values: [[Int64]]

    static func cell(lon: Double, lat: Double) -> (row: Int, column: Int) {
        let n = Double(cellsPerDegree)
        return (
            Swift.min(rows - 1, Swift.max(0, Int(((lat + 90) * n).rounded(.down)))),
            Swift.min(columns - 1, Swift.max(0, Int(((lon + 180) * n).rounded(.down))))
        )
    }

    /// The value of one cell (binary search in its row's runs).
    func value(row: Int, column: Int) -> Int64 {
        let s = starts[row]
        var low = 0
        var high = s.count
        while high - low > 1 {
            let mid = (low + high) / 2
            if Int(s[mid]) <= column { low = mid } else { high = mid }
        }
        return values[row][low]
    }

    /// Computes the raster for `grid`'s boundaries.
    static func compute(_ grid: BoundaryGrid) -> BoundaryRaster {
        var touched = [Bool](repeating: false, count: rows * columns)
        let n = Double(cellsPerDegree)
        for b in grid.boundaries {
            for polygon in b.shape.polygons {
                for ring in [polygon.exterior] + polygon.holes where ring.count > 1 {
                    for i in 1..<ring.count {
                        let a = ring[i - 1]
                        let c = ring[i]
                        // The edge's box, a superset of the cells it crosses.
                        let row0 = Swift.max(0, Int(((Swift.min(a.lat, c.lat) + 90) * n).rounded(.down)))
                        let row1 = Swift.min(
                            rows - 1, Int(((Swift.max(a.lat, c.lat) + 90) * n).rounded(.down)))
                        let col0 = Int(((Swift.min(a.lon, c.lon) + 180) * n).rounded(.down))
                        let col1 = Int(((Swift.max(a.lon, c.lon) + 180) * n).rounded(.down))
                        guard row0 <= row1 else { continue }
                        for row in row0...row1 {
                            for col in col0...Swift.min(col1, col0 + columns - 1) {
                                touched[row * columns + ((col % columns) + columns) % columns] = true
                            }
                        }
                    }
                }
            }
        }
        var starts: [[Int32]] = []
        var values: [[Int64]] = []
        for row in 0..<rows {
            var rowStarts: [Int32] = []
            var rowValues: [Int64] = []
            for column in 0..<columns {
                let v: Int64
                if touched[row * columns + column] {
                    v = mixed
                } else {
                    let index = grid.locateByPolygons(
                        lon: (Double(column) + 0.5) / n - 180, lat: (Double(row) + 0.5) / n - 90)
                    v = index < 0 ? sea : grid.boundaries[index].id + 1
                }
                if rowValues.last != v {
                    rowStarts.append(Int32(column))
                    rowValues.append(v)
                }
            }
            starts.append(rowStarts)
            values.append(rowValues)
        }
        return BoundaryRaster(starts: starts, values: values)
    }

    /// One row as varints: run count, then (run length, value) pairs.
    func encode(row: Int) -> [UInt8] {
        var out: [UInt8] = []
        func put(_ x: UInt64) {
            var v = x
            while v >= 0x80 {
                out.append(UInt8(v & 0x7F) | 0x80)
                v >>= 7
            }
            out.append(UInt8(v))
        }
        let s = starts[row]
        put(UInt64(s.count))
        for i in 0..<s.count {
            let end = i + 1 < s.count ? Int(s[i + 1]) : Self.columns
            put(UInt64(end - Int(s[i])))
            put(UInt64(values[row][i]))
        }
        return out
    }

    /// Decodes rows written by `encode`; `nil` when any row is malformed or missing.
    static func decode(_ rows: [[UInt8]]) -> BoundaryRaster? {
        guard rows.count == Self.rows else { return nil }
        var starts: [[Int32]] = []
        var values: [[Int64]] = []
        for bytes in rows {
            var offset = 0
            func next() -> UInt64? {
                var v: UInt64 = 0
                var shift: UInt64 = 0
                while offset < bytes.count, shift < 64 {
                    let b = bytes[offset]
                    offset += 1
                    v |= UInt64(b & 0x7F) << shift
                    if b & 0x80 == 0 { return v }
                    shift += 7
                }
                return nil
            }
            guard let count = next(), count > 0 else { return nil }
            var rowStarts: [Int32] = []
            var rowValues: [Int64] = []
            var column = 0
            for _ in 0..<count {
                guard let length = next(), let value = next() else { return nil }
                rowStarts.append(Int32(column))
                rowValues.append(Int64(value))
                column += Int(length)
            }
            guard column == Self.columns else { return nil }
            starts.append(rowStarts)
            values.append(rowValues)
        }
        return BoundaryRaster(starts: starts, values: values)
    }
}
