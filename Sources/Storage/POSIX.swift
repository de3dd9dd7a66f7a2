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
