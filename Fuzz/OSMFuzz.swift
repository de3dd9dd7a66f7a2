// libFuzzer entry point for the OSM XML and Overpass JSON readers (built by Scripts/fuzz osm).
import Foundation
import OSM

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        // The first byte chooses the reader (as OSMReader does), so both are explored.
        _ = try OSMReader.read(data: Data(bytes), path: "doors.osm")
    } catch {
        requirePlainWords("\(error)", bytes)
    }
    return 0
}
