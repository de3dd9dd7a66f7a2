import Foundation

/// Douglas–Peucker line simplification in the plane of degrees (lon as x, lat as y).
public enum DouglasPeucker {
    /// The points of `line` kept at `tolerance` degrees: the ends always, and every point
    /// farther than `tolerance` from the chord of the span it lies in.
    public static func simplify(_ line: [LonLat], tolerance: Double) -> [LonLat] {
        guard line.count > 2 else { return line }
        var keep = [Bool](repeating: false, count: line.count)
        keep[0] = true
        keep[line.count - 1] = true
        var stack = [(0, line.count - 1)]
        while let (first, last) = stack.popLast() {
            guard last > first + 1 else { continue }
            var farthest = first
            var maxDistance = -1.0
            for i in (first + 1)..<last {
                let d = segmentDistance(line[i], line[first], line[last])
                // Strictly greater: the first of equally far points wins, deterministically.
                if d > maxDistance {
                    maxDistance = d
                    farthest = i
                }
            }
            if maxDistance > tolerance {
                keep[farthest] = true
                stack.append((first, farthest))
                stack.append((farthest, last))
            }
        }
        return line.indices.filter { keep[$0] }.map { line[$0] }
    }

    /// A closed ring simplified at `tolerance` degrees, still closed; `nil` when it
    /// collapses below a triangle (the caller decides whether to keep the original).
    public static func simplifyRing(_ ring: [LonLat], tolerance: Double) -> [LonLat]? {
        guard ring.count >= 4 else { return nil }
        // Split the ring at the point farthest from its start so neither half is a loop
        // (a chord of zero length would measure nothing).
        let start = ring[0]
        var split = 1
        var maxDistance = -1.0
        for i in 1..<(ring.count - 1) {
            let d = hypot(ring[i].lon - start.lon, ring[i].lat - start.lat)
            if d > maxDistance {
                maxDistance = d
                split = i
            }
        }
        let a = simplify(Array(ring[0...split]), tolerance: tolerance)
        let b = simplify(Array(ring[split...]), tolerance: tolerance)
        let out = a + b.dropFirst()
        return out.count >= 4 ? out : nil
    }

    /// Distance from `p` to the segment `a`–`b`, degrees.
    static func segmentDistance(_ p: LonLat, _ a: LonLat, _ b: LonLat) -> Double {
        let dx = b.lon - a.lon
        let dy = b.lat - a.lat
        let lengthSquared = dx * dx + dy * dy
        guard lengthSquared > 0 else { return hypot(p.lon - a.lon, p.lat - a.lat) }
        let t = max(0, min(1, ((p.lon - a.lon) * dx + (p.lat - a.lat) * dy) / lengthSquared))
        return hypot(p.lon - (a.lon + t * dx), p.lat - (a.lat + t * dy))
    }
}
