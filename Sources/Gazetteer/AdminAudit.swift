import Geo
import SQLite

/// Joins Natural Earth polygons to GeoNames countries and regions, then checks every claim
/// with the cities as the oracle: a polygon that claims a region must contain a convincing
/// share of that region's own cities.
struct AdminAudit {
    /// A region polygon's claim holds when at least this share of the cities inside it
    /// belong to the claimed region; a reassignment needs the same share for the new one.
    static let convincingShare = 0.5

    /// What happened to one polygon, for the report.
    struct Decision: Sendable {
        enum Outcome: String, Sendable {
            case validated, unverified, reassigned, excluded, patched, dropped
        }
        var layer: String
        var fid: Int64
        var sourceName: String
        var join: String
        var claimed: String?
        var outcome: Outcome
        var country: String?
        var region: String?
        var citiesInside: Int
        var share: Double
    }

    /// A polygon part with the IDs the audit gave it.
    struct Assigned: Sendable {
        var layer: String
        var fid: Int64
        var sourceName: String
        var country: String
        var region: String?
        var polygons: [Polygon]
    }

    let regions: [String: SourceRegion]
    let countries: Set<String>
    let iso3ToISO: [String: String]
    let oracle: CityGrid

    /// Region polygons: join (FIPS, then name), validate, reassign or exclude.
    func regionBoundaries(_ boundaries: [SourceBoundary]) -> ([Assigned], [Decision]) {
        var namesByCountry: [String: [String: String]] = [:]  // country → folded name → code
        for region in regions.values.sorted(by: { $0.code < $1.code }) {
            for name in [region.name] + region.aliases {
                let folded = Fold.fold(name)
                if namesByCountry[region.country, default: [:]][folded] == nil {
                    namesByCountry[region.country, default: [:]][folded] = region.code
                }
            }
        }
        var assigned: [Assigned] = []
        var decisions: [Decision] = []
        for b in boundaries {
            let polygons = b.rings.map { Polygon(exterior: $0.first ?? [], holes: Array($0.dropFirst())) }
            let shape = MultiPolygon(polygons)
            var claim: String?
            var join = "none"
            if b.fips.count > 2, regions["\(b.isoA2).\(b.fips.dropFirst(2))"] != nil {
                claim = "\(b.isoA2).\(b.fips.dropFirst(2))"
                join = "fips"
            } else {
                for name in b.names {
                    if let code = namesByCountry[b.isoA2]?[Fold.fold(name)] {
                        claim = code
                        join = "name"
                        break
                    }
                }
            }
            let inside = oracle.cities(in: shape)
            var byRegion: [String: Int] = [:]
            var byCountry: [String: Int] = [:]
            for city in inside {
                byCountry[city.country, default: 0] += 1
                if regions[city.regionCode] != nil { byRegion[city.regionCode, default: 0] += 1 }
            }
            let majorityRegion = byRegion.max { ($0.value, $1.key) < ($1.value, $0.key) }
            let majorityCountry = byCountry.max { ($0.value, $1.key) < ($1.value, $0.key) }
            let total = inside.count
            var outcome: Decision.Outcome
            var region: String?
            var share = 0.0
            if total == 0 {
                region = claim
                outcome = .unverified
            } else if let claim, Double(byRegion[claim] ?? 0) / Double(total) >= Self.convincingShare {
                region = claim
                share = Double(byRegion[claim] ?? 0) / Double(total)
                outcome = .validated
            } else if let m = majorityRegion, Double(m.value) / Double(total) >= Self.convincingShare {
                region = m.key
                share = Double(m.value) / Double(total)
                outcome = .reassigned
            } else {
                region = nil
                share = claim.map { Double(byRegion[$0] ?? 0) / Double(total) } ?? 0
                outcome = .excluded
            }
            var country = region.flatMap { regions[$0]?.country }
            if country == nil {
                if let m = majorityCountry, countries.contains(m.key) {
                    country = m.key
                } else if countries.contains(b.isoA2) {
                    country = b.isoA2
                }
            }
            if country == nil { outcome = .dropped }
            decisions.append(
                Decision(
                    layer: b.layer, fid: b.fid, sourceName: b.name, join: join, claimed: claim,
                    outcome: outcome,
                    country: country, region: region, citiesInside: total, share: share))
            if let country {
                assigned.append(
                    Assigned(
                        layer: b.layer, fid: b.fid, sourceName: b.name, country: country, region: region,
                        polygons: polygons))
            }
        }
        return (assigned, decisions)
    }

    /// Country polygons, part by part: a part whose cities belong to another country the
    /// gazetteer knows (an inhabited dependency folded into its parent) goes to that country.
    func countryBoundaries(_ boundaries: [SourceBoundary]) -> ([Assigned], [Decision]) {
        var assigned: [Assigned] = []
        var decisions: [Decision] = []
        for b in boundaries {
            let own: String? =
                countries.contains(b.isoA2) ? b.isoA2 : iso3ToISO[b.iso3]
            var parts: [String: [Polygon]] = [:]
            for rings in b.rings {
                let polygon = Polygon(exterior: rings.first ?? [], holes: Array(rings.dropFirst()))
                let inside = oracle.cities(in: MultiPolygon([polygon]))
                var byCountry: [String: Int] = [:]
                for city in inside where countries.contains(city.country) {
                    byCountry[city.country, default: 0] += 1
                }
                let majority = byCountry.max { ($0.value, $1.key) < ($1.value, $0.key) }
                // Patched only where the feature's own country has no city at all: a part
                // that holds some of its own cities (Macao beside Zhuhai) stays its own.
                let ownCities = own.flatMap { byCountry[$0] } ?? 0
                if let majority, majority.key != own, ownCities == 0,
                    Double(majority.value) / Double(inside.count) >= Self.convincingShare
                {
                    parts[majority.key, default: []].append(polygon)
                    decisions.append(
                        Decision(
                            layer: b.layer, fid: b.fid, sourceName: b.name, join: "part", claimed: own,
                            outcome: .patched, country: majority.key, region: nil, citiesInside: inside.count,
                            share: Double(majority.value) / Double(inside.count)))
                } else if let own {
                    parts[own, default: []].append(polygon)
                }
            }
            if own == nil && parts.isEmpty {
                decisions.append(
                    Decision(
                        layer: b.layer, fid: b.fid, sourceName: b.name, join: "iso", claimed: nil,
                        outcome: .dropped,
                        country: nil, region: nil, citiesInside: 0, share: 0))
            }
            for (country, polygons) in parts.sorted(by: { $0.key < $1.key }) {
                assigned.append(
                    Assigned(
                        layer: b.layer, fid: b.fid, sourceName: b.name, country: country, region: nil,
                        polygons: polygons))
            }
        }
        return (assigned, decisions)
    }
}

/// Cities bucketed by whole degrees, to find the ones inside a polygon quickly.
struct CityGrid {
    private var cells: [Int: [SourceCity]] = [:]

    init(_ cities: [SourceCity]) {
        for city in cities {
            cells[Self.key(Int(city.lat.rounded(.down)), Int(city.lon.rounded(.down))), default: []].append(
                city)
        }
    }

    static func key(_ lat: Int, _ lon: Int) -> Int { (lat + 90) * 1000 + (lon + 180) }

    /// Cities in the box, in ascending geonameid order.
    func cities(near box: BoundingBox) -> [SourceCity] {
        guard box.minLat <= box.maxLat else { return [] }
        var out: [SourceCity] = []
        let lat0 = Int(box.minLat.rounded(.down))
        let lat1 = Int(box.maxLat.rounded(.down))
        let lon0 = max(-180, Int(box.minLon.rounded(.down)))
        let lon1 = min(179, Int(box.maxLon.rounded(.down)))
        guard lon0 <= lon1 else { return [] }
        for lat in lat0...lat1 {
            for lon in lon0...lon1 {
                out += cells[Self.key(lat, lon)] ?? []
            }
        }
        return out.sorted { $0.geonameid < $1.geonameid }
    }

    /// Cities inside `shape`.
    func cities(in shape: MultiPolygon) -> [SourceCity] {
        cities(near: shape.bounds).filter { shape.contains(lon: $0.lon, lat: $0.lat) }
    }
}
