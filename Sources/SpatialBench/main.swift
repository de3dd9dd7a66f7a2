// Spatial-search benchmark: QuadTree, grid hash, k-d tree and brute force side by side for
// n = 10³ … 10⁶ points, then `doors near` on a synthetic 10⁶-door SQLite index.
// Run through Scripts/bench-spatial (release build). Options: --max-exponent E (default 6),
// --queries Q (default 10000), --doors N (default 1000000).
import Arrival
import EntranceIndex
import Foundation
import Geo
import OSM
import SystemCalls

func option(_ name: String, _ fallback: Int) -> Int {
    let args = CommandLine.arguments
    guard let i = args.firstIndex(of: name), i + 1 < args.count, let v = Int(args[i + 1]) else {
        return fallback
    }
    return v
}

func seconds(_ body: () -> Void) -> Double {
    let start = ContinuousClock.now
    body()
    return (ContinuousClock.now - start).inSeconds
}

func ms(_ s: Double) -> String { String(format: "%9.1f", s * 1000) }

func run() throws {
    let maxExponent = option("--max-exponent", 6)
    let queryCount = option("--queries", 10_000)
    let doorCount = option("--doors", 1_000_000)
    let radius = 150.0
    // A 20 km × 20 km square over Helsinki: at 10⁶ points about 177 answers per 150 m query.
    let center = Coordinate(latitude: 60.1712, longitude: 24.9413)
    let halfLat = 10_000 / Coordinate.earthRadiusMetres * 180 / .pi
    let halfLon = halfLat / cos(center.latitude * .pi / 180)
    var rng = SeededRandom(seed: 42)
    func randomPoint() -> Coordinate {
        Coordinate(
            latitude: center.latitude + Double.random(in: -halfLat...halfLat, using: &rng),
            longitude: center.longitude + Double.random(in: -halfLon...halfLon, using: &rng))
    }

    print(
        "Spatial search: \(queryCount) radius queries of \(Int(radius)) m, uniform points over 20 km × 20 km")
    print("(times in ms; brute force at large n runs a sample of the queries and is scaled to \(queryCount))")
    print()
    print(
        "        n | build quad | build grid |   build kd | query quad | query grid |   query kd |  query brute | quad ×"
    )
    print(
        "----------|------------|------------|------------|------------|------------|------------|--------------|-------"
    )
    for exponent in 3...maxExponent {
        let n = Int(pow(10, Double(exponent)))
        let points = (0..<n).map { _ in randomPoint() }
        let queries = (0..<queryCount).map { _ in randomPoint() }
        var quad = QuadTree<Int32>()
        var grid = GridHash<Int32>(radiusMetres: radius, upToLatitude: 61)
        var kd = KDTree<Int32>([])
        let buildQuad = seconds { for (i, p) in points.enumerated() { quad.insert(Int32(i), at: p) } }
        let buildGrid = seconds { for (i, p) in points.enumerated() { grid.insert(Int32(i), at: p) } }
        let buildKD = seconds {
            kd = KDTree(points.enumerated().map { (element: Int32($0.offset), coordinate: $0.element) })
        }
        var found = (quad: 0, grid: 0, kd: 0, brute: 0, quadSample: 0)
        let queryQuad = seconds { for q in queries { found.quad += quad.items(within: radius, of: q).count } }
        let queryGrid = seconds { for q in queries { found.grid += grid.items(within: radius, of: q).count } }
        let queryKD = seconds { for q in queries { found.kd += kd.items(within: radius, of: q).count } }
        // Brute force: every query checks every point, n × Q distances; sample at large n.
        let sample = min(queryCount, max(100, 200_000_000 / n))
        let bruteSample = seconds {
            for q in queries.prefix(sample) {
                var hits: [(Int, Double)] = []
                for (i, p) in points.enumerated() {
                    let d = q.distance(to: p)
                    if d <= radius { hits.append((i, d)) }
                }
                hits.sort { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0 < $1.0 }
                found.brute += hits.count
            }
        }
        for q in queries.prefix(sample) { found.quadSample += quad.items(within: radius, of: q).count }
        guard found.quad == found.grid, found.grid == found.kd, found.quadSample == found.brute else {
            print("MISMATCH at n=\(n): \(found)")
            exit(1)
        }
        let brute = bruteSample * Double(queryCount) / Double(sample)
        let note = sample < queryCount ? "*" : " "
        print(
            String(format: "%9d", n) + " | " + ms(buildQuad) + "  | " + ms(buildGrid) + "  | " + ms(buildKD)
                + "  | "
                + ms(queryQuad) + "  | " + ms(queryGrid) + "  | " + ms(queryKD) + "  | " + ms(brute) + note
                + "   | "
                + String(format: "%5.0f", brute / queryQuad))
        if sample < queryCount {
            print("          (* brute force: \(sample) queries timed, scaled ×\(queryCount / sample))")
        }
    }
    print()

    // Door index: a synthetic city of 20 m × 20 m buildings on a 40 m grid, four entrances each
    // (mid-wall nodes on the outline), written by the real importer, queried read-only.
    let perSide = Int(Double(doorCount / 4).squareRoot().rounded(.up))
    let metresPerDegree = Coordinate.earthRadiusMetres * .pi / 180
    let lonScale = cos(center.latitude * .pi / 180)
    func at(_ xMetres: Double, _ yMetres: Double) -> Coordinate {
        Coordinate(
            latitude: center.latitude + yMetres / metresPerDegree,
            longitude: center.longitude + xMetres / (metresPerDegree * lonScale))
    }
    var data = OSMData()
    var nextNode: Int64 = 1
    let kinds = ["main", "yes", "service", "staircase"]
    for row in 0..<perSide {
        for column in 0..<perSide where data.ways.count * 4 < doorCount {
            let x = Double(column) * 40
            let y = Double(row) * 40
            let corners = [at(x, y), at(x + 20, y), at(x + 20, y + 20), at(x, y + 20)]
            let doors = [at(x + 10, y), at(x + 20, y + 10), at(x + 10, y + 20), at(x, y + 10)]
            var ring: [Int64] = []
            for k in 0..<4 {
                data.nodes.append(OSMNode(id: nextNode, coordinate: corners[k], tags: [:]))
                ring.append(nextNode)
                data.nodes.append(
                    OSMNode(id: nextNode + 1, coordinate: doors[k], tags: ["entrance": kinds[k]]))
                ring.append(nextNode + 1)
                nextNode += 2
            }
            data.ways.append(
                OSMWay(id: Int64(data.ways.count + 1), nodeIDs: ring + [ring[0]], tags: ["building": "yes"]))
        }
    }
    let dbPath = FileManager.default.temporaryDirectory.appendingPathComponent("spatial-bench-doors.db").path
    try? FileManager.default.removeItem(atPath: dbPath)
    var summary: DoorImportSummary?
    let writeTime = seconds { summary = try? DoorImporter.write(data, to: dbPath, source: "synthetic") }
    guard let summary else {
        print("door index: writing failed")
        exit(1)
    }
    let size = (try? FileManager.default.attributesOfItem(atPath: dbPath)[.size] as? Int) ?? 0
    print(
        "Door index: \(summary.entrances) doors, \(summary.buildingWays) buildings written in "
            + String(format: "%.1f s (%.0f MB)", writeTime, Double(size) / 1e6))
    let index = try DoorIndex(path: dbPath)
    let span = Double(perSide) * 40
    // Wall time and this thread's CPU time per query: on a shared 2-core machine the wall
    // tail is mostly other processes pre-empting us; the CPU tail is the query's own cost.
    var wall: [Double] = []
    var cpu: [Double] = []
    var doorsFound = 0
    var inside = 0
    for _ in 0..<queryCount {
        let q = at(Double.random(in: 0..<span, using: &rng), Double.random(in: 0..<span, using: &rng))
        let c0 = threadCPUSeconds()
        var result: DoorsNearResult?
        let t = seconds { result = try? index.doors(near: q) }
        cpu.append(threadCPUSeconds() - c0)
        wall.append(t)
        doorsFound += result?.doors.count ?? 0
        if result?.building?.metres == 0 { inside += 1 }
    }
    func percentiles(_ values: [Double]) -> String {
        let v = values.sorted()
        func p(_ q: Double) -> Double { v.quantile(q) * 1000 }
        return String(format: "p50 %.3f ms, p99 %.3f ms, max %.3f ms", p(0.5), p(0.99), v.last! * 1000)
    }
    print(
        "doors near: \(queryCount) random points (\(inside) inside a building, the rest within 50 m of one), "
            + "\(doorsFound / max(1, queryCount)) doors each on average")
    print("  wall time:         " + percentiles(wall))
    print("  thread CPU time:   " + percentiles(cpu))
    try? FileManager.default.removeItem(atPath: dbPath)
}

try run()
