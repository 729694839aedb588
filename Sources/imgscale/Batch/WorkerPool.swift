#if canImport(Glibc)
import Glibc
#endif
import ImageScaler
import CArgumentsShim

/// The signal (SIGINT or SIGTERM) that stopped a running pool, 0 while none has; read by
/// its loop between polls.
nonisolated(unsafe) private var interruptRequested: sig_atomic_t = 0
/// The memory limit this process runs a job under (`WorkerPool.applyMemoryLimit`): the
/// budget it follows, the address space (VmPeak) past which the data limit was met, and
/// the data it may hold when a hard limit set outside (`ulimit -d`, `prlimit`, a
/// container) is below what the budget asks; nil when the budget's own limit applies.
nonisolated(unsafe) private var appliedMemoryLimit: (budget: Int, peak: Int, cappedAt: Int?)? = nil

/// Runs a batch's jobs in forked worker processes, one job at a time each (with the next
/// one queued behind it while many are left, see `queueBehind`), so that a
/// crash, an abort or a runaway inside a third-party decoder (libheif, libde265, dav1d,
/// libwebp, giflib, libpng, libjpeg) costs that one input: the parent only forks, polls
/// and reports, turns a worker's death into its input's outcome and forks another for
/// the jobs left. A worker has a data limit from the memory budget and a CPU limit per
/// job, so a library escaping the estimate fails its input, not the machine;
/// what a library prints on the worker's stderr is attached to its input's outcome.
///
/// Forking is safe only from a process with one thread: the parent never starts one,
/// and `available` says whether that still holds (else the batch runs in-process).
final class WorkerPool {
    struct Limits {
        /// Bytes of writable memory (`RLIMIT_DATA`) a worker may add to what it had when forked.
        var data: Int?
        /// CPU seconds one job may use for each output it makes.
        var cpuSeconds: Int?
        /// How many outputs job `n` makes (one when not given): a srcset of 24 searched
        /// encodes is not a runaway decoder, and must not be held to one output's time.
        var outputsOfJob: ((Int) -> Int)? = nil

        /// The wall-clock seconds a job may take (`--timeout`).
        var wall: WallClockLimit = .none
        /// The bytes of job `n`'s input, for the wall-clock limit's first allowance.
        var inputBytesOfJob: ((Int) -> Int)? = nil

        /// The CPU seconds job `n` may use (nil: no bound).
        func cpuSeconds(job n: Int?) -> Int? {
            cpuSeconds.map { $0 * max(1, n.flatMap { outputsOfJob?($0) } ?? 1) }
        }
        /// The memory budget the limit follows.
        var budget: Int

        /// Room for `images` decodes within the memory budget, and half a gigabyte over:
        /// the budget is an estimate, and every thread's stack is writable memory too.
        /// No limit for an unlimited budget.
        init(budget: Int, images: Int, cpuSeconds: Int?) {
            data = budget > 0 && budget < Int.max / 4 ? 2 * images * budget + (512 << 20) : nil
            self.cpuSeconds = cpuSeconds
            self.budget = budget
        }
    }

    private struct Worker {
        let pid: pid_t
        /// The parent's ends: job numbers go out on `jobs`, outcomes come back on `results`.
        let jobs: Int32
        let results: Int32
        /// The worker's stderr: an unlinked file the parent can still read after a crash.
        let log: Int32
        var job: Int? = nil
        /// The job sent behind `job`, which it starts as soon as it hands `job`'s outcome
        /// over (`queueBehind`).
        var queued: Int? = nil
        /// Its slot in `deadlines`, and when its job was handed over.
        let slot: Int
        var started = 0.0
        /// The time its job waited for a CPU, which the wall-clock limit does not count.
        var forgiven = 0.0
        var queueWait: RunQueueWait? = nil
    }

    private let limits: Limits
    private var workers: [Worker] = []
    /// Each worker's job allowance in milliseconds (0: none), in memory shared with the
    /// workers, which raise it once they have read the header (`JobDeadline`).
    private var deadlines: UnsafeMutablePointer<Int64>? = nil
    private var slotsInUse: [Bool] = []
    /// The signal that stopped the last `runAll`, 0 when it finished.
    private(set) var stoppedBy: Int32 = 0

    init(limits: Limits) {
        self.limits = limits
    }

    /// Whether this process may fork workers: it has a single thread.
    static var available: Bool {
        // ThreadSanitizer's runtime starts its background thread when it pleases, so the
        // count below may miss it; a child forked beside it can hang for good in the Swift
        // runtime's lazy initialisation (seen: both threads of a worker waiting on a
        // metadata `once` its parent held). Under TSan, jobs run on threads instead.
        guard !threadSanitized else { return false }
        guard let dir = opendir("/proc/self/task") else { return false }
        defer { closedir(dir) }
        var threads = 0
        while let e = readdir(dir) {
            let first = withUnsafeBytes(of: e.pointee.d_name) { $0[0] }
            if first != UInt8(ascii: ".") { threads += 1 }
        }
        return threads == 1
    }

    /// Runs jobs `0 ..< count` on up to `width` workers: `run(i)` in a worker, then
    /// `record` in the parent as each ends (`crashed(i, why)` makes the outcome of a job
    /// whose worker died). Returns false when interrupted by SIGINT (the workers are then
    /// stopped).
    func runAll<Outcome: WorkerOutcome>(count: Int, width: Int, run: (Int) -> Outcome, record: (Int, Outcome) -> Void,
                                        crashed: (Int, String) -> Outcome) -> Bool {
        interruptRequested = 0
        stoppedBy = 0
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { s in interruptRequested = s }
        sigemptyset(&action.sa_mask)
        var previous = [sigaction(), sigaction()]
        sigaction(SIGINT, &action, &previous[0])
        sigaction(SIGTERM, &action, &previous[1])
        defer {
            sigaction(SIGINT, &previous[0], nil)
            sigaction(SIGTERM, &previous[1], nil)
        }
        let slots = max(1, width)
        if limits.wall != .none, let page = mmap(nil, slots * 8, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0), page != MAP_FAILED {
            deadlines = page.bindMemory(to: Int64.self, capacity: slots)
            deadlines!.initialize(repeating: 0, count: slots)
        }
        slotsInUse = [Bool](repeating: false, count: slots)
        defer {
            if let d = deadlines { munmap(d, slots * 8) }
            deadlines = nil
        }

        var next = 0, done = 0
        // Jobs sent behind one whose worker then died or was stopped: never started,
        // they go out again before `next`.
        var returned: [Int] = []
        func take() -> Int? {
            if !returned.isEmpty { return returned.removeFirst() }
            guard next < count else { return nil }
            next += 1
            return next - 1
        }
        while done < count {
            if interruptRequested != 0 { return stop(record: record) }
            // As many workers as there are jobs running or waiting, up to `width`.
            let busy = workers.filter { $0.job != nil }.count
            while workers.count < min(width, busy + count - next + returned.count) {
                guard let w = spawn(run) else { break }
                workers.append(w)
            }
            for i in workers.indices where workers[i].job == nil {
                guard let job = take() else { break }
                var n = Int32(job)
                let allowance = limits.wall.initial(inputBytes: limits.inputBytesOfJob?(job) ?? 0)
                deadlines?[workers[i].slot] = allowance.map { Int64($0 * 1000) } ?? 0
                if write(workers[i].jobs, &n, 4) == 4 {
                    workers[i].job = job
                    startClock(&workers[i])
                } else {
                    returned.insert(job, at: 0)
                }
            }
            for i in workers.indices where queueBehind(workers[i], left: count - next + returned.count, width: width) {
                guard let job = take() else { break }
                var n = Int32(job)
                if write(workers[i].jobs, &n, 4) == 4 {
                    workers[i].queued = job
                } else {
                    returned.insert(job, at: 0)
                }
            }
            guard workers.contains(where: { $0.job != nil }) else {
                // No worker could be started: the rest run here, unprotected, rather than not at all.
                while next < count { record(next, run(next)); next += 1; done += 1 }
                break
            }
            var fds = workers.map { pollfd(fd: $0.results, events: Int16(POLLIN), revents: 0) }
            if poll(&fds, nfds_t(fds.count), pollTimeout()) < 0 {
                if errno == EINTR { continue }
                break
            }
            for (i, fd) in fds.enumerated().reversed() where fd.revents != 0 {
                guard let job = workers[i].job else { continue }
                if let outcome: Outcome = receive(from: workers[i].results) {
                    // The worker has started the job queued behind, if any.
                    workers[i].job = workers[i].queued
                    workers[i].queued = nil
                    if workers[i].job != nil { startClock(&workers[i]) }
                    record(job, outcome)
                } else {
                    let why = reap(workers[i])
                    if let queued = workers[i].queued { returned.insert(queued, at: 0) }
                    release(workers.remove(at: i))
                    if interruptRequested != 0 { return stop(record: record) }
                    record(job, crashed(job, why))
                }
                done += 1
            }
            // A worker past its job's allowance is killed, whatever it is doing: the
            // CPU limit misses a deadlock, a library asleep, a read that never ends. The
            // time it waited for a CPU is not counted (RunQueueWait), so a loaded machine
            // does not fail an ordinary job.
            let now = Console.now()
            for i in workers.indices.reversed() {
                guard let job = workers[i].job, let seconds = allowance(workers[i]),
                      now - workers[i].started - workers[i].forgiven >= seconds else { continue }
                workers[i].forgiven += workers[i].queueWait?.forgiven(now: now) ?? 0
                guard now - workers[i].started - workers[i].forgiven >= seconds else { continue }
                // An outcome already sent means the job ended in time; the allowance
                // read may be the next one's, set as it starts.
                var ready = pollfd(fd: workers[i].results, events: Int16(POLLIN), revents: 0)
                guard poll(&ready, 1, 0) <= 0 else { continue }
                kill(workers[i].pid, SIGKILL)
                _ = reap(workers[i])
                if let queued = workers[i].queued { returned.insert(queued, at: 0) }
                release(workers.remove(at: i))
                record(job, crashed(job, limits.wall.reason(seconds: seconds)))
                done += 1
            }
        }
        for w in workers {
            close(w.jobs)
            var status: Int32 = 0
            waitpid(w.pid, &status, 0)
            close(w.results)
            close(w.log)
        }
        workers = []
        return true
    }

    /// Stops the workers after SIGINT or SIGTERM. Each is asked to stop as the pool was:
    /// one writing its outputs finishes its job and hands over its outcome, which is
    /// recorded (so the report names every file written); one that has not finished in
    /// 10 s is killed.
    private func stop<Outcome: WorkerOutcome>(record: (Int, Outcome) -> Void) -> Bool {
        stoppedBy = interruptRequested
        for w in workers { kill(w.pid, SIGTERM) }
        let give = Console.now() + 10
        while !workers.isEmpty {
            var fds = workers.map { pollfd(fd: $0.results, events: Int16(POLLIN), revents: 0) }
            let wait = Int32(max(0, min(1000, (give - Console.now()) * 1000)))
            if poll(&fds, nfds_t(fds.count), wait) < 0 && errno != EINTR { break }
            for (i, fd) in fds.enumerated().reversed() where fd.revents != 0 {
                if let job = workers[i].job, let outcome: Outcome = receive(from: workers[i].results) {
                    workers[i].job = nil
                    record(job, outcome)
                    continue
                }
                _ = reap(workers[i])
                release(workers.remove(at: i))
            }
            if Console.now() >= give {
                for w in workers {
                    kill(w.pid, SIGKILL)
                    _ = reap(w)
                }
                workers = []
            }
        }
        return false
    }

    /// Starts the wall clock of `w`'s job (handed over now, or started now behind the one
    /// that just ended).
    private func startClock(_ w: inout Worker) {
        w.started = Console.now()
        w.forgiven = 0
        w.queueWait = deadlines == nil ? nil : RunQueueWait(pid: w.pid, now: w.started)
    }

    /// Whether to send `w` a second job behind its running one, so it starts it without
    /// waiting for the parent: on a small VM, the round trip through the parent left a
    /// core idle 0.15 ms a job, 4% of a batch of thumbnails. Not for a job whose input is
    /// large (it runs long enough not to care, and the one behind would wait on it), nor
    /// near the end, where a job held behind a long one would keep the batch from ending
    /// while another worker sits idle.
    private func queueBehind(_ w: Worker, left: Int, width: Int) -> Bool {
        guard let job = w.job, w.queued == nil, left >= 4 * width else { return false }
        return (limits.inputBytesOfJob?(job) ?? 0) <= WorkerPool.queueBehindBytes
    }

    /// The largest input a job may have for another to be queued behind it.
    static let queueBehindBytes = 16 << 20

    /// Job allowance of `w` in seconds, nil for none.
    private func allowance(_ w: Worker) -> Double? {
        guard let d = deadlines, d[w.slot] > 0 else { return nil }
        return Double(d[w.slot]) / 1000
    }

    /// Milliseconds until the first running job's allowance ends; -1 for no bound.
    private func pollTimeout() -> Int32 {
        let now = Console.now()
        var soonest: Double? = nil
        for w in workers where w.job != nil {
            guard let seconds = allowance(w) else { continue }
            soonest = min(soonest ?? .infinity, w.started + w.forgiven + seconds - now)
        }
        guard let soonest else { return -1 }
        return Int32(max(0, min(soonest * 1000 + 1, 3_600_000)))
    }

    private func release(_ w: Worker) {
        if w.slot < slotsInUse.count { slotsInUse[w.slot] = false }
    }

    /// Why a worker ended, with what it printed, once it has been waited for.
    private func reap(_ w: Worker) -> String {
        close(w.jobs)
        var status: Int32 = 0
        while waitpid(w.pid, &status, 0) < 0 && errno == EINTR {}
        close(w.results)
        let printed = WorkerPool.printed(w.log)
        close(w.log)
        let signal = status & 0x7F, exited = signal == 0
        var why: String
        if exited {
            why = "decoder exited with status \((status >> 8) & 0xFF); nothing written"
        } else {
            why = WorkerPool.reason(signal: signal, cpuSeconds: limits.cpuSeconds(job: w.job), perOutput: limits.cpuSeconds)
        }
        if !printed.isEmpty { why += " (it printed: \(printed))" }
        return why
    }

    static func signalName(_ s: Int32) -> String {
        let names: [Int32: String] = [SIGSEGV: "SIGSEGV", SIGBUS: "SIGBUS", SIGABRT: "SIGABRT", SIGILL: "SIGILL",
                                      SIGFPE: "SIGFPE", SIGTRAP: "SIGTRAP", SIGSYS: "SIGSYS", SIGTERM: "SIGTERM",
                                      SIGINT: "SIGINT", SIGKILL: "SIGKILL", SIGALRM: "SIGALRM"]
        return names[s] ?? "signal \(s)"
    }

    /// One outcome message: its length, then the bytes; nil at end of file or on a
    /// message that does not decode.
    private func receive<Outcome: WorkerOutcome>(from fd: Int32) -> Outcome? {
        var length: UInt32 = 0
        guard WorkerPool.readFully(fd, &length, 4), length <= 64 << 20 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        guard bytes.withUnsafeMutableBytes({ WorkerPool.readFully(fd, $0.baseAddress!, Int(length)) }) else { return nil }
        return Outcome(wire: bytes)
    }

    /// Forks a worker; nil when the system refuses (the caller runs jobs itself then).
    private func spawn<Outcome: WorkerOutcome>(_ run: (Int) -> Outcome) -> Worker? {
        var jobs: [Int32] = [0, 0], results: [Int32] = [0, 0]
        guard pipe(&jobs) == 0 else { return nil }
        guard pipe(&results) == 0 else { close(jobs[0]); close(jobs[1]); return nil }
        guard let file = tmpfile() else { [jobs[0], jobs[1], results[0], results[1]].forEach { _ = close($0) }; return nil }
        let log = dup(fileno(file))
        fclose(file)
        let slot = slotsInUse.firstIndex(of: false) ?? 0
        if slot < slotsInUse.count { slotsInUse[slot] = true }
        let parent = getpid()
        let pid = fork()
        if pid < 0 {
            [jobs[0], jobs[1], results[0], results[1], log].forEach { _ = close($0) }
            if slot < slotsInUse.count { slotsInUse[slot] = false }
            return nil
        }
        if pid == 0 {
            // A worker dies with the batch: a killed parent leaves none writing on.
            _ = imgscale_die_with_parent()
            if getppid() != parent { _exit(0) }
            Interruption.installInWorker(parent: parent)
            if let d = deadlines { JobDeadline.useSlot(d + slot) }
            // The other workers' pipes must close when the parent closes them.
            for w in workers { close(w.jobs); close(w.results); close(w.log) }
            close(jobs[1])
            close(results[0])
            serve(run, jobs: jobs[0], results: results[1], log: log)
        }
        close(jobs[0])
        close(results[1])
        return Worker(pid: pid, jobs: jobs[1], results: results[0], log: log, slot: slot)
    }

    /// The worker's loop: a job number in, its outcome out, until the parent closes.
    private func serve<Outcome: WorkerOutcome>(_ run: (Int) -> Outcome, jobs: Int32, results: Int32, log: Int32) -> Never {
        // A fault ends the worker at once: the Swift runtime's backtracer would print a
        // page of frames and, for a raised signal, carry on with the job.
        for s in [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT, SIGSYS] { signal(s, SIG_DFL) }
        dup2(log, 2)
        WorkerPool.applyMemoryLimit(limits)
        while true {
            var n: Int32 = 0
            guard WorkerPool.readFully(jobs, &n, 4) else { _exit(0) }
            // A job queued behind another starts before the parent hears the first ended:
            // its first allowance is set here, not by the parent.
            if let allowance = limits.wall.initial(inputBytes: limits.inputBytesOfJob?(Int(n)) ?? 0) {
                JobDeadline.start(allowing: allowance)
            }
            _ = ftruncate(log, 0)
            _ = lseek(log, 0, SEEK_SET)
            WorkerPool.applyCPU(limits, job: Int(n))
            var outcome = run(Int(n))
            let printed = WorkerPool.printed(log)
            if !printed.isEmpty { outcome.attach(printed: printed) }
            let bytes = outcome.wire()
            var length = UInt32(bytes.count)
            guard WorkerPool.writeFully(results, &length, 4),
                  bytes.withUnsafeBytes({ WorkerPool.writeFully(results, $0.baseAddress!, bytes.count) }) else { _exit(1) }
            Interruption.jobHandedOn()
        }
    }

    /// Limits this process's writable memory to what it holds now plus the limit's share;
    /// not under a sanitizer, whose allocator and shadow map memory no such limit allows for.
    /// `RLIMIT_DATA`, not `RLIMIT_AS`: address space that is only reserved, never written,
    /// is no memory. Each thread that mallocs gets a glibc arena reserving 64 MiB, and an
    /// AVIF encoder's threads beside two dozen output lanes reserved past any address-space
    /// limit the budget allows (a 12 MP srcset failed at defaults with 590 MB resident).
    /// Two arenas keep the reservations, and the fragmentation between outputs, small.
    static func applyMemoryLimit(_ limits: Limits) {
        guard !sanitized else { return }
        GlibcMalloc.limitArenas(2)
        guard let extra = limits.data else { return }
        var now = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_DATA.rawValue), &now)
        // Where /proc is not mounted the base is unknown: a Swift process's own is about
        // 20 MiB, so 64 MiB stands in for it.
        let inUse = WorkerPool.status("VmData:") ?? 64 << 20
        let limit = rlim_t(clamping: inUse + extra)
        var r = rlimit(rlim_cur: min(limit, now.rlim_max), rlim_max: now.rlim_max)
        guard setrlimit(__rlimit_resource_t(RLIMIT_DATA.rawValue), &r) == 0, let size = WorkerPool.status("VmSize:") else { return }
        // What is mapped beside the data (code, libraries, reservations) stays about the
        // same, so the data limit was met where VmPeak reached it plus that.
        let allowed = Int(clamping: r.rlim_cur)
        appliedMemoryLimit = (limits.budget, size - inUse + allowed, r.rlim_cur < limit ? allowed : nil)
    }

    /// Why an encoder in this process may have failed, when its memory was near the
    /// limit: the sentence names the budget and --max-memory; nil when it was not.
    static func memoryLimitReason() -> String? {
        guard let applied = appliedMemoryLimit, let peak = status("VmPeak:"), peak >= applied.peak - (64 << 20) else { return nil }
        if let cap = applied.cappedAt {
            // --max-memory cannot lift a hard limit; saying so spares a futile retry.
            return "it ran out of memory under this process's data limit of \(MemoryBudget.describe(cap)), set outside imgscale "
                + "below what the budget of \(MemoryBudget.describe(applied.budget)) asks (raise it with ulimit -d)"
        }
        return "it ran out of the memory its worker is allowed for the budget of \(MemoryBudget.describe(applied.budget)) (raise it with --max-memory)"
    }

    /// Lets this process use the limit's CPU seconds from now on (SIGXCPU after).
    static func applyCPU(_ limits: Limits, job: Int) {
        guard let cpu = limits.cpuSeconds(job: job) else { return }
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        var now = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_CPU.rawValue), &now)
        let used = rlim_t(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        var r = rlimit(rlim_cur: min(used + rlim_t(cpu) + 1, now.rlim_max), rlim_max: now.rlim_max)
        setrlimit(__rlimit_resource_t(RLIMIT_CPU.rawValue), &r)
    }

    /// What was written to `log` (a worker's stderr) this job: its lines joined, made
    /// one safe line, at most 1000 characters.
    static func printed(_ log: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { pread(log, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return "" }
        let text = String(decoding: buffer[..<n], as: UTF8.self)
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters() }.filter { !$0.isEmpty }
        let joined = FileName.display(lines.joined(separator: "; "))
        return joined.count > 1000 ? String(joined.prefix(1000)) + "..." : joined
    }

    /// Whether ThreadSanitizer's runtime is in this process.
    static let threadSanitized: Bool = {
        let handle = dlopen(nil, RTLD_NOW)
        defer { if let handle { dlclose(handle) } }
        return dlsym(handle, "__tsan_init") != nil
    }()

    /// Whether AddressSanitizer's or ThreadSanitizer's runtime is in this process.
    static let sanitized: Bool = {
        let handle = dlopen(nil, RTLD_NOW)
        defer { if let handle { dlclose(handle) } }
        return dlsym(handle, "__asan_init") != nil || dlsym(handle, "__tsan_init") != nil
    }()

    /// A size field of /proc/self/status ("VmData:"), in bytes; nil without /proc.
    static func status(_ field: String) -> Int? {
        guard let f = fopen("/proc/self/status", "r") else { return nil }
        defer { fclose(f) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), f) != nil {
            let s = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if s.hasPrefix(field) {
                let digits = s.unicodeScalars.filter { ("0"..."9").contains($0) }
                return (Int(String(String.UnicodeScalarView(digits))) ?? 0) * 1024
            }
        }
        return nil
    }

    static func readFully(_ fd: Int32, _ p: UnsafeMutableRawPointer, _ count: Int) -> Bool {
        fully(count) { read(fd, p + $0, count - $0) }
    }

    static func writeFully(_ fd: Int32, _ p: UnsafeRawPointer, _ count: Int) -> Bool {
        fully(count) { write(fd, p + $0, count - $0) }
    }

    /// Runs `step(done)` (a read or write of the rest) until `count` bytes moved,
    /// retrying after a signal; false at end of file or on an error.
    private static func fully(_ count: Int, _ step: (Int) -> Int) -> Bool {
        var done = 0
        while done < count {
            let n = step(done)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            done += n
        }
        return true
    }

    /// The line's reason for a worker or guarded job ended by `signal`.
    static func reason(signal: Int32, cpuSeconds: Int?, perOutput: Int?) -> String {
        switch signal {
        case SIGXCPU:
            let each = perOutput.map { $0 != cpuSeconds ? "\($0) s for each of its \((cpuSeconds ?? 0) / max($0, 1)) outputs; " : "" } ?? ""
            return "took more than \(cpuSeconds ?? 0) s of CPU (\(each)raise it with --max-cpu); nothing written"
        case SIGKILL: return "decoder was killed (SIGKILL, perhaps out of memory); nothing written"
        default: return "decoder crashed (\(signalName(signal))); nothing written"
        }
    }
}

private extension Substring {
    func trimmingCharacters() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
