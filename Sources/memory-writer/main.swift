// Test-only: saves a memory to the file named by the one argument, step after step, until it
// is killed. Step n's memory is a pure function of n (StorageTests rebuilds it to compare):
// 200 buildings whose names, times and doors all carry n, about 100 KB, so a kill often
// lands in the middle of a write.
import Arrival
import Foundation
import Geo
import Storage

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: memory-writer FILE\n".utf8))
    exit(2)
}
let path = CommandLine.arguments[1]

func memory(step: Int) -> EntranceMemory {
    let changed = Date(timeIntervalSince1970: 1_700_000_000 + Double(step))
    return EntranceMemory(
        buildings: (0..<EntranceMemory.limit).map { k in
            let center = Coordinate(latitude: 60 + Double(k) * 0.01, longitude: 24.9)
            let door = Coordinate(latitude: center.latitude + Double(step % 1000) * 1e-6, longitude: 24.9001)
            return EntranceMemory.Building(
                name: "step \(step) building \(k)", center: center, changed: changed,
                confirmed: Door(coordinate: door, source: .walker, level: "\(k % 3)", note: "문 \(step)"),
                rejected: [Coordinate(latitude: center.latitude, longitude: 24.9005)],
                osm: .init(read: changed, doors: [Door(coordinate: door, source: .osm, label: "A\(step)")]))
        })
}

var step: Int
do {
    let current = try MemoryFile.read(path: path)
    step = current.buildings.first.flatMap { Int($0.name.split(separator: " ")[1]) } ?? 0
} catch {
    FileHandle.standardError.write(Data("memory-writer: \(error)\n".utf8))
    exit(3)
}
// Tell the test the loop starts now, so its random kill lands among the saves, not the start.
FileHandle.standardOutput.write(Data("ready\n".utf8))
while true {
    step += 1
    do {
        try MemoryFile.save(memory(step: step), path: path)
    } catch {
        FileHandle.standardError.write(Data("memory-writer: \(error)\n".utf8))
        exit(1)
    }
}
