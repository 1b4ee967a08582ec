#if canImport(Glibc)
    import Glibc
#endif

/// Monotonic time, in nanoseconds.
package enum Clock {
    package static var now: UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    package static func milliseconds(since start: UInt64) -> Double {
        Double(now - start) / 1e6
    }
}
