import Arrival
import Daemon
import Foundation
import Glibc
import TestSupport
import Testing

/// The daemon's wall clock stepped during a walk (a Pi without a real-time clock, set by NTP or
/// GPS time after boot), for the daemon alone: an `LD_PRELOAD` shim, built here from C with
/// `cc`, adds the seconds written in a file to `CLOCK_REALTIME` and `gettimeofday`; the
/// monotonic and boot clocks are left as they are. The machine's clock is never touched.
/// Needs a C compiler (`apt-get install gcc`).
final class SteppedClock {
    /// The shim's `.so`, to set as `LD_PRELOAD`.
    let library: String
    /// The file holding the step, in seconds (read at each reading of the wall clock).
    let offsetFile: String

    /// The shim: reads the offset file named by `PATHFINDER_TEST_CLOCK_OFFSET` at every reading
    /// of the wall clock (a file replaced by rename is never seen half-written).
    static let source = """
        #define _GNU_SOURCE
        #include <dlfcn.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <sys/time.h>
        #include <time.h>
        static long offset(void) {
            const char *path = getenv("PATHFINDER_TEST_CLOCK_OFFSET");
            long seconds = 0;
            FILE *file = path ? fopen(path, "re") : NULL;
            if (file) {
                if (fscanf(file, "%ld", &seconds) != 1) seconds = 0;
                fclose(file);
            }
            return seconds;
        }
        int clock_gettime(clockid_t clock, struct timespec *ts) {
            static int (*real)(clockid_t, struct timespec *);
            if (!real) real = dlsym(RTLD_NEXT, "clock_gettime");
            int result = real(clock, ts);
            if (result == 0 && (clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE)) ts->tv_sec += offset();
            return result;
        }
        int gettimeofday(struct timeval *tv, void *tz) {
            static int (*real)(struct timeval *, void *);
            if (!real) real = dlsym(RTLD_NEXT, "gettimeofday");
            int result = real(tv, tz);
            if (result == 0 && tv) tv->tv_sec += offset();
            return result;
        }
        time_t time(time_t *t) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            if (t) *t = ts.tv_sec;
            return ts.tv_sec;
        }
        """

    init(in dir: TempDir) throws {
        let source = dir.path + "/steppedclock.c"
        library = dir.path + "/steppedclock.so"
        offsetFile = dir.path + "/clockoffset"
        try Self.source.write(toFile: source, atomically: true, encoding: .utf8)
        let built = try run("cc", ["-shared", "-fPIC", "-o", library, source, "-ldl"], install: "gcc")
        try #require(built == 0, "cc could not build the clock shim from \(source)")
        try step(0)
    }

    /// The daemon's environment for the shim.
    var environment: [String: String] { ["LD_PRELOAD": library, "PATHFINDER_TEST_CLOCK_OFFSET": offsetFile] }

    /// Sets the daemon's wall clock `seconds` from the machine's.
    func step(_ seconds: Int) throws {
        try String(seconds).write(toFile: offsetFile, atomically: true, encoding: .utf8)
    }
}

/// Audit 8, A8-1: every input of a walk reaches the walk on one clock, the walk clock, held
/// steady during the walk. Before, the outcome of each memory write came with the wall clock:
/// stepped an hour ahead during the walk, the save after "여기 아니야" found the last fix an
/// hour old, and the walker heard a false "GPS 신호가 끊겼어" while fixes came every fraction of
/// a second — then "GPS 신호가 다시 잡혔어" at the next one.
@Suite("Daemon: the wall clock stepped during a walk", .serialized)
struct WallClockStepTests {
    @Test func aMemorySaveAfterAClockStepSaysNoFalseGPSLoss() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let clock = try SteppedClock(in: dir)
        let walk = try MemoryDaemonTests.Walk(
            dir: dir, arguments: ["--memory", dir.path + "/memory.json"], environment: clock.environment)
        try #require(
            walk.events.next(EndToEndTests.event("arrived")) != nil, "no arrival:\n\(walk.daemon.stderr)")
        // NTP steps the clock an hour forward; fixes keep coming (5 a second).
        try clock.step(3600)
        let reply = fields(try walk.requests.request(#"{"cmd": "heard", "text": "여기 아니야"}"#))
        #expect(reply["heeded"] == .bool(true), "\(reply)")
        let saved = try #require(
            walk.events.next(EndToEndTests.event("memorySaved")), "no save:\n\(walk.daemon.stderr)")
        // The step took: the event stream's `t` is the daemon's wall clock, an hour ahead.
        let t = try #require(saved["t"]?.stringValue.flatMap { try? Date($0, strategy: .iso8601) })
        #expect(t.timeIntervalSinceNow > 3000, "\(saved)")
        // Fixes after the save (5 a second) would have been followed by "다시 잡혔어": nothing
        // about the GPS was said, before the save or after.
        usleep(1_000_000)
        let gps = walk.events.named("gps")
        #expect(gps.isEmpty, "\(gps)\n\(walk.daemon.stderr)")
        #expect(!walk.daemon.stderr.contains("GPS 신호가"), "\(walk.daemon.stderr)")
        walk.stop()
    }

    /// Audit 9 A9-1: the wall clock stepped an hour ahead between "입구를 기억하지 못했어." (said
    /// on the walk's clock, the walk waiting to end) and the retry that stores the door once the
    /// disk frees (after the walk, on the wall clock). Before, the 60 s window was measured between
    /// the two clocks, an hour apart: the door was saved, and the walker, told it was forgotten,
    /// never heard otherwise.
    @Test func aDoorRememberedAfterAClockStepIsSaid() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let clock = try SteppedClock(in: dir)
        // A plain file where the memory's folder goes: every write fails until it is removed.
        let blocker = dir.path + "/blocked"
        #expect(FileManager.default.createFile(atPath: blocker, contents: Data()))
        let memoryPath = blocker + "/memory.json"
        let walk = try MemoryDaemonTests.Walk(
            dir: dir, arguments: ["--memory", memoryPath], environment: clock.environment)
        _ = try walk.confirmAtTheFirstDoor()
        let failed = try #require(
            walk.events.next { ["memorySaved", "memoryFailed"].contains($0["event"]?.stringValue) },
            "\(walk.daemon.stderr)")
        #expect(failed["event"] == "memoryFailed")
        try clock.step(3600)
        try #require(walk.events.next(EndToEndTests.event("walkEnded")) != nil, "\(walk.daemon.stderr)")
        try walk.unblockAndHearTheDoorRememberedLater(blocker)
        walk.stop()
        #expect(walk.events.said.filter { $0 == Prompts.rememberedLater }.count == 1, "\(walk.events.said)")
    }
}
