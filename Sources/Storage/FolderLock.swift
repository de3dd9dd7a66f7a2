import Foundation
import Glibc
import SystemCalls

/// An exclusive lock on a folder, held until the value goes away (or the process ends):
/// `flock` on a file in it its holder keeps there anyway (`pathfinder record`'s manifest),
/// made if missing, so no file of the lock's own is left in it. Not on the folder itself: a
/// memory kept in the same folder is locked on the folder
/// (``MemoryFile/locked(path:waitSeconds:_:)``, a daemon's ``MemoryFile/DaemonHold``), and the
/// two would refuse each other, each blaming one of its own kind. Taken without waiting: a
/// second holder is refused at once, told who holds it.
public final class FolderLock {
    /// Why the lock was not taken.
    public struct Failure: Error, CustomStringConvertible {
        /// The folder, as given.
        public let folder: String
        /// The file in it the lock is held on.
        public let file: String
        /// `EWOULDBLOCK`: another holds it; else the `errno` of the `open` or `flock` that failed.
        public let code: Int32
        /// The process holding it, when the kernel says (`/proc/locks`).
        public let holder: Int32?

        /// Another process holds the lock.
        public var isHeld: Bool { code == EWOULDBLOCK }

        public var description: String {
            isHeld
                ? "\(folder): in use" + (holder.map { " (pid \($0))" } ?? "")
                : "\(file): cannot lock: \(String(cString: strerror(code)))"
        }
    }

    private let fd: Int32

    /// Locks `folder`, which must exist, through its file `name` (made empty if missing).
    /// - Throws: ``Failure``.
    public init(_ folder: String, file name: String) throws(Failure) {
        let file = (folder as NSString).appendingPathComponent(name)
        let fd: Int32
        do {
            fd = try retryingOnInterrupt("open") { open(file, O_RDONLY | O_CREAT | O_CLOEXEC, 0o644) }
        } catch {
            throw Failure(folder: folder, file: file, code: error.code, holder: nil)
        }
        do {
            try retryingOnInterrupt("flock") { flock(fd, LOCK_EX | LOCK_NB) }
        } catch {
            let holder = error.code == EWOULDBLOCK ? Self.holder(of: fd) : nil
            try? closeDescriptor(fd)
            throw Failure(folder: folder, file: file, code: error.code, holder: holder)
        }
        self.fd = fd
    }

    deinit { try? closeDescriptor(fd) }

    /// The pid `/proc/locks` gives for the `flock` on `fd`'s file ("1: FLOCK ADVISORY WRITE
    /// 3358 fe:00:16318484 0 EOF": the device's major and minor in hex, then the inode).
    private static func holder(of fd: Int32) -> Int32? {
        var info = stat()
        guard fstat(fd, &info) == 0,
            let text = try? kernelTable("/proc/locks")
        else { return nil }
        // glibc's major() and minor() are macros Swift cannot call; their arithmetic.
        let device = UInt64(info.st_dev)
        let major = (device >> 8) & 0xfff | (device >> 32) & ~0xfff
        let minor = device & 0xff | (device >> 12) & ~0xff
        let file = String(format: "%02llx:%02llx:%llu", major, minor, UInt64(info.st_ino))
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[1] == "FLOCK", fields[3] == "WRITE", fields[5] == file else {
                continue
            }
            return Int32(fields[4])
        }
        return nil
    }
}
