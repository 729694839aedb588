#if canImport(Glibc)
import Glibc
#endif

/// How long a process waited for a CPU since the previous reading, from Linux's
/// per-thread scheduler statistics (`/proc/PID/task/TID/schedstat`, second field: the
/// nanoseconds a thread was runnable but not running). The wall-clock limit forgives a
/// job that time: it is meant for a job that cannot progress (asleep on a FIFO,
/// deadlocked), not for one a loaded machine starves. Only the longest wait of any one
/// thread counts, so threads queued together are not forgiven twice, and never more than
/// the wall time between readings. A thread that ends between readings takes its wait
/// with it, and without `/proc` nothing is forgiven: both only ever charge a job more.
struct RunQueueWait {
    private let pid: pid_t
    private var waited: [Int32: UInt64]
    private var readAt: Double

    init(pid: pid_t, now: Double) {
        self.pid = pid
        waited = RunQueueWait.threads(of: pid)
        readAt = now
    }

    /// The seconds since the previous reading during which a thread of the process was
    /// waiting for a CPU.
    mutating func forgiven(now: Double) -> Double {
        let current = RunQueueWait.threads(of: pid)
        var longest: UInt64 = 0
        for (tid, ns) in current {
            let before = waited[tid] ?? 0
            if ns > before { longest = max(longest, ns - before) }
        }
        let interval = max(0, now - readAt)
        waited = current
        readAt = now
        return min(interval, Double(longest) / 1e9)
    }

    /// Each live thread's total wait for a CPU, in nanoseconds.
    private static func threads(of pid: pid_t) -> [Int32: UInt64] {
        var result: [Int32: UInt64] = [:]
        guard let dir = opendir("/proc/\(pid)/task") else { return result }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let tid = Int32(name) else { continue }
            let fd = open("/proc/\(pid)/task/\(name)/schedstat", O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 96)
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            close(fd)
            guard n > 0 else { continue }
            let fields = buffer[..<n].split(separator: UInt8(ascii: " "))
            if fields.count >= 2, let ns = UInt64(String(decoding: fields[1], as: UTF8.self)) { result[tid] = ns }
        }
        return result
    }
}
