#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import ImageScaler

/// Runs jobs on `workers` threads, each decoding one image at a time so memory stays
/// bounded by the worker count. A failed input is reported and the batch goes on.
final class BatchRunner: Sendable {
    struct Counts { var ok = 0, failed = 0, skipped = 0 }

    let jobs: [Job]
    let settings: JobSettings
    let workers: Int
    let ifNewer: Bool
    let progress: Bool
    let quiet: Bool
    let report: Int32?
    let reportPath: String?

    private let state = Locked((next: 0, counts: Counts(), lastDraw: 0.0, reportError: Int32(0)))
    private let start = Console.now()

    init(jobs: [Job], settings: JobSettings, workers: Int, ifNewer: Bool, progress: Bool, quiet: Bool, report: Int32?, reportPath: String?) {
        self.jobs = jobs
        self.settings = settings
        self.workers = max(1, min(workers, jobs.count))
        self.ifNewer = ifNewer
        self.progress = progress
        self.quiet = quiet
        self.report = report
        self.reportPath = reportPath
    }

    /// Returns the exit status: 0 when every input succeeded or was skipped, else 1.
    func run() -> Int32 {
        // Largest inputs first (by file size): with few workers, a big file picked up
        // last would leave the other cores idle at the end of the batch.
        let order = workers > 1 ? jobs.indices.sorted { fileSize(jobs[$0].input) > fileSize(jobs[$1].input) } : Array(jobs.indices)
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while let index = takeNext() {
                runOne(jobs[order[index]])
            }
        }
        let (counts, reportError) = state.withLock { ($0.counts, $0.reportError) }
        if progress { Console.write(2, "\r\u{1B}[K") }
        if !quiet && (jobs.count > 1 || progress) {
            let elapsed = Console.now() - start
            var line = "imgscale: \(counts.ok) ok, \(counts.failed) failed"
            if counts.skipped > 0 { line += ", \(counts.skipped) skipped" }
            line += " in \(format(elapsed, digits: 2)) s"
            Console.err(line)
        }
        // A report that could not be written is a failure: CI would read a truncated one.
        if reportError != 0 {
            Console.err("imgscale: --report \(FileName.display(reportPath ?? "-")): \(String(cString: strerror(reportError)))")
            return 1
        }
        return counts.failed > 0 ? 1 : 0
    }

    private func takeNext() -> Int? {
        state.withLock { s in
            guard s.next < jobs.count else { return nil }
            defer { s.next += 1 }
            return s.next
        }
    }

    private func runOne(_ job: Job) {
        let t0 = Console.now()
        var json = JSON()
        json.add(path: "input", job.input)
        json.add(path: "output", job.output)
        var status = "ok"
        var failure: String? = nil
        var size: Size? = nil
        if let reason = job.failure {
            status = "failed"
            Console.err("imgscale: \(FileName.display(job.input)): \(reason)")
            failure = reason
        } else if ifNewer && isUpToDate(job) {
            status = "skipped"
        } else {
            do {
                try makeParent(of: job.output)
                let (outSize, warnings) = try JobProcessor.run(job, settings)
                size = outSize
                for warning in warnings { Console.err("imgscale: \(FileName.display(job.input)): warning: \(warning)") }
            } catch {
                status = "failed"
                let message = "\(error)"
                Console.err("imgscale: \(FileName.display(job.input)): \(message)")
                failure = message
            }
        }
        json.add("status", status)
        json.add("error", failure)
        json.add("width", size?.width)
        json.add("height", size?.height)
        json.add("ms", Int(((Console.now() - t0) * 1000).rounded()))
        state.withLock { s in
            switch status {
            case "ok": s.counts.ok += 1
            case "skipped": s.counts.skipped += 1
            default: s.counts.failed += 1
            }
            if let report, s.reportError == 0 { s.reportError = Console.write(report, json.text + "\n") }
            let now = Console.now()
            // Redrawn at most ten times a second: a terminal is slower than thumbnails.
            if progress && (now - s.lastDraw >= 0.1 || s.counts.ok + s.counts.failed + s.counts.skipped == jobs.count) {
                s.lastDraw = now
                let done = s.counts.ok + s.counts.failed + s.counts.skipped
                let rate = Double(done) / max(now - start, 1e-3)
                Console.write(2, "\r\u{1B}[K[\(done)/\(jobs.count)] \(s.counts.ok) ok, \(s.counts.failed) failed, \(s.counts.skipped) skipped, \(format(rate, digits: 1)) files/s")
            }
        }
    }

    private func fileSize(_ path: String) -> Int {
        var st = stat()
        return FileName.withCString(path, { stat($0, &st) }) == 0 ? Int(st.st_size) : 0
    }

    /// Like make: an output at least as new as its input needs no rebuild.
    private func isUpToDate(_ job: Job) -> Bool {
        var i = stat(), o = stat()
        guard FileName.withCString(job.input, { stat($0, &i) }) == 0,
              FileName.withCString(job.output, { stat($0, &o) }) == 0 else { return false }
        return (o.st_mtim.tv_sec, o.st_mtim.tv_nsec) >= (i.st_mtim.tv_sec, i.st_mtim.tv_nsec)
    }

    private func makeParent(of path: String) throws {
        guard path != "-", let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
        let dir = String(path[..<slash])
        var st = stat()
        if FileName.withCString(dir, { stat($0, &st) }) == 0 {
            if (st.st_mode & S_IFMT) != S_IFDIR { throw FileError.write("not a directory", path: dir) }
            return
        }
        try makeParent(of: dir)
        if FileName.withCString(dir, { mkdir($0, 0o777) }) != 0 && errno != EEXIST {
            throw FileError.write("cannot create directory: \(String(cString: strerror(errno)))", path: dir)
        }
    }
}

func format(_ value: Double, digits: Int) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let n = Int((value * scale).rounded())
    let whole = n / Int(scale), frac = n % Int(scale)
    let f = String(frac)
    return digits == 0 ? String(whole) : "\(whole).\(String(repeating: "0", count: digits - f.count))\(f)"
}
