import Glibc

/// CPU time the calling thread has used, in seconds (`CLOCK_THREAD_CPUTIME_ID`): a measure of
/// one piece of work's own cost that other processes on the machine do not inflate.
public func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// The process's peak resident set size so far, in MB (`getrusage`'s `ru_maxrss`, KiB).
public func peakRSSMegabytes() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024
}
