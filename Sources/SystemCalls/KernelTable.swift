#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The whole text of a kernel table under `/proc` (`/proc/net/unix`, `/proc/locks`), read to
/// its end. Such files report a size of 0 and are made a page at a time: Foundation's
/// `String(contentsOfFile:)` gave only the first page (4 073 of 42 319 bytes with 418 sockets
/// bound), so a socket or lock past it was not there to find.
/// - Throws: `SystemCallError` when the file cannot be opened or read.
public func kernelTable(_ path: String) throws(SystemCallError) -> String {
    let fd = try retryingOnInterrupt("open \(path)") { open(path, O_RDONLY | O_CLOEXEC) }
    defer { try? closeDescriptor(fd) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = try retryingOnInterrupt("read \(path)") {
            buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        }
        if count == 0 { break }
        bytes += buffer[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}
