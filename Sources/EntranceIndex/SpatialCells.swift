import Foundation

/// The door index's spatial index: a loose grid of several levels over latitude and
/// longitude, one integer key per row, kept in an ordinary SQLite index.
///
/// Level L's cells are 2^(L−12) degrees square (level 0 ≈ 27 m of latitude). A box is
/// stored once, in the cell of its lower-left corner at the finest level whose cells are at
/// least as large as the box, so it lies within that cell and the next one up and to the
/// right. A query looks, at every level in use, at the cells its box touches and one more
/// row and column below and to the left. Points (entrances) are boxes of size 0: level 0,
/// the cell they fall in.
///
/// Why not SQLite's R*Tree: each R*Tree insert costs ≈ 7 µs (its subtree choice and
/// splits), the largest single cost of a country's import; an integer column costs a
/// B-tree entry, and its index is built once, sorted, at the end (≈ 1 µs a row).
enum SpatialCells {
    /// Level 0's cells are 2^baseExponent degrees.
    static let baseExponent = -12
    /// 2^8 = 256°: every box fits a cell of the last level.
    static let maxLevel = 20

    /// The side of level `level`'s cells, in degrees.
    static func size(_ level: Int) -> Double { scalbn(1.0, baseExponent + level) }

    /// A cell's key: level, row (latitude) and column (longitude), so one row of cells at one
    /// level is one range of keys.
    static func key(level: Int, row: Int64, column: Int64) -> Int64 {
        Int64(level) << 50 | row << 25 | column
    }

    /// The largest column (and row) a key holds.
    static let columnMask: Int64 = (1 << 25) - 1

    /// The level of a key.
    static func level(_ key: Int64) -> Int { Int(key >> 50) }

    static func column(_ lon: Double, level: Int) -> Int64 { index((lon + 180) / size(level)) }

    static func row(_ lat: Double, level: Int) -> Int64 { index((lat + 90) / size(level)) }

    /// A cell number within 0…``columnMask``: a coordinate out of range (or NaN, from a
    /// caller that did not check) lands on the edge instead of trapping.
    private static func index(_ cells: Double) -> Int64 {
        guard cells >= 0 else { return 0 }
        return cells < Double(columnMask) ? Int64(cells.rounded(.down)) : columnMask
    }

    /// The cell a box is stored in.
    static func cell(minLat: Double, maxLat: Double, minLon: Double, maxLon: Double) -> Int64 {
        let extent = max(maxLat - minLat, maxLon - minLon)
        var level = 0
        while level < maxLevel && size(level) < extent { level += 1 }
        return key(level: level, row: row(minLat, level: level), column: column(minLon, level: level))
    }

    /// The cell a point is stored in.
    static func cell(_ lat: Double, _ lon: Double) -> Int64 {
        cell(minLat: lat, maxLat: lat, minLon: lon, maxLon: lon)
    }

    /// Ranges of keys that hold every stored box overlapping the query box, at `levels`.
    /// - Parameter points: only points are stored (level 0, no neighbouring cells needed).
    static func ranges(
        minLat: Double, maxLat: Double, minLon: Double, maxLon: Double, levels: [Int], points: Bool = false
    ) -> [ClosedRange<Int64>] {
        // An empty box (or NaN) holds nothing, as an R*Tree would answer.
        guard minLat <= maxLat && minLon <= maxLon else { return [] }
        var out: [ClosedRange<Int64>] = []
        for level in levels {
            // Across the antimeridian: points (entrances) lie in −180…180, so a box past either
            // end looks on the other side too; a building across it is stored from its west end
            // on past 180 (``BuildingOutline/bounds``), so a box near −180 looks there too.
            var shifts: [Double] = [0]
            if points {
                if maxLon > 180 { shifts.append(-360) }
                if minLon < -180 { shifts.append(360) }
            } else if minLon - 2 * size(level) < -180 {
                shifts.append(360)
            }
            for shift in shifts {
                out += ranges(
                    minLat: minLat, maxLat: maxLat, minLon: minLon + shift, maxLon: maxLon + shift,
                    level: level,
                    reach: points ? 0 : 1)
            }
        }
        // Each key once, though the ranges across the antimeridian may overlap the others.
        var merged: [ClosedRange<Int64>] = []
        for range in out.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, range.lowerBound <= last.upperBound &+ 1 {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        return merged
    }

    /// ``ranges(minLat:maxLat:minLon:maxLon:levels:points:)`` at one level, for one box as it
    /// is, looking `reach` cells further below and to the left.
    private static func ranges(
        minLat: Double, maxLat: Double, minLon: Double, maxLon: Double, level: Int, reach: Int64
    ) -> [ClosedRange<Int64>] {
        var out: [ClosedRange<Int64>] = []
        let firstRow = max(0, row(minLat, level: level) - reach)
        let firstColumn = max(0, column(minLon, level: level) - reach)
        let lastColumn = column(maxLon, level: level)
        let lastRow = row(maxLat, level: level)
        // A box of many rows (a whole country asked for): one range over those rows, every
        // column; the exact test after the lookup drops what lies outside.
        if lastRow - firstRow > 16 {
            out.append(
                key(
                    level: level, row: firstRow, column: 0)...key(
                        level: level, row: lastRow, column: columnMask))
            return out
        }
        for r in firstRow...lastRow {
            out.append(
                key(
                    level: level, row: r, column: firstColumn)...key(
                        level: level, row: r, column: lastColumn))
        }
        return out
    }
}
