import Dispatch
import Foundation
import SystemCalls
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// How many descriptors this process has open.
private func openDescriptors() throws -> Int {
    try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
}

@Suite("System calls", .serialized)
struct SystemCallTests {
    @Test func closeDescriptorClosesOnceAndNamesAFailure() throws {
        let (readEnd, writeEnd) = try makePipe(nonBlocking: true)
        // Closed twice under a number no other test's thread can be given meanwhile (the
        // kernel hands out the lowest free one): a freed low number was sometimes reused by a
        // suite running in parallel, and the second close then closed its descriptor.
        let high = fcntl(readEnd, F_DUPFD_CLOEXEC, 900)
        try #require(high >= 900)
        try closeDescriptor(readEnd)
        try closeDescriptor(writeEnd)
        try closeDescriptor(high)
        #expect(throws: SystemCallError(call: "close pipe", code: EBADF)) {
            try closeDescriptor(high, "close pipe")
        }
    }

    @Test func pipesAreCloseOnExecAndNonBlockingWhenAsked() throws {
        let (readEnd, writeEnd) = try makePipe(nonBlocking: true)
        defer {
            try? closeDescriptor(readEnd)
            try? closeDescriptor(writeEnd)
        }
        for fd in [readEnd, writeEnd] {
            #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0)
            #expect(fcntl(fd, F_GETFL) & O_NONBLOCK != 0)
        }
        var byte: UInt8 = 0
        #expect(throws: SystemCallError(call: "read", code: EAGAIN)) {
            try retryingOnInterrupt("read") { read(readEnd, &byte, 1) }
        }
    }

    @Test func connectingToNobodyNamesTheCallAndTheReason() throws {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { try? closeDescriptor(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = "/tmp/pathfinder-nobody-\(getpid())"
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        #expect(throws: SystemCallError(call: "connect \(path)", code: ENOENT)) {
            try withUnsafePointer(to: &address) { (pointer) throws(SystemCallError) in
                try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    (raw) throws(SystemCallError) in
                    try connectSocket(
                        fd, to: raw, length: socklen_t(MemoryLayout<sockaddr_un>.size), "connect \(path)")
                }
            }
        }
    }

    @Test func aLookupFailureSaysSoInWords() {
        let error = SystemCallError(
            call: "cannot find host x", code: EHOSTUNREACH, reason: "Name or service not known")
        #expect(error.description == "cannot find host x: Name or service not known")
    }

    @Test func signalWatcherDeliversSignalsAndLeavesNoDescriptorsBehind() throws {
        let before = try openDescriptors()
        for _ in 0..<100 {
            let watcher = try SignalWatcher([SIGUSR2], queue: .global()) { _ in }
            watcher.cancel()
        }
        // Each watcher owns a pipe; a leaked end would be 100 descriptors. The read end is
        // closed by the dispatch source's cancel handler, so give the queue a moment. Slack
        // for other suites running alongside.
        var grown = try openDescriptors() - before
        for _ in 0..<100 where grown >= 30 {
            usleep(50_000)
            grown = try openDescriptors() - before
        }
        #expect(grown < 30)

        let received = DispatchSemaphore(value: 0)
        let watcher = try SignalWatcher([SIGUSR2], queue: .global()) { number in
            if number == SIGUSR2 { received.signal() }
        }
        defer { watcher.cancel() }
        kill(getpid(), SIGUSR2)
        #expect(received.wait(timeout: .now() + 10) == .success)
    }
}

/// A temporary folder made by ``RemoveOnSignal/inTemporaryFolder(_:files:_:)`` is gone, with
/// what it held, when the call returns (or throws), still under the signal handler: before, the
/// caller removed it after the handler had let go, and a signal between the two left the folder
/// and its files (`plan --osm` killed at its end: DoorsInFileTests.aSignalLeavesNoTemporaryFolder
/// failed so under load).
@Suite struct TemporaryFolderTests {
    struct Failure: Error {}

    @Test func theFolderIsRemovedWithItsFilesWhenTheBodyEnds() throws {
        let template = (ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp") + "/pathfinder-test-XXXXXX"
        var made = ""
        let answer = RemoveOnSignal.inTemporaryFolder(template, files: ["a.db"]) { folder in
            made = folder
            _ = FileManager.default.createFile(atPath: folder + "/a.db", contents: Data("x".utf8))
            _ = FileManager.default.createFile(atPath: folder + "/a.db-words", contents: Data("y".utf8))
            return 42
        }
        #expect(answer == 42)
        #expect(!made.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: made), "\(made) is still there")

        #expect(throws: Failure.self) {
            _ = try RemoveOnSignal.inTemporaryFolder(template, files: []) { (folder) throws(Failure) -> Int in
                made = folder
                _ = FileManager.default.createFile(atPath: folder + "/b", contents: Data())
                throw Failure()
            }
        }
        #expect(!FileManager.default.fileExists(atPath: made), "\(made) is still there")
    }
}
