#if canImport(Glibc)
import Glibc
#endif
import ImageScaler

/// What the handlers below write, made before the job starts: a signal handler may
/// only call write and _exit. Indexed by signal number.
nonisolated(unsafe) private var guardMessages: [(line: [UInt8], report: [UInt8])] = []
nonisolated(unsafe) private var guardReportFD: Int32 = -1
/// The terminal's stderr while the job's own stderr goes to a file.
nonisolated(unsafe) private var guardStderrFD: Int32 = 2
nonisolated(unsafe) private var guardExitStatus: Int32 = 1

/// A batch of one input runs in this process rather than in a forked worker (a fork
/// and a second process to tear down cost more than a small thumbnail): under the same
/// memory and CPU limits, and with handlers that turn a fatal signal into the
/// same line a worker's death gives, `imgscale: x: decoder crashed (SIGSEGV);
/// nothing written`, its report line, and exit status 1. The handlers run on their own
/// stack, so a decoder's stack overflow is caught too. What a library prints on stderr
/// meanwhile (dav1d's "Error parsing OBU data") is kept in a file and attached to the
/// outcome, as a worker does, instead of appearing without a path.
enum CrashGuard {
    static let fatal: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS, SIGXCPU]

    /// For the tests of the isolation itself: an input whose path contains
    /// IMGSCALE_TEST_CRASH faults here as a decoder would (no real library crash stays
    /// reachable once the inputs that caused them are refused).
    static func faultForTests(on path: String) {
        if let crashOn = getenv("IMGSCALE_TEST_CRASH").map({ String(cString: $0) }), !crashOn.isEmpty, path.contains(crashOn) {
            UnsafeMutablePointer<Int>(bitPattern: 16)!.pointee = 1
        }
    }

    /// Runs `body` guarded; `describe(signal)` gives the input's outcome for a signal.
    static func run<T: WorkerOutcome>(limits: WorkerPool.Limits, reportFD: Int32?, display: String,
                                      outcome: @escaping (String) -> BatchReporter.InputOutcome, exitStatus: Int32 = 1,
                                      _ body: () -> T) -> T {
        var messages = [(line: [UInt8], report: [UInt8])](repeating: ([], []), count: 65)
        func message(_ why: String) -> (line: [UInt8], report: [UInt8]) {
            (Array("imgscale: \(display): \(why)\n".utf8), Array(BatchReporter.lines(outcome(why)).utf8))
        }
        for s in fatal {
            messages[Int(s)] = message(WorkerPool.reason(signal: s, cpuSeconds: limits.cpuSeconds(job: 0), perOutput: limits.cpuSeconds))
        }
        let wall = limits.wall, firstAllowance = wall.initial(inputBytes: limits.inputBytesOfJob?(0) ?? 0)
        guardMessages = messages
        guardReportFD = reportFD ?? -1
        guardExitStatus = exitStatus
        let stackSize = 256 << 10
        let stack = UnsafeMutableRawPointer.allocate(byteCount: stackSize, alignment: 16)
        var alternate = stack_t(ss_sp: stack, ss_flags: 0, ss_size: stackSize)
        sigaltstack(&alternate, nil)
        var action = Glibc.sigaction()
        action.__sigaction_handler.sa_handler = { s in
            let m = guardMessages[Int(s)]
            _ = m.line.withUnsafeBytes { write(guardStderrFD, $0.baseAddress, $0.count) }
            if guardReportFD >= 0 { _ = m.report.withUnsafeBytes { write(guardReportFD, $0.baseAddress, $0.count) } }
            _exit(guardExitStatus)
        }
        action.sa_flags = Int32(SA_ONSTACK) | Int32(bitPattern: UInt32(SA_RESETHAND))
        sigemptyset(&action.sa_mask)
        let handled = fatal
        var previous = [Glibc.sigaction](repeating: Glibc.sigaction(), count: handled.count)
        for (i, s) in handled.enumerated() { sigaction(s, &action, &previous[i]) }
        // The wall-clock limit is a thread of this process's own, which ends the job with
        // its line as the handlers do. It reads `message` alone, and only until `stop`.
        nonisolated(unsafe) let describe = message
        let watchdog = firstAllowance.map { first in
            WallClockWatchdog(allowance: first) { seconds in
                let m = describe(wall.reason(seconds: seconds))
                _ = m.line.withUnsafeBytes { write(guardStderrFD, $0.baseAddress, $0.count) }
                if guardReportFD >= 0 { _ = m.report.withUnsafeBytes { write(guardReportFD, $0.baseAddress, $0.count) } }
                _exit(guardExitStatus)
            }
        }
        if let watchdog { JobDeadline.useTimer { watchdog.extend(to: $0) } }
        WorkerPool.applyMemoryLimit(limits)
        WorkerPool.applyCPU(limits, job: 0)
        // Not under a sanitizer: its report of this very job must reach the terminal whole.
        let terminal = WorkerPool.sanitized ? -1 : dup(2)
        var log: Int32 = -1
        if terminal >= 0, let file = tmpfile() {
            log = dup(fileno(file))
            fclose(file)
            if log >= 0 {
                guardStderrFD = terminal
                dup2(log, 2)
            }
        }
        defer {
            if log >= 0 {
                dup2(terminal, 2)
                guardStderrFD = 2
                close(log)
            }
            if terminal >= 0 { close(terminal) }
            if let watchdog {
                watchdog.stop()
                JobDeadline.clear()
            }
            for (i, s) in handled.enumerated() { sigaction(s, &previous[i], nil) }
            var off = stack_t(ss_sp: nil, ss_flags: Int32(SS_DISABLE), ss_size: 0)
            sigaltstack(&off, nil)
            stack.deallocate()
        }
        var result = body()
        watchdog?.stop()
        if log >= 0 {
            let printed = WorkerPool.printed(log)
            if !printed.isEmpty { result.attach(printed: printed) }
        }
        return result
    }
}
