#if canImport(Glibc)
import Glibc
#endif

/// The CLI's only way to write text: unbuffered writes to stdout or stderr, so lines
/// from parallel workers never interleave mid-line.
enum Console {
    static func out(_ text: String) { write(1, text + "\n") }
    static func err(_ text: String) { write(2, text + "\n") }

    /// Writes all of `text`; returns 0, or the errno of a failed write.
    @discardableResult
    static func write(_ fd: Int32, _ text: String) -> Int32 {
        var bytes = Array(text.utf8)
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
            if n <= 0 {
                if n < 0 && errno == EINTR { continue }
                return n < 0 ? errno : EIO
            }
            done += n
        }
        return 0
    }

    static var stderrIsTerminal: Bool { isatty(2) == 1 }

    /// Seconds on a monotonic clock.
    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
