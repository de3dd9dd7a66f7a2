import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Opens a pseudo-terminal pair through /dev/ptmx (Glibc's module does not export
/// posix_openpt/ptsname); returns the master descriptor and the slave's path. The slave is
/// a real character device with termios, like /dev/ttyUSB0: a receiver for tests.
package func openPseudoTerminal() throws -> (Int32, String) {
    let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
    guard master >= 0 else { throw ToolMissing(message: "cannot open /dev/ptmx: errno \(errno)") }
    // <asm-generic/ioctls.h>: _IOW('T', 0x31, int) and _IOR('T', 0x30, unsigned int); the
    // same on x86-64 and arm64, which is where Pathfinder runs.
    let setLock: UInt = 0x4004_5431  // TIOCSPTLCK
    let getNumber: UInt = 0x8004_5430  // TIOCGPTN
    var unlock: Int32 = 0
    var number: UInt32 = 0
    guard ioctl(master, setLock, &unlock) == 0, ioctl(master, getNumber, &number) == 0 else {
        close(master)
        throw ToolMissing(message: "cannot unlock the pseudo-terminal: errno \(errno)")
    }
    return (master, "/dev/pts/\(number)")
}
