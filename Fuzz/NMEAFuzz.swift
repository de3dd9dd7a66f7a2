// libFuzzer entry point for NMEAParser (built by Scripts/fuzz nmea, not by SwiftPM).
import Positioning

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    var parser = NMEAParser()
    // Split at an input-chosen point so chunk boundaries are explored too.
    let cut = size > 0 ? Int(bytes[0]) % (size + 1) : 0
    let events = parser.feed(bytes[..<cut]) + parser.feed(bytes[cut...]) + parser.finish()
    for case .fix(let f) in events where !f.isPlausible { fatalError("implausible fix \(f)") }
    return 0
}
