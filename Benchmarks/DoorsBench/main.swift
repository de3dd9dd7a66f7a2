// The door index's benchmark helper (release; run by Scripts/bench-doors-import):
//   DoorsBench city N OUT.opl [--word-streets]
//                                 a synthetic grid city of N buildings, as OPL for osmium;
//                                 its streets words ("Rimivakatu") instead of "Street 628"
//   DoorsBench search DB N        N searches on a city index: p50/p99 per kind of query
//   DoorsBench addresses DB N Q   Q address searches on a --word-streets index as people write them (a city, a
//                                 postcode, a letter not tagged after the number, a flat, the
//                                 city first, the number first), through
//                                 every shorter form (`doors search --near`): p50/p95 per kind
import EntranceIndex
import Foundation
import Geo
import SystemCalls

/// The grid: building i at row i / side, column i % side, 35 m apart, 20 m a side, in
/// Seoul's latitude. Every 5th has a main entrance, every 10th a name, every 20th a shop
/// inside, every 7th row a Korean road address, every 1 000th is a multipolygon relation.
struct City {
    let n: Int
    let side: Int
    /// Streets named by words ("Rimivakatu" for row 627), as most are: "Street 628 411, Seoul"
    /// is read as the house number 628 of "Street", whose shorter form is "Street 628".
    var wordStreets = false
    let lat0 = 37.40
    let lon0 = 126.80
    let dLat = 35.0 / 111_195
    var dLon: Double { dLat / cos(lat0 * .pi / 180) }

    init(n: Int, wordStreets: Bool = false) {
        self.n = n
        self.wordStreets = wordStreets
        side = Int(Double(n).squareRoot().rounded(.up))
    }

    func corner(_ i: Int, _ k: Int) -> (lat: Double, lon: Double) {
        let size = 20.0 / 35
        let lat = lat0 + Double(i / side) * dLat + (k >= 2 ? size * dLat : 0)
        let lon = lon0 + Double(i % side) * dLon + (k == 1 || k == 2 ? size * dLon : 0)
        return (lat, lon)
    }

    func centre(_ i: Int) -> Coordinate {
        Coordinate(
            latitude: lat0 + Double(i / side) * dLat + 10.0 / 35 * dLat,
            longitude: lon0 + Double(i % side) * dLon + 10.0 / 35 * dLon)
    }

    /// A random building with an address (every 1 000th way is a relation's untagged member).
    func randomBuilding(using rng: inout some RandomNumberGenerator) -> Int {
        let i = Int.random(in: 0..<n, using: &rng)
        return i % 1000 == 999 ? i - 1 : i
    }

    /// Where the walker stands for the address benchmark: the middle building's centre.
    var walker: Coordinate { centre(side / 2 * side + side / 2) }

    func isKorean(_ i: Int) -> Bool { (i / side) % 7 == 0 }
    /// Korean road names end in 길 after their number, as "세종대로23길" does.
    func street(_ i: Int) -> String {
        if isKorean(i) { return "세종대로\(i / side + 1)길" }
        guard wordStreets else { return "Street \(i / side + 1)" }
        let syllables = ["ka", "lo", "mi", "nu", "pe", "ri", "so", "tu", "va", "ye"]
        return String(i / side + 1).map { syllables[Int(String($0))!] }.joined().capitalized + "katu"
    }
    func number(_ i: Int) -> String { String(i % side + 1) }
}

/// OPL's escaping: anything but plain letters, digits and a few marks as %hex%.
func opl(_ s: String) -> String {
    var out = ""
    for scalar in s.unicodeScalars {
        if scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "-")
        {
            out.unicodeScalars.append(scalar)
        } else {
            out += "%\(String(scalar.value, radix: 16))%"
        }
    }
    return out
}

func writeCity(_ city: City, to path: String) throws {
    _ = FileManager.default.createFile(atPath: path, contents: nil)
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    var buffer = ""
    func emit(_ line: String) throws {
        buffer += line
        buffer += "\n"
        if buffer.utf8.count > 1 << 20 {
            try handle.write(contentsOf: Data(buffer.utf8))
            buffer = ""
        }
    }
    func f(_ v: Double) -> String { String(format: "%.7f", v) }
    for i in 0..<city.n {
        for k in 0..<4 {
            let c = city.corner(i, k)
            let tags = k == 0 && i % 5 == 0 ? "Tentrance=main" : "T"
            try emit("n\(4 * i + k + 1) \(tags) x\(f(c.lon)) y\(f(c.lat))")
        }
    }
    for i in stride(from: 0, to: city.n, by: 20) {
        let c = city.centre(i)
        try emit(
            "n\(4 * city.n + i + 1) Tshop=bakery,name=\(opl("Shop \(i)")) x\(f(c.longitude)) y\(f(c.latitude))"
        )
    }
    for i in 0..<city.n {
        let nodes = [0, 1, 2, 3, 0].map { "n\(4 * i + $0 + 1)" }.joined(separator: ",")
        if i % 1000 == 999 {
            try emit("w\(i + 1) T N\(nodes)")
            continue
        }
        var tags = "building=yes,addr:street=\(opl(city.street(i))),addr:housenumber=\(city.number(i))"
        if i % 10 == 0 { tags += ",name=\(opl("Building \(i)"))" }
        try emit("w\(i + 1) T\(tags) N\(nodes)")
    }
    for i in stride(from: 999, to: city.n, by: 1000) {
        try emit("r\(i + 1) Ttype=multipolygon,building=yes,name=\(opl("Hall \(i)")) Mw\(i + 1)@outer")
    }
    try handle.write(contentsOf: Data(buffer.utf8))
    try handle.close()
}

func benchSearch(db: String, n: Int, queries: Int) throws {
    let index = try DoorIndex(path: db)
    let city = City(n: n)
    var rng = SystemRandomNumberGenerator()
    var times: [String: [Double]] = [:]
    var cpuTimes: [String: [Double]] = [:]
    var missed = 0
    for q in 0..<queries {
        let i = city.randomBuilding(using: &rng)
        let named = i - i % 10
        let shop = i - i % 20
        let kinds: [(String, String, Int)] = [
            ("address", "\(city.street(i)) \(city.number(i))", i),
            ("address reversed", "\(city.number(i)) \(city.street(i))", i),
            // Cut short: the start of the street after the number (many streets start so).
            ("address reversed, cut short", "\(city.number(i)) \(city.street(i).dropLast())", -1),
            (
                "korean, no space",
                city.isKorean(i)
                    ? "\(city.street(i))\(city.number(i))" : "\(city.street(i)) \(city.number(i))", i
            ),
            ("name", "Building \(named)", named),
            ("name prefix", "Building \(named / 100)", -1),
            ("shop inside", "Shop \(shop)", shop),
        ]
        let (kind, query, expected) = kinds[q % kinds.count]
        let near: Coordinate? = (q / kinds.count) % 2 == 0 ? city.centre(i) : nil
        let start = DispatchTime.now().uptimeNanoseconds
        let cpuStart = threadCPUSeconds()
        let found = try index.search(query, near: near, limit: 10)
        let cpu = (threadCPUSeconds() - cpuStart) * 1e3
        let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        times[kind + (near == nil ? "" : " --near"), default: []].append(ms)
        times["all", default: []].append(ms)
        cpuTimes["all", default: []].append(cpu)
        cpuTimes[kind + (near == nil ? "" : " --near"), default: []].append(cpu)
        if expected >= 0 && found.first?.osm != "way/\(expected + 1)" {
            missed += 1
            if missed <= 5 {
                print("wrong: \(kind) \"\(query)\" near \(near != nil): \(found.prefix(3).map(\.osm))")
            }
        }
    }
    // Wall time and the thread's CPU time: on a shared machine the wall tail is other
    // processes pre-empting the query, which the CPU time leaves out.
    print("| query | n | wall p50 ms | wall p99 ms | CPU p50 ms | CPU p99 ms |")
    print("|---|---:|---:|---:|---:|---:|")
    func f(_ v: Double) -> String { String(format: "%.3f", v) }
    for (kind, list) in times.sorted(by: { $0.key < $1.key }) {
        let s = list.sorted()
        let c = cpuTimes[kind]!.sorted()
        print(
            "| \(kind) | \(s.count) | \(f(s.quantile(0.5))) | \(f(s.quantile(0.99))) | "
                + "\(f(c.quantile(0.5))) | \(f(c.quantile(0.99))) |")
    }
    print("wrong first answers (expected building not first): \(missed)")
}

/// The address of building `i` as people write it, one of each kind, for
/// `DoorsBench addresses` and Scripts/bench-address-search (which sends the same over the
/// daemon's socket as `go`).
func addressQueries(_ city: City, _ i: Int) -> [(kind: String, query: String)] {
    let street = city.street(i)
    let number = city.number(i)
    return [
        ("address", "\(street) \(number)"),
        ("address, city", "\(street) \(number), Seoul"),
        ("address, postcode and city", "\(street) \(number), 04524 Seoul"),
        ("address, letter not tagged", "\(street) \(number)A"),
        ("address, flat", "\(street) \(number) B 12"),
        ("city first", "Seoul, \(street) \(number)"),
        ("number first", "\(number) \(street)"),
    ]
}

/// `Q` random buildings' addresses (``addressQueries(_:_:)``) searched in every index at
/// `db` with the walker's point, as `doors search --near` does (shorter forms included): wall
/// and thread-CPU p50/p95 per kind.
func benchAddresses(db: String, n: Int, queries: Int) throws {
    let indexes = try DoorIndexes(path: db)
    let city = City(n: n, wordStreets: true)
    let walker = city.walker
    var rng = SystemRandomNumberGenerator()
    var times: [String: [Double]] = [:]
    var cpuTimes: [String: [Double]] = [:]
    var missed = 0
    for _ in 0..<queries {
        let i = city.randomBuilding(using: &rng)
        for (kind, query) in addressQueries(city, i) {
            let start = DispatchTime.now().uptimeNanoseconds
            let cpuStart = threadCPUSeconds()
            let found = try indexes.search(query, near: walker, limit: 10)
            cpuTimes[kind, default: []].append((threadCPUSeconds() - cpuStart) * 1e3)
            times[kind, default: []].append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            if found.first?.osm != "way/\(i + 1)" {
                missed += 1
                if missed <= 5 { print("wrong: \(kind) \"\(query)\": \(found.prefix(3).map(\.osm))") }
            }
        }
    }
    print("| query (with the walker's point) | n | wall p50 ms | wall p95 ms | CPU p50 ms | CPU p95 ms |")
    print("|---|---:|---:|---:|---:|---:|")
    func f(_ v: Double) -> String { String(format: "%.1f", v) }
    for (kind, _) in addressQueries(city, 0) {
        let s = times[kind]!.sorted()
        let c = cpuTimes[kind]!.sorted()
        print(
            "| \(kind) | \(s.count) | \(f(s.quantile(0.5))) | \(f(s.quantile(0.95))) | \(f(c.quantile(0.5))) | \(f(c.quantile(0.95))) |"
        )
    }
    print("wrong first answers (expected building not first): \(missed)")
}

/// One line a query: "ROW\tKIND\tQUERY", `Q` random buildings' ``addressQueries(_:_:)``, and
/// first the walker's point "LAT LON": what Scripts/bench-address-search sends as `go`.
func printAddresses(n: Int, queries: Int) {
    let city = City(n: n, wordStreets: true)
    print("\(city.walker.latitude) \(city.walker.longitude)")
    var rng = SystemRandomNumberGenerator()
    for _ in 0..<queries {
        let i = city.randomBuilding(using: &rng)
        for (kind, query) in addressQueries(city, i) { print("\(i + 1)\t\(kind)\t\(query)") }
    }
}

let args = CommandLine.arguments
switch args.dropFirst().first {
case "city" where args.count == 4 || args.count == 5 && args[4] == "--word-streets":
    try writeCity(City(n: Int(args[2])!, wordStreets: args.count == 5), to: args[3])
case "search" where args.count == 5:
    try benchSearch(db: args[2], n: Int(args[3])!, queries: Int(args[4])!)
case "addresses" where args.count == 5:
    try benchAddresses(db: args[2], n: Int(args[3])!, queries: Int(args[4])!)
case "address-queries" where args.count == 4:
    printAddresses(n: Int(args[2])!, queries: Int(args[3])!)
default:
    FileHandle.standardError.write(
        Data(
            "usage: DoorsBench city N OUT.opl [--word-streets] | search DB N QUERIES | addresses DB N QUERIES | address-queries N QUERIES\n"
                .utf8))
    exit(2)
}
