public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The folder temporary files and folders are made in: `$TMPDIR`, as POSIX reads it.
public enum TemporaryFolder {
    /// `$TMPDIR` as written — any path: "//tmp", "/tmp/", "/tmp//x", a relative one — without
    /// its trailing slashes; "/tmp" when it is unset or empty. Not `FileManager`'s
    /// `temporaryDirectory`: an empty TMPDIR was "/" there, the root folder.
    public static func path(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        guard let value = environment["TMPDIR"], !value.isEmpty else { return "/tmp" }
        var path = Substring(value)
        while path.count > 1 && path.hasSuffix("/") { path = path.dropLast() }
        return String(path)
    }

    /// Where the folder came from, for a message: "TMPDIR=/x", or "/tmp" when TMPDIR is unset
    /// or empty.
    public static func named(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        guard let value = environment["TMPDIR"], !value.isEmpty else { return path(environment: environment) }
        return "TMPDIR=\(value)"
    }

    /// Why `what` ("a temporary folder for the door index") could not be made there, after
    /// ``named(environment:)``: "cannot make a temporary folder for the door index: no such file
    /// or directory (TMPDIR must name a folder you can write in)".
    public static func cannotMake(
        _ what: String, errno code: Int32, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        let unset = environment["TMPDIR"]?.isEmpty ?? true
        return "cannot make \(what): \(FileDiagnostics.words(errno: code)) ("
            + (unset ? "set TMPDIR to" : "TMPDIR must name") + " a folder you can write in)"
    }

    /// ``named(environment:)`` and ``cannotMake(_:errno:environment:)`` as one line.
    public static func problem(
        _ what: String, errno code: Int32, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        named(environment: environment) + ": " + cannotMake(what, errno: code, environment: environment)
    }
}
