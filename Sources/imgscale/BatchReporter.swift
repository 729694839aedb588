#if canImport(Glibc)
import Glibc
#endif
import ImageScaler

/// Everything a batch tells the user, from any worker thread: one line per failed input
/// and per warning, the progress line on a terminal, a JSON line per input in the
/// `--report`, and the closing summary. Its counts decide the exit status.
final class BatchReporter: Sendable {
    enum Status: String, Sendable { case ok, skipped, failed }

    /// What became of one input.
    struct Outcome: Sendable {
        let job: Job
        let status: Status
        var error: String? = nil
        var size: Size? = nil
        var warnings: [String] = []
        let milliseconds: Int
    }

    private struct State {
        var ok = 0, failed = 0, skipped = 0
        var lastDraw = 0.0
        var reportError: Int32 = 0
        var done: Int { ok + failed + skipped }
    }

    let total: Int
    let progress: Bool
    let quiet: Bool
    let report: Int32?
    let reportPath: String?
    private let state = Locked(State())
    private let start = Console.now()

    init(total: Int, progress: Bool, quiet: Bool, report: Int32?, reportPath: String?) {
        self.total = total
        self.progress = progress
        self.quiet = quiet
        self.report = report
        self.reportPath = reportPath
    }

    func record(_ outcome: Outcome) {
        let input = FileName.display(outcome.job.input)
        for warning in outcome.warnings { Console.err("imgscale: \(input): warning: \(warning)") }
        if let error = outcome.error { Console.err("imgscale: \(input): \(error)") }
        var json = JSON()
        json.add(path: "input", outcome.job.input)
        json.add(path: "output", outcome.job.output)
        json.add("status", outcome.status.rawValue)
        json.add("error", outcome.error)
        json.add("width", outcome.size?.width)
        json.add("height", outcome.size?.height)
        json.add("ms", outcome.milliseconds)
        state.withLock { s in
            switch outcome.status {
            case .ok: s.ok += 1
            case .skipped: s.skipped += 1
            case .failed: s.failed += 1
            }
            if let report, s.reportError == 0 { s.reportError = Console.write(report, json.text + "\n") }
            let now = Console.now()
            // Redrawn at most ten times a second: a terminal is slower than thumbnails.
            if progress && (now - s.lastDraw >= 0.1 || s.done == total) {
                s.lastDraw = now
                let rate = Double(s.done) / max(now - start, 1e-3)
                Console.write(2, "\r\u{1B}[K[\(s.done)/\(total)] \(s.ok) ok, \(s.failed) failed, \(s.skipped) skipped, \(format(rate, digits: 1)) files/s")
            }
        }
    }

    /// Clears the progress line, prints the summary, and returns the exit status: 0 when
    /// every input succeeded or was skipped, else 1 (also when the report could not be
    /// written: CI would read a truncated one).
    func finish() -> Int32 {
        let s = state.withLock { $0 }
        if progress { Console.write(2, "\r\u{1B}[K") }
        if !quiet && (total > 1 || progress) {
            var line = "imgscale: \(s.ok) ok, \(s.failed) failed"
            if s.skipped > 0 { line += ", \(s.skipped) skipped" }
            line += " in \(format(Console.now() - start, digits: 2)) s"
            Console.err(line)
        }
        if s.reportError != 0 {
            Console.err("imgscale: --report \(FileName.display(reportPath ?? "-")): \(String(cString: strerror(s.reportError)))")
            return 1
        }
        return s.failed > 0 ? 1 : 0
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
