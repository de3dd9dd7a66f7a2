public import Foundation

/// A pressure sensor exposed by the Linux Industrial I/O subsystem in sysfs.
///
/// Found under `<root>/iio:deviceN/` among the devices with a pressure channel: the one
/// configured by its `name` file or its directory (`iio:device1`), or else the first (in
/// directory order) named like a known barometer, else the first at all. Pressure is read from
/// `in_pressure_input`, or `(in_pressure_raw + in_pressure_offset) × in_pressure_scale`,
/// all in kPa as the IIO ABI defines, and returned in hPa.
public struct IIOBarometer: Sendable, Hashable {
    /// Barometers whose kernel drivers report through IIO.
    public static let knownNames: Set<String> = [
        "bmp085", "bmp180", "bmp280", "bme280", "bmp380", "bmp388", "bmp390", "bmp580", "bmp581",
        "lps001wp", "lps22df", "lps22hb", "lps22hh", "lps25h", "lps331ap", "lps33hw", "lps35hw",
        "ms5611", "ms5607", "ms5637", "dps310", "dps368", "mpl3115", "mpl115", "icp10100", "hp206c",
        "zpa2326", "t5403", "abp060mg", "dlhl60d",
    ]

    /// What went wrong finding or reading the sensor.
    public enum Failure: Error, CustomStringConvertible, Sendable, Hashable {
        case noDevice(root: String, name: String?)
        /// The device named exists (`directory`) but has no pressure channel (an ADC).
        case noPressureChannel(directory: String, name: String)
        case unreadable(path: String)
        /// The device's directory lost its pressure files (removed, driver unloaded, re-plugged).
        case gone(directory: String)
        case malformed(path: String, value: String)
        case implausible(path: String, hPa: Double)

        public var description: String {
            switch self {
            case .noDevice(let root, let name?): "no IIO device named \(name) under \(root)"
            case .noDevice(let root, nil):
                "no IIO barometer under \(root) (no iio:deviceN with in_pressure_input or in_pressure_raw)"
            case .noPressureChannel(let directory, let name):
                "the IIO device \(name) (\(directory)) has no pressure channel (no in_pressure_input or in_pressure_raw)"
            case .unreadable(let path): "cannot read \(path)"
            case .gone(let directory): "\(directory) is gone (no in_pressure_input or in_pressure_raw)"
            case .malformed(let path, let value): "\(path): \"\(value)\" is not a number"
            case .implausible(let path, let hPa):
                "\(path): \(hPa) hPa is not a plausible air pressure (\(Int(PressureReading.plausibleHPa.lowerBound))…\(Int(PressureReading.plausibleHPa.upperBound)) hPa)"
            }
        }
    }

    /// The device's directory (`/sys/bus/iio/devices/iio:device0`).
    public let directory: String
    /// Its `name` (bmp280, …).
    public let name: String
    /// The IIO devices directory it was found under, to find it again when it re-appears as
    /// another device number.
    public let root: String

    /// Finds the sensor.
    /// - Parameters:
    ///   - root: the IIO devices directory; tests pass a fake tree.
    ///   - name: the device to insist on, by its `name` file (`bme280`) or its directory
    ///     (`iio:device1`, as the daemon's `iioDevice` documents; before, only the name
    ///     matched); `nil` takes the first known barometer, else the first device with a
    ///     pressure channel whatever its name (before, an unknown name was never used).
    /// - Throws: `Failure.noDevice`, or `Failure.noPressureChannel` for a device named that
    ///   has none (before: said to be missing).
    public init(root: String = "/sys/bus/iio/devices", name: String? = nil) throws(Failure) {
        let entries = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).sorted {
            $0.localizedStandardCompare($1) == .orderedAscending
        }
        var withPressure: [(directory: String, entry: String, name: String)] = []
        /// The device named, when it has no pressure channel: said as such, not as missing.
        var namedWithout: (directory: String, name: String)?
        for entry in entries {
            let dir = (root as NSString).appendingPathComponent(entry)
            guard let deviceName = Self.text(dir + "/name") else { continue }
            let hasPressure =
                FileManager.default.fileExists(atPath: dir + "/in_pressure_input")
                || FileManager.default.fileExists(atPath: dir + "/in_pressure_raw")
            if hasPressure {
                withPressure.append((dir, entry, deviceName))
            } else if let name, namedWithout == nil, deviceName == name || entry == name {
                namedWithout = (dir, deviceName)
            }
        }
        let chosen =
            if let name {
                withPressure.first { $0.name == name || $0.entry == name }
            } else {
                withPressure.first { Self.knownNames.contains($0.name) } ?? withPressure.first
            }
        guard let chosen else {
            if let namedWithout {
                throw .noPressureChannel(directory: namedWithout.directory, name: namedWithout.name)
            }
            throw .noDevice(root: root, name: name)
        }
        directory = chosen.directory
        self.name = chosen.name
        self.root = root
    }

    /// Reads the pressure now.
    /// - Parameter time: the reading's time stamp (the caller's clock).
    /// - Throws: `Failure` naming the file and value.
    public func read(at time: Date?) throws(Failure) -> PressureReading {
        let kPa: Double
        /// The file the pressure came from, for messages (before, the directory was named).
        let file: String
        if let input = try number("in_pressure_input") {
            kPa = input
            file = directory + "/in_pressure_input"
        } else {
            // Neither file (before: "cannot read …/in_pressure_raw", a file it may never have had).
            guard let raw = try number("in_pressure_raw") else { throw .gone(directory: directory) }
            let offset = try number("in_pressure_offset") ?? 0
            let scale = try number("in_pressure_scale") ?? 1
            kPa = (raw + offset) * scale
            file = directory + "/in_pressure_raw"
        }
        let hPa = kPa * 10
        guard PressureReading.plausibleHPa.contains(hPa) else {
            throw .implausible(path: file, hPa: (hPa * 1000).rounded() / 1000)
        }
        return PressureReading(time: time, hPa: (hPa * 1000).rounded() / 1000, source: .iio)
    }

    /// The longest pause between attempts while the sensor fails, seconds.
    public static let maxRetrySeconds = 30.0

    /// Readings every `interval` seconds, stamped with the wall clock (the reading's date),
    /// until iteration stops. A failed read never ends the stream silently: `problem` is told
    /// (once per outage, with the failure; `nil` when readings come back) and the sensor is
    /// read again after a pause that doubles up to ``maxRetrySeconds``. A device gone is looked
    /// for again under ``root`` by its ``name``: a sensor re-plugged or its driver reloaded comes
    /// back as another `iio:deviceN` (before, it was never found again).
    public func readings(
        every interval: Double, problem: @escaping @Sendable (Failure?) -> Void = { _ in }
    ) -> AsyncStream<PressureReading> {
        AsyncStream { continuation in
            let task = Task {
                var failing: Failure?
                var pause = interval
                var sensor = self
                while !Task.isCancelled {
                    do throws(Failure) {
                        if case .gone? = failing, let found = try? IIOBarometer(root: root, name: name) {
                            sensor = found
                        }
                        let reading = try sensor.read(at: Date())
                        if failing != nil { problem(nil) }
                        failing = nil
                        pause = interval
                        continuation.yield(reading)
                    } catch {
                        if failing != error { problem(error) }
                        pause = failing == nil ? interval : min(Self.maxRetrySeconds, pause * 2)
                        failing = error
                    }
                    try? await Task.sleep(for: .milliseconds(Int64(pause * 1000)))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    private func number(_ file: String) throws(Failure) -> Double? {
        let path = directory + "/" + file
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let text = Self.text(path) else { throw .unreadable(path: path) }
        // Plain decimals only: Swift's Double also reads "0x10" (hex) and "nan".
        guard text.allSatisfy({ "0123456789+-.eE".contains($0) }), let value = Double(text), value.isFinite
        else { throw .malformed(path: path, value: text) }
        return value
    }

    private static func text(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
