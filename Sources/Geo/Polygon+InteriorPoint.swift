extension Polygon {
    /// A point inside the polygon — never on an edge nor in a hole — to stand for it where one
    /// point is wanted (a region with no city to place it by). The middle of the widest stretch
    /// inside the polygon along one line of latitude: the one halfway between the nearest
    /// vertex latitudes around the middle of the bounds, so the line meets no vertex (as GEOS's
    /// `InteriorPointArea`). Unlike the centroid it is inside a crescent or a ring too.
    /// Longitude in −180…180; nil for a polygon with no area (all its points on one latitude).
    public var interiorPoint: LonLat? {
        let rings = [exterior] + holes
        let middle = (bounds.minLat + bounds.maxLat) / 2
        var below = -Double.infinity
        var above = Double.infinity
        for ring in rings {
            for p in ring {
                if p.lat <= middle {
                    below = Swift.max(below, p.lat)
                } else {
                    above = Swift.min(above, p.lat)
                }
            }
        }
        guard below.isFinite, above.isFinite else { return nil }
        let y = (below + above) / 2
        var crossings: [Double] = []
        for ring in rings where ring.count > 1 {
            for i in 0..<(ring.count - 1) {
                let a = ring[i]
                let b = ring[i + 1]
                // The same arithmetic as `contains`, so the point tests inside there too.
                if (a.lat > y) != (b.lat > y) {
                    crossings.append((b.lon - a.lon) * (y - a.lat) / (b.lat - a.lat) + a.lon)
                }
            }
        }
        crossings.sort()
        // Even–odd: between crossings 0 and 1, 2 and 3, … the line is inside.
        var best: (width: Double, x: Double)?
        for k in stride(from: 0, to: crossings.count - 1, by: 2) {
            let width = crossings[k + 1] - crossings[k]
            if width > (best?.width ?? 0) { best = (width, (crossings[k] + crossings[k + 1]) / 2) }
        }
        guard var x = best?.x else { return nil }
        // An unwrapped ring (across ±180°) may place it past the antimeridian.
        if x > 180 { x -= 360 } else if x < -180 { x += 360 }
        return LonLat(lon: x, lat: y)
    }
}

extension MultiPolygon {
    /// The interior point of the largest part (by area): see `Polygon.interiorPoint`.
    public var interiorPoint: LonLat? {
        polygons.max { $0.area < $1.area }?.interiorPoint
    }
}
