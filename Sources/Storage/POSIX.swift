import Glibc
import SystemCalls

/// Writes `bytes` to `fd` completely, however the kernel splits the write.
func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(SystemCallError) {
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeBytes { buffer in
            Result { () throws(SystemCallError) in
                try retryingOnInterrupt("write") {
                    write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                }
            }
        }
        offset += try written.get()
    }
}

/// Whether process `pid` is gone (so a temp file it named is stale).
func processIsGone(_ pid: Int32) -> Bool {
    kill(pid, 0) == -1 && errno == ESRCH
}

/// The whole content of the file at `path`.
/// - Throws: `SystemCallError` naming the call (`open`, `read`) and its `errno`, so a missing
///   file (ENOENT, ENOTDIR) can be told from one that cannot be read (EACCES, EIO, EISDIR).
func readAll(_ path: String) throws(SystemCallError) -> [UInt8] {
    // O_NONBLOCK: a FIFO opens at once instead of waiting for a writer (before, `memory show`
    // on a FIFO hung); only a regular file is read (before, /dev/zero ran out of memory).
    let fd = try retryingOnInterrupt("open \(path)") { open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
    defer { try? closeDescriptor(fd) }
    var info = stat()
    try retryingOnInterrupt("fstat \(path)") { fstat(fd, &info) }
    switch info.st_mode & S_IFMT {
    case S_IFREG: break
    case S_IFDIR: throw SystemCallError(call: "read \(path)", code: EISDIR)
    case S_IFIFO: throw SystemCallError(call: "read \(path)", code: EINVAL, reason: "is a FIFO, not a file")
    case S_IFCHR, S_IFBLK:
        throw SystemCallError(call: "read \(path)", code: EINVAL, reason: "is a device, not a file")
    default: throw SystemCallError(call: "read \(path)", code: EINVAL, reason: "is not a regular file")
    }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let result = chunk.withUnsafeMutableBytes { buffer in
            Result { () throws(SystemCallError) in
                try retryingOnInterrupt("read \(path)") { read(fd, buffer.baseAddress!, buffer.count) }
            }
        }
        let n = try result.get()
        if n == 0 { return bytes }
        bytes += chunk[..<n]
    }
}
