// Shared by every fuzz target (Scripts/fuzz compiles it in beside the target's file).

/// Stops the run when a message meant for a user shows Foundation's or Swift's insides:
/// "NSCocoaErrorDomain error 256", "Dictionary<String, Any>", "DecodingError"… — every
/// message names the file or request, the line or field and the reason in plain words.
func requirePlainWords(_ message: String, _ input: [UInt8]) {
    let leaks = [
        "ErrorDomain", "Swift.", "Dictionary<", "Array<", "DecodingError", "CodingKeys", "NSDebugDescription",
        "Optional(", "The operation could not be completed", "The data couldn",
    ]
    for leak in leaks where message.contains(leak) {
        fatalError("message shows \"\(leak)\": \(message)")
    }
}
