#if canImport(Glibc)
import Glibc
#endif

/// The running job's allowance, in milliseconds, in memory its parent reads (a worker).
nonisolated(unsafe) private var deadlineSlot: UnsafeMutablePointer<Int64>? = nil
/// Re-arms this process's own timer (a job run in-process, `CrashGuard`).
nonisolated(unsafe) private var deadlineRearm: ((Double) -> Void)? = nil

/// Where a job raises its wall-clock allowance once its header is read
/// (`WallClockLimit.scaled`): a worker's slot, shared with the parent that kills it past
/// the allowance, or the timer of a process running the job itself. It only ever rises
/// within a job.
enum JobDeadline {
    static func useSlot(_ slot: UnsafeMutablePointer<Int64>) {
        deadlineSlot = slot
        deadlineRearm = nil
    }

    static func useTimer(_ rearm: @escaping (Double) -> Void) {
        deadlineRearm = rearm
        deadlineSlot = nil
    }

    static func clear() {
        deadlineSlot = nil
        deadlineRearm = nil
    }

    /// Sets a worker's allowance for the job it starts now, whatever the last one's was.
    static func start(allowing seconds: Double) {
        deadlineSlot?.pointee = Int64(min(seconds, 1e9) * 1000)
    }

    /// Raises the allowance of the job running now to `seconds` from its start.
    static func extend(to seconds: Double) {
        if let slot = deadlineSlot {
            let ms = Int64(min(seconds, 1e9) * 1000)
            if ms > slot.pointee { slot.pointee = ms }
        } else if let rearm = deadlineRearm {
            rearm(seconds)
        }
    }
}
