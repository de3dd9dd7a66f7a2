/// Why a command failed, and so which exit code it ends with.
package enum CLIError: Error, Equatable, CustomStringConvertible {
    /// Bad usage or bad input (a file, line, field and value are named): exit 2.
    case usage(String)
    /// A failure at run time: exit 1.
    case runtime(String)

    package var exitCode: Int32 {
        switch self {
        case .usage: 2
        case .runtime: 1
        }
    }

    package var description: String {
        switch self {
        case .usage(let m), .runtime(let m): m
        }
    }

    /// The same failure, its message led by `command` ("pathfinder demo: …") when a shared
    /// reader made it without one.
    package func naming(_ command: String) -> CLIError {
        switch self {
        case .usage(let m) where !m.hasPrefix("pathfinder"): .usage("\(command): \(m)")
        case .runtime(let m) where !m.hasPrefix("pathfinder"): .runtime("\(command): \(m)")
        default: self
        }
    }
}
