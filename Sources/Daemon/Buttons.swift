import CInput
import Foundation
import Glibc
import Synchronization
import SystemCalls

/// What a button means: the two answers of the last stretch, or "say that again".
package enum ButtonAction: String, Sendable, Equatable, CaseIterable {
    /// "여기 아니야".
    case notHere
    /// "여기가 입구야".
    case thisIsIt
    /// The last prompt again.
    case repeatLast = "repeat"
}

/// The buttons config: which input devices, and which key is which answer.
package struct ButtonMap: Sendable, Equatable {
    /// Linux input devices (`/dev/input/event0`, `/dev/input/by-path/…-event`) or FIFOs of
    /// `struct input_event` records, each read on its own: the Raspberry Pi's `gpio-key`
    /// overlay makes one device per button.
    package var devices: [String]
    /// Key codes (`<linux/input-event-codes.h>`), by default N, Y and R.
    package var notHere = UInt16(KEY_N)
    package var thisIsIt = UInt16(KEY_Y)
    package var repeatLast = UInt16(KEY_R)

    package init(devices: [String]) { self.devices = devices }

    /// The action of key `code`, if it is one of the three.
    package func action(for code: UInt16) -> ButtonAction? {
        switch code {
        case notHere: .notHere
        case thisIsIt: .thisIsIt
        case repeatLast: .repeatLast
        default: nil
        }
    }

    /// The config keys of the `buttons` object.
    package static let keys = ["device", "notHere", "repeat", "thisIsIt"]
}

/// Linux key names (`KEY_N`) and codes: the names a config may use; any other key by number.
package enum KeyNames {
    /// Letters, digits, keypad digits, arrows, Enter/Space/Esc, F1–F12, media keys, BTN_0–BTN_9.
    package static let codes: [String: UInt16] = {
        var table: [String: Int32] = [
            "KEY_ESC": KEY_ESC, "KEY_ENTER": KEY_ENTER, "KEY_SPACE": KEY_SPACE,
            "KEY_BACKSPACE": KEY_BACKSPACE,
            "KEY_TAB": KEY_TAB, "KEY_UP": KEY_UP, "KEY_DOWN": KEY_DOWN, "KEY_LEFT": KEY_LEFT,
            "KEY_RIGHT": KEY_RIGHT,
            "KEY_KPENTER": KEY_KPENTER, "KEY_VOLUMEUP": KEY_VOLUMEUP, "KEY_VOLUMEDOWN": KEY_VOLUMEDOWN,
            "KEY_MUTE": KEY_MUTE, "KEY_PLAYPAUSE": KEY_PLAYPAUSE, "KEY_NEXTSONG": KEY_NEXTSONG,
            "KEY_PREVIOUSSONG": KEY_PREVIOUSSONG, "KEY_OK": KEY_OK, "KEY_SELECT": KEY_SELECT,
            "KEY_POWER": KEY_POWER,
            "KEY_HOME": KEY_HOME, "KEY_BACK": KEY_BACK, "KEY_MENU": KEY_MENU,
        ]
        let letters: [Int32] = [
            KEY_A, KEY_B, KEY_C, KEY_D, KEY_E, KEY_F, KEY_G, KEY_H, KEY_I, KEY_J, KEY_K, KEY_L, KEY_M,
            KEY_N, KEY_O, KEY_P, KEY_Q, KEY_R, KEY_S, KEY_T, KEY_U, KEY_V, KEY_W, KEY_X, KEY_Y, KEY_Z,
        ]
        for (letter, code) in zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", letters) { table["KEY_\(letter)"] = code }
        let digits: [Int32] = [KEY_0, KEY_1, KEY_2, KEY_3, KEY_4, KEY_5, KEY_6, KEY_7, KEY_8, KEY_9]
        let keypad: [Int32] = [
            KEY_KP0, KEY_KP1, KEY_KP2, KEY_KP3, KEY_KP4, KEY_KP5, KEY_KP6, KEY_KP7, KEY_KP8, KEY_KP9,
        ]
        for digit in 0..<10 {
            table["KEY_\(digit)"] = digits[digit]
            table["KEY_KP\(digit)"] = keypad[digit]
            table["BTN_\(digit)"] = BTN_0 + Int32(digit)
        }
        let functions: [Int32] = [
            KEY_F1, KEY_F2, KEY_F3, KEY_F4, KEY_F5, KEY_F6, KEY_F7, KEY_F8, KEY_F9, KEY_F10, KEY_F11, KEY_F12,
        ]
        for (i, code) in functions.enumerated() { table["KEY_F\(i + 1)"] = code }
        return table.mapValues { UInt16($0) }
    }()

    /// `KEY_N`, `BTN_0` or a number (`49`, as `evtest` prints codes).
    package static func code(of text: String) -> UInt16? {
        if let code = codes[text.uppercased()] { return code }
        guard let number = UInt16(text), number > 0, number <= UInt16(KEY_MAX) else { return nil }
        return number
    }

    /// The name of `code` (`KEY_N`), or its number when it has no name here.
    package static func name(of code: UInt16) -> String {
        codes.filter { $0.value == code }.keys.sorted().first ?? String(code)
    }
}

/// One `struct input_event` as the platform lays it out (its `timeval` is 8 bytes on 32-bit
/// ARM, 16 on 64-bit): read from the device, or written by a test into a FIFO.
package enum InputEvent {
    /// `sizeof(struct input_event)` on this platform.
    package static let size = MemoryLayout<input_event>.size

    /// The record of a key event: `value` 1 press, 0 release, 2 autorepeat.
    package static func key(_ code: UInt16, value: Int32) -> [UInt8] {
        var event = input_event()
        event.type = UInt16(EV_KEY)
        event.code = code
        event.value = value
        return withUnsafeBytes(of: &event) { Array($0) }
    }

    /// (code, value) of each key event among whole records in `bytes`; the bytes of an
    /// unfinished record stay for the next read.
    static func keys(in bytes: inout [UInt8]) -> [(code: UInt16, value: Int32)] {
        let whole = bytes.count / size * size
        var found: [(UInt16, Int32)] = []
        bytes.withUnsafeBytes { raw in
            for offset in stride(from: 0, to: whole, by: size) {
                let event = raw.loadUnaligned(fromByteOffset: offset, as: input_event.self)
                if event.type == UInt16(EV_KEY) { found.append((event.code, event.value)) }
            }
        }
        bytes.removeFirst(whole)
        return found
    }
}

/// Reads one buttons device on its own thread: each press (value 1) of a mapped key goes to
/// `onPress`; releases and autorepeat are ignored. A device that disappears (a USB keypad
/// unplugged) or cannot be opened yet is logged once and reopened every second, without
/// disturbing the daemon; a FIFO whose writer closes is simply reopened.
package final class ButtonReader: @unchecked Sendable {
    // Safe: the descriptors are used only by the reader thread (`worker` is thread-safe).

    /// One press of a mapped key.
    package struct Press: Sendable, Equatable {
        package var code: UInt16
        package var key: String
        package var action: ButtonAction

        package init(code: UInt16, key: String, action: ButtonAction) {
            self.code = code
            self.key = key
            self.action = action
        }
    }

    package let map: ButtonMap
    /// The device (or FIFO) this reader reads.
    package let device: String
    private let log: DaemonLog
    private let onPress: @Sendable (Press) -> Void
    /// The reader thread; `stop` wakes its `poll` through the worker's wake pipe.
    private let worker = WakeableThread()
    private var wakePipe: WakePipe { worker.wakePipe }
    /// How long to wait before reopening a device that is missing, milliseconds.
    static let reopenMilliseconds: Int32 = 1000

    package init(
        map: ButtonMap, device: String, log: DaemonLog, onPress: @escaping @Sendable (Press) -> Void
    ) {
        self.map = map
        self.device = device
        self.log = log
        self.onPress = onPress
    }

    /// Starts the reading thread (without a wake pipe it could never be stopped: the failure
    /// is logged as an error and the buttons stay off).
    package func start() {
        if let failure = wakePipe.failure {
            log.error("buttons \(device): \(failure); buttons off")
            return
        }
        worker.start(name: "pathfinder-buttons") { [self] in run() }
    }

    /// Stops the reading thread and waits for it.
    package func stop() {
        worker.stop()
    }

    private var isStopping: Bool { worker.isStopping }

    private func run() {
        /// The problem already logged, so an absent device is one line, not one a second.
        var problem: String?
        while !isStopping {
            let fd: Int32
            do {
                fd = try retryingOnInterrupt("open") { open(device, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
            } catch {
                let message = String(cString: strerror(error.code))
                if problem != message {
                    log.warning("buttons \(device): \(message); trying again every second")
                    problem = message
                }
                if waitForWake(milliseconds: Self.reopenMilliseconds) { return }
                continue
            }
            var info = stat()
            let isFIFO = fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO
            let kind = info.st_mode & S_IFMT
            if kind == S_IFREG || kind == S_IFDIR || (kind == S_IFCHR && pathfinder_evdev_version(fd) < 0) {
                // A config mistake, said once: re-reading a file every second would replay its
                // presses, and a character device that is not evdev (/dev/zero, a serial port)
                // would spin the CPU reading what are not key events.
                try? closeDescriptor(fd)
                let what =
                    kind == S_IFREG
                    ? "a regular file" : kind == S_IFDIR ? "a directory" : "a character device but not evdev"
                log.error(
                    "buttons \(device): \(what), not an input device or FIFO (ls /dev/input/by-path/); not reading it"
                )
                return
            }
            if problem != nil || !isFIFO { log.info("buttons \(device): reading") }
            problem = nil
            let ending = read(fd, isFIFO: isFIFO)
            try? closeDescriptor(fd)
            switch ending {
            case .stopped: return
            case .writerClosed: continue  // a FIFO between writers: reopen quietly
            case .failed(let message):
                log.warning("buttons \(device): \(message); trying again every second")
                problem = message
                if waitForWake(milliseconds: Self.reopenMilliseconds) { return }
            }
        }
    }

    private enum Ending {
        case stopped
        case writerClosed
        case failed(String)
    }

    private func read(_ fd: Int32, isFIFO: Bool) -> Ending {
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: InputEvent.size * 64)
        while true {
            var fds = [
                pollfd(fd: wakePipe.readEnd, events: Int16(POLLIN), revents: 0),
                pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
            ]
            let ready: Int32
            do {
                ready = try retryingOnInterrupt("poll") { poll(&fds, 2, 1_000) }
            } catch {
                return .failed("\(error)")
            }
            if fds[0].revents != 0 { return .stopped }
            if ready == 0 {
                // A FIFO no writer ever opened never reports a hang-up: if its path now names
                // another one (deleted and made again), read that (before, the old one forever).
                if isFIFO, !pathNamesOpenFile(device, fd) { return .writerClosed }
                continue
            }
            guard fds[1].revents != 0 else { continue }
            let n: Int
            do {
                n = try retryingOnInterrupt("read") {
                    chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                }
            } catch  where error.code == EAGAIN {
                continue
            } catch {
                // ENODEV: the device was unplugged.
                return .failed(String(cString: strerror(error.code)))
            }
            if n == 0 {
                return isFIFO ? .writerClosed : .failed("the device ended")
            }
            pending += chunk[0..<n]
            for (code, value) in InputEvent.keys(in: &pending) where value == 1 {
                guard let action = map.action(for: code) else { continue }
                onPress(Press(code: code, key: KeyNames.name(of: code), action: action))
            }
        }
    }

    /// Sleeps up to `milliseconds`; true if `stop` woke it.
    private func waitForWake(milliseconds: Int32) -> Bool {
        var fds = [pollfd(fd: wakePipe.readEnd, events: Int16(POLLIN), revents: 0)]
        _ = try? retryingOnInterrupt("poll") { poll(&fds, 1, milliseconds) }
        return fds[0].revents != 0 || isStopping
    }
}
