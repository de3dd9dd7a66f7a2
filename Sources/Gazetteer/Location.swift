/// What reverse geocoding says about a point.
package struct Location: Sendable, Hashable {
    /// A country or region: its stable ID (`FI`, `FI.01`) and display name.
    package struct Area: Sendable, Hashable {
        package var id: String
        package var name: String
    }

    /// The nearest city in the constraint, and how far, metres.
    package struct City: Sendable, Hashable {
        package var id: Int64
        package var name: String
        package var metres: Double
    }

    /// An airport close enough to name, metres away.
    package struct Airport: Sendable, Hashable {
        package var id: Int64
        package var iata: String
        package var icao: String?
        package var name: String
        package var metres: Double
    }

    package var country: Area?
    package var region: Area?
    package var city: City?
    package var airport: Airport?
    /// No polygon contains the point: at sea, or off the simplified coast.
    package var atSea: Bool

    /// The IDs alone, which the fast path and the reference must agree on.
    package var ids: IDs {
        IDs(country: country?.id, region: region?.id, city: city?.id, airport: airport?.id)
    }

    package struct IDs: Sendable, Hashable, CustomStringConvertible {
        package var country: String?
        package var region: String?
        package var city: Int64?
        package var airport: Int64?
        /// Distances ride along for the answer but are not part of the identity.
        var cityMetres: Double? = nil
        var airportMetres: Double? = nil

        package static func == (a: IDs, b: IDs) -> Bool {
            (a.country, a.region, a.city, a.airport) == (b.country, b.region, b.city, b.airport)
        }
        package func hash(into hasher: inout Hasher) {
            hasher.combine(country)
            hasher.combine(region)
            hasher.combine(city)
            hasher.combine(airport)
        }

        package init(country: String?, region: String?, city: Int64?, airport: Int64?) {
            self.country = country
            self.region = region
            self.city = city
            self.airport = airport
        }

        package var description: String {
            "country \(country ?? "-") region \(region ?? "-") city \(city.map(String.init) ?? "-") airport \(airport.map(String.init) ?? "-")"
        }
    }

    /// The same JSON as `json`, appended as UTF-8 bytes: the `--stdin` path, where building
    /// Strings would cost more than the query. Built from the same pieces the reverse
    /// geocoder caches (`JSONPieces`), so both paths write identical bytes.
    package func appendJSON(to out: inout [UInt8]) {
        JSONPieces.head(country: country, region: region, to: &out)
        if let c = city {
            JSONPieces.cityHead(id: c.id, name: c.name, to: &out)
            JSONPieces.metresTail(c.metres, to: &out)
        } else {
            JSONPieces.text("null", to: &out)
        }
        if let a = airport {
            JSONPieces.airportHead(iata: a.iata, icao: a.icao, name: a.name, to: &out)
            JSONPieces.metresTail(a.metres, to: &out)
        }
        JSONPieces.end(atSea: atSea, to: &out)
    }

    /// The CONTRACT's one-line JSON: country, region, city, airport (when near), sea.
    package var json: String {
        func area(_ a: Area?) -> String {
            a.map { "{\"id\":\(JSONText.quote($0.id)),\"name\":\(JSONText.quote($0.name))}" } ?? "null"
        }
        var out = "{\"country\":\(area(country)),\"region\":\(area(region)),\"city\":"
        if let c = city {
            out +=
                "{\"id\":\(c.id),\"name\":\(JSONText.quote(c.name)),\"metres\":\(Int64(c.metres.rounded()))}"
        } else {
            out += "null"
        }
        if let a = airport {
            out +=
                ",\"airport\":{\"iata\":\(JSONText.quote(a.iata)),\"icao\":\(a.icao.map(JSONText.quote) ?? "null")"
            out += ",\"name\":\(JSONText.quote(a.name)),\"metres\":\(Int64(a.metres.rounded()))}"
        }
        if atSea { out += ",\"sea\":true" }
        return out + "}"
    }
}

/// The reverse-geocoding rules both paths share.
enum ReverseRules {
    /// How near an airport must be to be named, metres, by OurAirports type: a large
    /// airport's terminals and aprons reach farther from its reference point.
    static let airportRadius: [String: Double] = [
        "large_airport": 6_000, "medium_airport": 3_000,
    ]
    /// Every other type (small airports, heliports, seaplane bases).
    static let otherAirportRadius = 1_500.0

    static func radius(_ type: String) -> Double { airportRadius[type] ?? otherAirportRadius }

    /// At sea (no polygon), the nearest city is named only within this distance, metres:
    /// "30 km off Helsinki" helps, a city across an ocean does not.
    static let seaCityMetres = 200_000.0
}

/// The pieces of a `Location`'s JSON line, as UTF-8 bytes. A line is `head` (country and
/// region, up to `"city":`), then `cityHead` + `metresTail` or `null`, then `airportHead` +
/// `metresTail` when an airport is near, then `end`. The heads depend only on the place,
/// so the geocoder caches them per boundary, city and airport.
enum JSONPieces {
    static func text(_ s: String, to out: inout [UInt8]) { out.append(contentsOf: s.utf8) }

    static func quoted(_ s: String, to out: inout [UInt8]) {
        if s.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) {
            text(JSONText.quote(s), to: &out)
        } else {
            out.append(0x22)
            out.append(contentsOf: s.utf8)
            out.append(0x22)
        }
    }

    /// Decimal digits without building a String: the per-point metres go through here.
    static func integer(_ v: Int64, to out: inout [UInt8]) {
        if v < 0 { out.append(0x2D) }
        let start = out.count
        var x = v.magnitude
        repeat {
            out.append(UInt8(x % 10) + 0x30)
            x /= 10
        } while x > 0
        out[start...].reverse()  // least significant digit came first
    }

    static func area(_ a: Location.Area?, to out: inout [UInt8]) {
        guard let a else { return text("null", to: &out) }
        text("{\"id\":", to: &out)
        quoted(a.id, to: &out)
        text(",\"name\":", to: &out)
        quoted(a.name, to: &out)
        out.append(0x7D)
    }

    /// `{"country":…,"region":…,"city":`
    static func head(country: Location.Area?, region: Location.Area?, to out: inout [UInt8]) {
        text("{\"country\":", to: &out)
        area(country, to: &out)
        text(",\"region\":", to: &out)
        area(region, to: &out)
        text(",\"city\":", to: &out)
    }

    /// `{"id":…,"name":…,"metres":`
    static func cityHead(id: Int64, name: String, to out: inout [UInt8]) {
        text("{\"id\":", to: &out)
        integer(id, to: &out)
        text(",\"name\":", to: &out)
        quoted(name, to: &out)
        text(",\"metres\":", to: &out)
    }

    /// `,"airport":{"iata":…,"icao":…,"name":…,"metres":`
    static func airportHead(iata: String, icao: String?, name: String, to out: inout [UInt8]) {
        text(",\"airport\":{\"iata\":", to: &out)
        quoted(iata, to: &out)
        text(",\"icao\":", to: &out)
        if let icao { quoted(icao, to: &out) } else { text("null", to: &out) }
        text(",\"name\":", to: &out)
        quoted(name, to: &out)
        text(",\"metres\":", to: &out)
    }

    /// Whole metres and the closing brace.
    static func metresTail(_ metres: Double, to out: inout [UInt8]) {
        integer(Int64(metres.rounded()), to: &out)
        out.append(0x7D)
    }

    /// `,"sea":true` at sea, and the line's closing brace.
    static func end(atSea: Bool, to out: inout [UInt8]) {
        if atSea { text(",\"sea\":true", to: &out) }
        out.append(0x7D)
    }
}
