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
