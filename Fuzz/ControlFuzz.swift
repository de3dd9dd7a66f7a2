// libFuzzer entry point for the control socket's request parser (built by Scripts/fuzz
// control; ControlRequest.swift and JSONValue.swift are compiled into this executable).
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    switch ControlRequest.parse(Data(bytes)) {
    case .success: break
    case .failure(let error): requirePlainWords(error.message, bytes)
    }
    return 0
}
