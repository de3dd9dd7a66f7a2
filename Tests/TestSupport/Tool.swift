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
