import Dispatch
import ImageScaler
#if canImport(Glibc)
import Glibc
#endif

/// The wall-clock limit of a job run in this process (`CrashGuard`): a thread that calls
/// `expire` with the allowance once the job has run past it, not counting the time its
/// threads waited for a CPU (`RunQueueWait`); `expire` ends the process. The allowance
/// only rises (`extend`), and once `stop` has returned `expire` is never called.
final class WallClockWatchdog: Sendable {
    private struct State {
        var granted: Double
        var stopped = false
    }

    private let state: Locked<State>
    private let start: Double
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    init(allowance: Double, expire: @escaping @Sendable (Double) -> Void) {
        start = Console.now()
        state = Locked(State(granted: allowance))
        // A labelled queue of its own: the job may keep every pool thread busy.
        DispatchQueue(label: "imgscale.wall-clock").async { [self] in
            watch(expire)
            finished.signal()
        }
    }

    func extend(to seconds: Double) {
        state.withLock { $0.granted = max($0.granted, seconds) }
    }

    func stop() {
        let already = state.withLock { s -> Bool in
            defer { s.stopped = true }
            return s.stopped
        }
        guard !already else { return }
        wake.signal()
        finished.wait()
    }

    private func watch(_ expire: @Sendable (Double) -> Void) {
        var queue = RunQueueWait(pid: getpid(), now: start)
        var forgiven = 0.0
        while let granted = state.withLock({ $0.stopped ? nil : $0.granted }) {
            let now = Console.now()
            if now < start + forgiven + granted {
                _ = wake.wait(timeout: .now() + (start + forgiven + granted - now))
                continue
            }
            forgiven += queue.forgiven(now: now)
            if now < start + forgiven + granted { continue }
            // Under the lock, so `stop` cannot return while the job is being ended.
            state.withLock { s in if !s.stopped { expire(s.granted) } }
            return
        }
    }
}
