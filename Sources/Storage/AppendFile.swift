import Glibc
package import SystemCalls

/// Appends to a file whose lines only grow (`pathfinder record`'s manifest).
public enum AppendFile {
    /// Appends `bytes` to `path` (made with permission bits `mode` when missing) in one
    /// `write` on a descriptor opened `O_APPEND`: the kernel moves to the end and writes as one
    /// step, so lines appended by two writers at once each arrive whole (before, each writer
    /// moved to the end, then wrote: two that moved at once wrote over each other's lines). A
    /// write cut short (the disk full) is taken back, so the file never ends in half a line;
    /// that is safe while one writer at a time appends (`record` holds its folder's lock).
    /// - Throws: `SystemCallError` naming the call and `path`; the file is as it was.
    package static func append(_ bytes: [UInt8], to path: String, mode: UInt32) throws(SystemCallError) {
        let fd = try retryingOnInterrupt("open \(path)") {
            open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, mode_t(mode))
        }
        defer { try? closeDescriptor(fd) }
        var info = stat()
        try retryingOnInterrupt("fstat \(path)") { fstat(fd, &info) }
        // One write almost always takes it all; the rest of one cut short follows it (the
        // disk full fails there, with the reason).
        var done = 0
        while done < bytes.count {
            do {
                done += try retryingOnInterrupt("write \(path)") {
                    bytes[done...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                }
            } catch {
                if done > 0 { _ = ftruncate(fd, info.st_size) }
                throw error
            }
        }
        // On disk before the next take is asked for, as the take it lists is.
        try retryingOnInterrupt("fsync \(path)") { fsync(fd) }
    }
}
