import Foundation
import Geo
import Positioning
import Synchronization
import Testing

@Suite struct ISATests {
    @Test func knownValue() {
        // 1008.70 hPa under a standard sea-level pressure is 37.94 m up.
        #expect(abs(ISA.altitude(pressure: 1008.70, seaLevel: 1013.25) - 37.94) < 0.01)
        #expect(ISA.altitude(pressure: 1013.25, seaLevel: 1013.25) == 0)
    }

    @Test(arguments: [-50.0, 0, 37.94, 500, 2_000])
    func seaLevelPressureInvertsAltitude(_ h: Double) {
        let p = ISA.pressure(altitude: h, seaLevel: 1001.3)
        #expect(abs(ISA.seaLevelPressure(pressure: p, altitude: h) - 1001.3) < 1e-9)
        #expect(abs(ISA.altitude(pressure: p, seaLevel: 1001.3) - h) < 1e-6)
    }
}

@Suite struct AltimeterTests {
    func fix(_ t: Double, alt: Double, vAcc: Double) -> Fix {
        Fix(
            time: Date(timeIntervalSince1970: t), coordinate: Coordinate(latitude: 60.17, longitude: 24.94),
            mode: .threeD,
            altitudeMSL: alt, verticalAccuracy: vAcc)
    }

    @Test func unknownUntilCalibrated() {
        var a = BarometricAltimeter()
        #expect(a.altitude(for: 1008.7) == nil)
        a.observe(PressureReading(time: Date(timeIntervalSince1970: 0), hPa: 1008.7, source: .iio))
        #expect(a.altitude(for: 1008.7) == nil)
        // A fix with a poor vertical accuracy does not calibrate.
        let poor = a.observe(fix(0, alt: 40, vAcc: 25))
        #expect(!poor)
        // A 2D fix neither.
        var flat = fix(0, alt: 40, vAcc: 3)
        flat.mode = .twoD
        let twoD = a.observe(flat)
        #expect(!twoD)
        // Nor a pressure reading too far from the fix in time.
        let late = a.observe(fix(10, alt: 40, vAcc: 3))
        #expect(!late)
        #expect(a.altitude(for: 1008.7) == nil)
    }

    @Test func qnhCalibration() throws {
        var a = BarometricAltimeter()
        a.calibrate(qnh: 1013.25)
        let (metres, accuracy) = try #require(a.altitude(for: 1008.70))
        #expect(abs(metres - 37.94) < 0.01)
        #expect(
            abs(
                accuracy
                    - (BarometricAltimeter.qnhAccuracyMetres * BarometricAltimeter.qnhAccuracyMetres + 1)
                    .squareRoot()) < 1e-9)
    }

    /// A synthetic walk: the walker climbs from 30 m to 45 m and back under a sea-level
    /// pressure of 1002.3 hPa. GNSS heights are noisy (σ 2.5 m), every 10th is a multipath
    /// outlier 40 m too high that still claims a good accuracy, and fixes with poor
    /// vertical accuracy carry wild heights. The median calibration must converge anyway.
    @Test func calibrationConvergesOnASyntheticWalk() throws {
        var rng = SeededRandom(seed: 42)
        func gaussian() -> Double {
            let u1 = Double.random(in: Double.ulpOfOne..<1, using: &rng)
            let u2 = Double.random(in: 0..<1, using: &rng)
            return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
        }
        let p0 = 1002.3
        var a = BarometricAltimeter()
        var worst = 0.0
        for second in 0..<300 {
            let t = 1_700_000_000 + Double(second)
            let truth = 30 + 15 * sin(Double(second) / 300 * .pi)
            let hPa = ISA.pressure(altitude: truth, seaLevel: p0) + 0.03 * gaussian()
            a.observe(PressureReading(time: Date(timeIntervalSince1970: t), hPa: hPa, source: .iio))
            let gnss: Fix
            if second % 10 == 0 {
                gnss = fix(t, alt: truth + 40, vAcc: 4)
            } else if second % 7 == 0 {
                gnss = fix(t, alt: truth - 200 * gaussian(), vAcc: 30)
            } else {
                gnss = fix(t, alt: truth + 2.5 * gaussian(), vAcc: 3)
            }
            a.observe(gnss)
            if second >= 60 {
                let (metres, accuracy) = try #require(
                    a.altitude(for: hPa, at: Date(timeIntervalSince1970: t)))
                worst = max(worst, abs(metres - truth))
                // Within 2.5 m: what the level check needs; and the estimate is honest about it.
                #expect(abs(metres - truth) < 2.5, "second \(second): \(metres) vs \(truth)")
                #expect(accuracy <= 6, "accuracy \(accuracy) must allow storing the door's altitude")
                #expect(abs(metres - truth) < 2 * accuracy)
            }
        }
        #expect(abs(try #require(a.seaLevelPressure) - p0) < 0.25)
        #expect(a.sampleCount == BarometricAltimeter.sampleWindow)
        #expect(worst > 0)
    }

    @Test func accuracyGrowsWithTimeSinceCalibration() throws {
        var a = BarometricAltimeter()
        let p = PressureReading(time: Date(timeIntervalSince1970: 0), hPa: 1000, source: .iio)
        a.observe(p)
        let used = a.observe(fix(0, alt: 100, vAcc: 3))
        #expect(used)
        let now = try #require(a.altitude(for: 1000, at: Date(timeIntervalSince1970: 0)))
        let later = try #require(a.altitude(for: 1000, at: Date(timeIntervalSince1970: 7200)))
        #expect(abs(now.metres - 100) < 1e-6)
        #expect(later.accuracy > now.accuracy)
        #expect(abs(later.accuracy - (9 + pow(2 * 0.5 * 8.3, 2) + 1).squareRoot()) < 1e-9)
    }

    /// A QNH never makes the altitude worse than GNSS calibration would: two hours after the
    /// QNH's time, good GNSS samples take over (before: they were ignored while a QNH was set,
    /// and the QNH's drift made the accuracy 8.7 m, too rough for a level check); a fresh QNH
    /// beats a rough GNSS calibration.
    @Test func gnssSamplesTakeOverFromAnAgedQNH() throws {
        let t0 = 1_700_000_000.0
        var a = BarometricAltimeter()
        a.calibrate(qnh: 1008.4, at: Date(timeIntervalSince1970: t0))
        #expect(a.calibration(at: Date(timeIntervalSince1970: t0))?.source == .qnh)
        for second in 0..<10 {
            let t = t0 + 7200 + Double(second)
            a.observe(PressureReading(time: Date(timeIntervalSince1970: t), hPa: 1000, source: .iio))
            a.observe(fix(t, alt: 70, vAcc: 4))
        }
        let at = Date(timeIntervalSince1970: t0 + 7210)
        let altitude = try #require(a.altitude(for: 1000, at: at))
        #expect(altitude.accuracy <= 6, "accuracy \(altitude.accuracy)")
        #expect(abs(altitude.metres - 70) < 0.01)
        let calibration = try #require(a.calibration(at: at))
        #expect(calibration.source == .gnss(samples: 10))
        // A fresh QNH is better than one rough GNSS height (8 m): it stays in use.
        var b = BarometricAltimeter()
        b.calibrate(qnh: 1008.4, at: at)
        b.observe(PressureReading(time: at, hPa: 1000, source: .iio))
        let used = b.observe(fix(t0 + 7210, alt: 70, vAcc: 8))
        #expect(used)
        #expect(b.calibration(at: at)?.source == .qnh)
        #expect(abs(try #require(b.altitude(for: 1000, at: at)).accuracy - (16.0 + 1).squareRoot()) < 1e-9)
    }
}

@Suite struct IIOTests {
    /// A fake `/sys/bus/iio/devices` with an ADC first, then the given barometer.
    func tree(_ files: [String: String], name: String = "bmp280") throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("iio-\(UUID().uuidString)")
            .path
        let adc = root + "/iio:device0"
        let baro = root + "/iio:device1"
        for dir in [adc, baro] {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        }
        try "ads1015\n".write(toFile: adc + "/name", atomically: true, encoding: .utf8)
        try "1234\n".write(toFile: adc + "/in_voltage0_raw", atomically: true, encoding: .utf8)
        try "\(name)\n".write(toFile: baro + "/name", atomically: true, encoding: .utf8)
        for (file, text) in files {
            try text.write(toFile: baro + "/" + file, atomically: true, encoding: .utf8)
        }
        return root
    }

    @Test func inputInKilopascals() throws {
        let root = try tree(["in_pressure_input": "100.870000\n"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let baro = try IIOBarometer(root: root)
        #expect(baro.name == "bmp280")
        let r = try baro.read(at: nil)
        #expect(r.hPa == 1008.7 && r.source == .iio)
    }

    @Test func rawTimesScale() throws {
        let root = try tree(
            ["in_pressure_raw": "25824\n", "in_pressure_scale": "0.00390625\n"], name: "lps22hb")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let r = try IIOBarometer(root: root).read(at: Date(timeIntervalSince1970: 5))
        #expect(abs(r.hPa - 25824 * 0.00390625 * 10) < 0.001)
        #expect(r.time == Date(timeIntervalSince1970: 5))
    }

    @Test func configuredNameAndMissingDevice() throws {
        let root = try tree(["in_pressure_input": "100.0"], name: "mysensor")
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(try IIOBarometer(root: root, name: "mysensor").name == "mysensor")
        #expect(throws: IIOBarometer.Failure.noDevice(root: root, name: "bme280")) {
            try IIOBarometer(root: root, name: "bme280")
        }
        // The ADC has no pressure channel: named by its directory or its name, it is still no
        // barometer, and said so (before: "no IIO device named ads1015", which exists).
        for name in ["iio:device0", "ads1015"] {
            #expect(
                throws: IIOBarometer.Failure.noPressureChannel(
                    directory: root + "/iio:device0", name: "ads1015")
            ) {
                try IIOBarometer(root: root, name: name)
            }
        }
        #expect(
            IIOBarometer.Failure.noPressureChannel(directory: "/x/iio:device0", name: "ads1015").description
                == "the IIO device ads1015 (/x/iio:device0) has no pressure channel (no in_pressure_input or in_pressure_raw)"
        )
        #expect(throws: IIOBarometer.Failure.noDevice(root: "/nonexistent-iio", name: nil)) {
            try IIOBarometer(root: "/nonexistent-iio")
        }
    }

    /// `iioDevice: "iio:device1"`, the directory form docs/daemon.md documents. Before: only
    /// the `name` file was compared, and it never matched.
    @Test func aDeviceNamedByItsDirectory() throws {
        let root = try tree(["in_pressure_input": "100.0"], name: "bme280")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let baro = try IIOBarometer(root: root, name: "iio:device1")
        #expect(baro.name == "bme280" && baro.directory == root + "/iio:device1")
    }

    /// No device named: a pressure channel is enough, whatever the driver calls itself
    /// (docs: "the first with a pressure channel"). Before: a name not in `knownNames` was
    /// never used. A known barometer still goes first.
    @Test func anUnknownNameWithAPressureChannelIsUsedWhenNoneIsNamed() throws {
        let root = try tree(["in_pressure_input": "100.0"], name: "mysensor")
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(try IIOBarometer(root: root).name == "mysensor")
        let known = root + "/iio:device2"
        try FileManager.default.createDirectory(atPath: known, withIntermediateDirectories: true)
        try "bmp280\n".write(toFile: known + "/name", atomically: true, encoding: .utf8)
        try "100.0\n".write(toFile: known + "/in_pressure_input", atomically: true, encoding: .utf8)
        #expect(try IIOBarometer(root: root).name == "bmp280")
    }

    @Test func badValuesAreNamed() throws {
        let root = try tree(["in_pressure_input": "n/a"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let baro = try IIOBarometer(root: root)
        #expect(
            throws: IIOBarometer.Failure.malformed(path: baro.directory + "/in_pressure_input", value: "n/a")
        ) {
            try baro.read(at: nil)
        }
        let low = try tree(["in_pressure_input": "1.0"])
        defer { try? FileManager.default.removeItem(atPath: low) }
        #expect(throws: IIOBarometer.Failure.self) { try IIOBarometer(root: low).read(at: nil) }
    }

    /// An implausible value names its file (before: the directory) and the range; a hex value
    /// is not a number (before: `0x10` was read as 16 kPa).
    @Test func implausibleAndHexValuesNameTheirFile() throws {
        let root = try tree(["in_pressure_input": "-5\n"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let baro = try IIOBarometer(root: root)
        let input = baro.directory + "/in_pressure_input"
        #expect(throws: IIOBarometer.Failure.implausible(path: input, hPa: -50)) { try baro.read(at: nil) }
        #expect(
            IIOBarometer.Failure.implausible(path: input, hPa: -50).description
                == "\(input): -50.0 hPa is not a plausible air pressure (250…1100 hPa)")
        try "0x10\n".write(toFile: input, atomically: true, encoding: .utf8)
        #expect(throws: IIOBarometer.Failure.malformed(path: input, value: "0x10")) { try baro.read(at: nil) }
    }

    /// A device whose directory went away is said to be gone (before: "cannot read
    /// …/in_pressure_raw", a file it never had), and found again when it comes back as another
    /// device number.
    @Test func aVanishedDeviceIsSaidGoneAndFoundAgainUnderAnotherNumber() async throws {
        let root = try tree(["in_pressure_input": "100.600\n"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let baro = try IIOBarometer(root: root)
        let seen = IIOBarometerRetryTests.Seen()
        let stream = baro.readings(every: 0.02) { failure in seen.problems.withLock { $0.append(failure) } }
        let reader = Task {
            for await reading in stream { seen.readings.withLock { $0.append(reading.hPa) } }
        }
        defer { reader.cancel() }
        #expect(await seen.wait { !seen.readings.withLock(\.isEmpty) })
        try FileManager.default.moveItem(atPath: baro.directory, toPath: root + "/gone")
        #expect(await seen.wait { seen.problems.withLock { !$0.isEmpty } })
        #expect(seen.problems.withLock { $0.first } == .gone(directory: baro.directory))
        #expect(
            IIOBarometer.Failure.gone(directory: baro.directory).description
                == "\(baro.directory) is gone (no in_pressure_input or in_pressure_raw)")
        // Back as iio:device3, with another value: read from there.
        try FileManager.default.moveItem(atPath: root + "/gone", toPath: root + "/iio:device3")
        try "101.0\n".write(
            toFile: root + "/iio:device3/in_pressure_input", atomically: true, encoding: .utf8)
        #expect(await seen.wait { seen.readings.withLock { $0.contains(1010) } }, "readings from iio:device3")
    }
}
