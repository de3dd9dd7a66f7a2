/// How multipolygon buildings are put together from their member ways.
enum BuildingAssembly {
    /// Joins way pieces end to end into rings, as multipolygon members may be split into
    /// several ways. A chain that cannot be closed is kept as it is (closed implicitly),
    /// since an extract's edge often cuts one.
    static func joinRings(_ pieces: [[Int64]]) -> [[Int64]] {
        var open = pieces
        var rings: [[Int64]] = []
        while !open.isEmpty {
            var chain = open.removeFirst()
            while chain.count < 2 || chain.first != chain.last {
                guard let tail = chain.last,
                    let i = open.firstIndex(where: { $0.first == tail || $0.last == tail })
                else { break }
                let next = open.remove(at: i)
                chain += (next.first == tail ? next : next.reversed()).dropFirst()
            }
            rings.append(chain)
        }
        return rings
    }
}
