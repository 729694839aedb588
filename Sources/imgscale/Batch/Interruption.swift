#if canImport(Glibc)
import Glibc
#endif
import ImageScaler
import Synchronization

// Atomics, not sig_atomic_t: jobs on several threads of one process (InProcessPool)
// check and mark them at once, which ThreadSanitizer rightly called a data race. Their
// lock-free loads and stores are safe in a signal handler too.
/// The signal (SIGTERM or SIGINT) that asked this process to stop, 0 while none has.
private let interruptionPending = Atomic<Int32>(0)
/// Set from the first output a job writes until its outcome has been handed on: a stop
/// that arrives then waits for the outcome, so no output exists that no report names.
private let interruptionCommitting = Atomic<Int32>(0)
/// What the handler writes when it ends the process at once (stderr, then the report).
nonisolated(unsafe) private var interruptionMessage: (line: [UInt8], report: [UInt8], fd: Int32) = ([], [], -1)
/// The parent a worker was forked from; 0 outside a worker.
nonisolated(unsafe) private var interruptionParent: pid_t = 0

/// How SIGTERM (what `timeout`, `kill` and CI runners send) and SIGINT stop a job that
/// runs in this process. Outside a job's commit the process ends at once: nothing is
/// being written, and what was written is reported. Inside it the job's remaining
/// outputs fail as interrupted, its outcome is handed on, and only then does the
/// process end. A worker whose parent is gone writes nothing more.
enum Interruption {
    struct Interrupted: Error, CustomStringConvertible {
        let signal: Int32
        var description: String { "interrupted (\(WorkerPool.signalName(signal))) before it was written" }
    }

    /// Handles SIGTERM and SIGINT as above, in a worker forked from `parent`.
    static func installInWorker(parent: pid_t) {
        interruptionParent = parent
        interruptionMessage = ([], [], -1)
        install()
    }

    /// Handles them in a process running one job itself: ending at once writes `line`
    /// to stderr and `report` to `reportFD`.
    static func installInProcess(line: String, report: String, reportFD: Int32?) {
        interruptionMessage = (Array(line.utf8), Array(report.utf8), reportFD ?? -1)
        install()
    }

    private static func install() {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { s in
            interruptionPending.store(s, ordering: .sequentiallyConsistent)
            guard interruptionCommitting.load(ordering: .sequentiallyConsistent) == 0 else { return }
            let m = interruptionMessage
            _ = m.line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
            if m.fd >= 0 { _ = m.report.withUnsafeBytes { write(m.fd, $0.baseAddress, $0.count) } }
            _exit(128 + s)
        }
        sigemptyset(&action.sa_mask)
        for s in [SIGTERM, SIGINT] { sigaction(s, &action, nil) }
    }

    /// Before each output is written: throws when a stop was asked for or the worker's
    /// parent has died (its report could never name the file). The first call marks the
    /// job as committing.
    static func checkBeforeWriting() throws {
        interruptionCommitting.store(1, ordering: .sequentiallyConsistent)
        let pending = interruptionPending.load(ordering: .sequentiallyConsistent)
        if pending != 0 { throw Interrupted(signal: pending) }
        if interruptionParent != 0 && getppid() != interruptionParent { throw Interrupted(signal: SIGKILL) }
    }

    /// After the job's outcome has been handed on: ends the process if a stop came
    /// meanwhile.
    static func jobHandedOn() {
        interruptionCommitting.store(0, ordering: .sequentiallyConsistent)
        let pending = interruptionPending.load(ordering: .sequentiallyConsistent)
        if pending != 0 { _exit(128 + pending) }
    }

    /// The signal that asked for a stop, 0 when none has.
    static var pending: Int32 { interruptionPending.load(ordering: .sequentiallyConsistent) }
}
