import Glibc

/// A failed system call: which call, on what, and `strerror`'s words.
struct POSIXFailure: Error {
    var call: String
    var errno: Int32

    var message: String { "\(call): \(String(cString: strerror(errno)))" }
}

/// Runs a system call, retrying while it is interrupted by a signal (`EINTR`), as every
/// call here must; `-1` becomes a `POSIXFailure` carrying `errno`.
@discardableResult
func systemCall<T: BinaryInteger>(_ name: String, _ call: () -> T) throws(POSIXFailure) -> T {
    while true {
        let result = call()
        if result != -1 { return result }
        let code = errno
        if code != EINTR { throw POSIXFailure(call: name, errno: code) }
    }
}

/// Writes `bytes` to `fd` completely, however the kernel splits the write.
func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(POSIXFailure) {
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeBytes { buffer in
            Result { () throws(POSIXFailure) in
                try systemCall("write") { write(fd, buffer.baseAddress! + offset, buffer.count - offset) }
            }
        }
        offset += try written.get()
    }
}

/// Whether process `pid` is gone (so a temp file it named is stale).
func processIsGone(_ pid: Int32) -> Bool {
    kill(pid, 0) == -1 && errno == ESRCH
}
