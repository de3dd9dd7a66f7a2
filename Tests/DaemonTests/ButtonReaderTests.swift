import Daemon
import Foundation
import Glibc
import Synchronization
import Testing

/// The buttons reader alone, on FIFOs and files: what counts as a press, and what it does
/// with a path that is no input device.
@Suite(.serialized) struct ButtonReaderTests {
    final class Collected: Sendable {
        let presses = Mutex<[ButtonReader.Press]>([])
        let lines = Mutex<[String]>([])
        var log: DaemonLog { DaemonLog(level: .debug) { line in self.lines.withLock { $0.append(line) } } }

        /// A writer on the FIFO at `path`, once a reader has it open (bounded, 10 s).
        func writer(of path: String) -> Int32? {
            var fd: Int32 = -1
            return wait {
                fd = open(path, O_WRONLY | O_NONBLOCK)
                return fd >= 0
            } ? fd : nil
        }

        /// Waits (bounded, 10 s) until `condition` holds.
        func wait(_ condition: () -> Bool) -> Bool {
            for _ in 0..<1000 {
                if condition() { return true }
                usleep(10_000)
            }
            return false
        }
    }

    /// A FIFO made at `path` and a started reader on it, collecting what it logs and hears.
    static func reading(fifo path: String) throws -> (Collected, ButtonReader) {
        try #require(mkfifo(path, 0o600) == 0)
        let seen = Collected()
        let reader = ButtonReader(map: ButtonMap(devices: [path]), device: path, log: seen.log) { press in
            seen.presses.withLock { $0.append(press) }
        }
        reader.start()
        return (seen, reader)
    }

    @Test func aRecordSplitAcrossWritesIsOnePressAndOnlyPressesCount() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let path = dir.path + "/keys"
        let (seen, reader) = try Self.reading(fifo: path)
        defer { reader.stop() }
        let fd = try #require(seen.writer(of: path), "no reader on the FIFO")
        defer { close(fd) }
        let press = InputEvent.key(21, value: 1)
        #expect(press.count == MemoryLayout<Int>.size * 2 + 8, "the platform's struct input_event")
        // Half a record, a pause, the rest: one press. Then a release, an autorepeat, a
        // key that is not mapped, and repeat.
        _ = press[..<5].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        usleep(50_000)
        let rest =
            Array(press[5...]) + InputEvent.key(21, value: 0) + InputEvent.key(21, value: 2)
            + InputEvent.key(30, value: 1) + InputEvent.key(19, value: 1)
        _ = rest.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        #expect(seen.wait { seen.presses.withLock { $0.count == 2 } })
        usleep(100_000)
        #expect(
            seen.presses.withLock { $0 } == [
                .init(code: 21, key: "KEY_Y", action: .thisIsIt),
                .init(code: 19, key: "KEY_R", action: .repeatLast),
            ])
    }

    @Test func aMissingDeviceIsLoggedOnceAndARegularFileIsRefused() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let missing = dir.path + "/event9"
        let seen = Collected()
        let waiting = ButtonReader(map: ButtonMap(devices: [missing]), device: missing, log: seen.log) { _ in
        }
        waiting.start()
        #expect(seen.wait { !seen.lines.withLock(\.isEmpty) })
        usleep(2_300_000)  // two more attempts
        waiting.stop()
        #expect(
            seen.lines.withLock { $0 } == [
                "<4>warning: buttons \(missing): No such file or directory; trying again every second\n"
            ])

        let file = dir.path + "/presses.bin"
        try Data(InputEvent.key(49, value: 1)).write(to: URL(fileURLWithPath: file))
        let refused = Collected()
        let reader = ButtonReader(map: ButtonMap(devices: [file]), device: file, log: refused.log) { press in
            refused.presses.withLock { $0.append(press) }
        }
        reader.start()
        #expect(refused.wait { !refused.lines.withLock(\.isEmpty) })
        reader.stop()
        #expect(
            refused.lines.withLock {
                $0.first?.contains("a regular file, not an input device or FIFO") == true
            })
        let none = refused.presses.withLock(\.isEmpty)
        #expect(none)
    }

    /// A directory, and character devices that are not evdev (/dev/zero, /dev/null), are
    /// refused once (before: a directory and /dev/null logged two lines a second forever,
    /// /dev/zero spun a core reading zeros as key events).
    @Test(arguments: ["/dev/zero", "/dev/null", "DIR"])
    func aPathThatIsNoInputDeviceIsRefusedOnce(_ path: String) throws {
        let dir = TempDir()
        defer { dir.remove() }
        let device = path == "DIR" ? dir.path : path
        let seen = Collected()
        let reader = ButtonReader(map: ButtonMap(devices: [device]), device: device, log: seen.log) { _ in }
        reader.start()
        #expect(seen.wait { !seen.lines.withLock(\.isEmpty) })
        usleep(2_300_000)  // two more seconds: nothing more is said
        reader.stop()
        let lines = seen.lines.withLock { $0 }
        #expect(lines.count == 1, "\(lines)")
        #expect(lines.first?.contains("not an input device or FIFO") == true, "\(lines)")
    }

    /// A FIFO deleted and made again while no writer had it open: the new one is read (before,
    /// the reader waited on the deleted one forever and the new one's writer blocked).
    @Test func aFIFOMadeAgainIsReadAgain() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let path = dir.path + "/keys"
        let (seen, reader) = try Self.reading(fifo: path)
        defer { reader.stop() }
        usleep(300_000)
        unlink(path)
        try #require(mkfifo(path, 0o600) == 0)
        let fd = try #require(seen.writer(of: path), "no reader on the new FIFO")
        defer { close(fd) }
        let press = InputEvent.key(49, value: 1)
        _ = press.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        #expect(seen.wait { seen.presses.withLock { $0.count == 1 } })
    }
}
