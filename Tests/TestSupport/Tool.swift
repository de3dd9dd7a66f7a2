import Foundation

/// Runs a real tool (sox, espeak-ng, python3 …) and returns its exit status; a missing tool
/// fails the test saying how to install it. Shared by the speech and command-line tests.
@discardableResult
package func run(_ tool: String, _ arguments: [String], install: String) throws -> Int32 {
    guard
        let path = ["/usr/bin/", "/usr/local/bin/", "/bin/"].map({ $0 + tool }).first(
            where: FileManager.default.isExecutableFile)
    else { throw ToolMissing(message: "\(tool) not found: apt-get install \(install)") }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
}

/// Writes to `raw` espeak-ng's "여기 아니야" as a microphone hears one person say it: raw
/// 16 kHz 16-bit mono, its leading silence cut, half a second of silence before and a second
/// after (made through `wav`, espeak-ng's own output). For ALSA's file plugin (`infile`) in the
/// capture devices the speech and daemon tests define.
package func writeSpokenAnswer(raw: String, wav: String) throws {
    guard try run("espeak-ng", ["-v", "ko", "-w", wav, "여기 아니야"], install: "espeak-ng") == 0 else {
        throw ToolMissing(message: "espeak-ng could not say 여기 아니야 into \(wav)")
    }
    guard
        try run(
            "sox",
            [
                "-R", wav, "-r", "16000", "-c", "1", "-b", "16", "-e", "signed", "-t", "raw", raw,
                "silence", "1", "0.01", "0.5%", "pad", "0.5", "1",
            ], install: "sox") == 0
    else { throw ToolMissing(message: "sox could not make \(raw) from \(wav)") }
}

/// A tool a test needs is missing, or failed; the message says which and what to do.
package struct ToolMissing: Error, CustomStringConvertible {
    package var message: String
    package var description: String { message }
    package init(message: String) { self.message = message }
}

/// Runs `executable` with `arguments`: its exit status and what it wrote to standard error
/// (the message a test checks), or with `standardOutput` to standard output; the other stream
/// is dropped. `environment` is set over the test process's own.
package func runCapturing(
    _ executable: String, _ arguments: [String], standardOutput: Bool = false,
    environment: [String: String] = [:]
) throws
    -> (status: Int32, text: String)
{
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if !environment.isEmpty {
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    let pipe = Pipe()
    process.standardError = standardOutput ? FileHandle.nullDevice : pipe
    process.standardOutput = standardOutput ? pipe : FileHandle.nullDevice
    try process.run()
    let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, text)
}
