#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A file as `stat(2)` sees it without reading it — device, inode, size, modification time —
/// so that another value is another file at the path (renamed over it, made again) or the same
/// file changed. The daemon keeps one for each file it holds open or last wrote: its memory file
/// (replaced by another program), its door indexes and gazetteer (imported again).
public struct FileStamp: Sendable, Hashable {
    public var device: UInt64
    public var inode: UInt64
    public var size: Int64
    public var seconds: Int
    public var nanoseconds: Int

    /// The file at `path`, a link followed; nil when there is none (or it cannot be seen).
    public init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        seconds = Int(info.st_mtim.tv_sec)
        nanoseconds = Int(info.st_mtim.tv_nsec)
    }
}

/// Whether `path` names the file open on `fd` (device and inode): false when the path is gone
/// or names another file (removed and made again, renamed over). `followingLink` false: a link
/// at `path` is itself compared, for a file opened without following one.
public func pathNamesOpenFile(_ path: String, _ fd: Int32, followingLink: Bool = true) -> Bool {
    var open = stat()
    var named = stat()
    let found = followingLink ? stat(path, &named) : lstat(path, &named)
    return fstat(fd, &open) == 0 && found == 0 && open.st_dev == named.st_dev && open.st_ino == named.st_ino
}
