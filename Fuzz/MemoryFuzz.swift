// libFuzzer entry point for the memory JSON reader (built by Scripts/fuzz memory).
import Foundation
import Storage

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        let memory = try MemoryFile.decode(Data(bytes), path: "memory.json")
        // What was read must survive a save and a read unchanged.
        let again = try MemoryFile.decode(MemoryFile.encode(memory), path: "memory.json")
        if again != memory { fatalError("memory changed on a save and read") }
    } catch let error as MemoryFileError {
        requirePlainWords("\(error)", bytes)
    } catch {
        fatalError("unexpected error type: \(error)")
    }
    return 0
}
