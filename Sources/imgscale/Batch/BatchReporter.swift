#if canImport(Glibc)
import Glibc
#endif
import ImageScaler

/// Everything a batch tells the user, from any worker thread: one line per failed input
/// or output and per warning, the progress line on a terminal, a JSON line per output in
/// the `--report`, and the closing summary. Report lines come in input order, then in
/// `--size` order, whatever order the workers finish in, so a report is the same at
/// any `-j` apart from `ms`. Its counts (of outputs) decide the exit status.
final class BatchReporter: Sendable {
    enum Status: String, Sendable { case ok, skipped, failed }

    /// What became of one output.
    struct Outcome: Sendable {
        let output: String
        let status: Status
        var error: String? = nil
        /// The output's size: made, or found on disk when skipped.
        var size: Size? = nil
        /// The file's length, format and SHA-256, made or found on disk: a report of
        /// every output is a build manifest.
        var file: WrittenFile? = nil
        /// `--if-changed`'s key of what made it (`BuildManifest.key`), and the stamps.
        var key: String? = nil
        var stamps: BuildManifest.Stamps? = nil
        /// Said of it once (`Job.Output.note`).
        var note: String? = nil
    }

    /// An output file as the report states it.
    struct WrittenFile: Sendable {
        let bytes: Int
        let format: String
        let sha256: String
        /// A searched quality (`--target-ssim`, `--max-bytes`), and the SSIM it scored
        /// as the report writes it (six decimals).
        var quality: Int? = nil
        var ssim: String? = nil
        /// `--placeholder`'s fields, in the order asked (`Placeholders`).
        var placeholders = Placeholders()

        init(bytes: Int, format: String, sha256: String, quality: Int? = nil, ssim: String? = nil, placeholders: Placeholders = Placeholders()) {
            self.bytes = bytes
            self.format = format
            self.sha256 = sha256
            self.quality = quality
            self.ssim = ssim
            self.placeholders = placeholders
        }

        init(_ data: [UInt8], quality: Int? = nil, ssim: Double? = nil, placeholders: Placeholders = Placeholders()) {
            self.init(bytes: data.count, format: ImageFormat.sniff(data)?.rawValue ?? "", sha256: SHA256.hex(data),
                      quality: quality, ssim: ssim.map(WrittenFile.decimals), placeholders: placeholders)
        }

        /// Six decimals, rounded, in fixed notation.
        static func decimals(_ v: Double) -> String {
            let scaled = Int((v * 1_000_000).rounded())
            let digits = String(abs(scaled) % 1_000_000)
            return (scaled < 0 ? "-" : "") + "\(abs(scaled) / 1_000_000)." + String(repeating: "0", count: 6 - digits.count) + digits
        }
    }

    /// What became of one input and its outputs.
    struct InputOutcome: Sendable {
        let input: String
        /// Why the whole input failed (every output then failed with it).
        var error: String? = nil
        var warnings: [String] = []
        /// How the outputs were decoded (`--verbose`).
        var decodes: String? = nil
        var outputs: [Outcome]
        let milliseconds: Int
    }

    private struct State {
        var ok = 0, failed = 0, skipped = 0
        var lastDraw = 0.0
        var reportError: Int32 = 0
        /// Finished inputs waiting for the ones before them, by position.
        var waiting: [Int: InputOutcome] = [:]
        var nextToReport = 0
        /// A report file of our own: every input's lines as they arrive (a killed run's
        /// report still names every file written), put in order at the end.
        var arrived: [(position: Int, text: String)] = []
        var inputs = 0
        /// What `--if-changed`'s manifests learn: each output made or still current.
        var made: [String: BuildManifest.Entry] = [:]
        var done: Int { ok + failed + skipped }
    }

    /// Outputs in the batch.
    let total: Int
    let progress: Bool
    let quiet: Bool
    let verbose: Bool
    let report: Int32?
    let reportPath: String?
    private let state = Locked(State())
    private let start = Console.now()
    /// Where the report file starts, when it is a regular file this run opened: lines are
    /// then written as they arrive and sorted in place by `finish`.
    private let reportStart: Int?

    init(total: Int, progress: Bool, quiet: Bool, verbose: Bool, report: Int32?, reportPath: String?) {
        self.total = total
        self.progress = progress
        self.quiet = quiet
        self.verbose = verbose
        self.report = report
        self.reportPath = reportPath
        var st = stat()
        if let report, reportPath != "-", fstat(report, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG {
            let at = lseek(report, 0, SEEK_CUR)
            reportStart = at >= 0 ? Int(at) : nil
        } else {
            reportStart = nil
        }
    }

    /// Each output made or found current, with its key, for the manifests.
    var made: [String: BuildManifest.Entry] { state.withLock { $0.made } }

    /// Records the input at `position` in the batch (0-based, in the order given).
    func record(_ outcome: InputOutcome, position: Int) {
        let input = FileName.display(outcome.input)
        var lines: [String] = []
        if verbose, let decodes = outcome.decodes { lines.append("imgscale: \(input): \(decodes)") }
        // Said once for the input, though each format's output carries it.
        if verbose { for note in outcome.outputs.compactMap(\.note) where !lines.contains("imgscale: \(input): \(note)") {
            lines.append("imgscale: \(input): \(note)")
        } }
        for warning in outcome.warnings { lines.append("imgscale: \(input): warning: \(warning)") }
        if let error = outcome.error { lines.append("imgscale: \(input): \(error)") }
        for output in outcome.outputs where output.error != nil && output.error != outcome.error {
            lines.append("imgscale: \(input): \(output.error!)")
        }
        state.withLock { s in
            s.inputs += 1
            for output in outcome.outputs where output.status != .failed {
                if let key = output.key, let file = output.file, let size = output.size, let stamps = output.stamps {
                    s.made[output.output] = BuildManifest.Entry(key: key, sha256: file.sha256, size: size, stamps: stamps,
                                                                        placeholders: file.placeholders)
                }
            }
            // The progress line is cleared first, so no message starts in its middle,
            // and drawn again below.
            if progress && !lines.isEmpty {
                Console.write(2, "\r\u{1B}[K")
                s.lastDraw = 0
            }
            for line in lines { Console.err(line) }
            for output in outcome.outputs {
                switch output.status {
                case .ok: s.ok += 1
                case .skipped: s.skipped += 1
                case .failed: s.failed += 1
                }
            }
            if let report, reportStart != nil {
                let text = BatchReporter.lines(outcome)
                s.arrived.append((position, text))
                if s.reportError == 0 { s.reportError = Console.write(report, text) }
            } else if let report {
                s.waiting[position] = outcome
                while let next = s.waiting.removeValue(forKey: s.nextToReport) {
                    s.nextToReport += 1
                    if s.reportError == 0 { s.reportError = Console.write(report, BatchReporter.lines(next)) }
                }
            }
            let now = Console.now()
            // Redrawn at most ten times a second: a terminal is slower than thumbnails.
            if progress && (now - s.lastDraw >= 0.1 || s.done == total) {
                s.lastDraw = now
                let rate = Double(s.done) / max(now - start, 1e-3)
                Console.write(2, "\r\u{1B}[K[\(s.done)/\(total)] \(s.ok) ok, \(s.failed) failed, \(s.skipped) skipped, \(format(rate, digits: 1)) files/s")
            }
        }
    }

    /// What every report line of this run says of the run itself (its shard, the engine
    /// and index that started it, its attempt), as JSON: set by the command once,
    /// before any worker starts or is forked.
    nonisolated(unsafe) static var runFields: [(key: String, json: String)] = []

    /// The report's JSON lines for one input, one per output.
    static func lines(_ outcome: InputOutcome) -> String {
        var text = ""
        for output in outcome.outputs {
            var json = JSON()
            json.add(path: "input", outcome.input)
            json.add(path: "output", output.output)
            json.add("status", output.status.rawValue)
            json.add("error", output.error)
            json.add("width", output.size?.width)
            json.add("height", output.size?.height)
            json.add("bytes", output.file?.bytes)
            json.add("format", output.file?.format)
            json.add("sha256", output.file?.sha256)
            json.add("quality", output.file?.quality)
            if let ssim = output.file?.ssim { json.add("ssim", raw: ssim) }
            for (key, value) in output.file?.placeholders.fields ?? [] { json.add(key, raw: value) }
            json.add("note", output.note)
            for (key, value) in runFields { json.add(key, raw: value) }
            json.add("ms", outcome.milliseconds)
            text += json.text + "\n"
        }
        return text
    }

    /// Writes the report lines held back for an earlier input that never came (the batch
    /// was stopped): out of order, but every file written is named.
    func flushWaiting() {
        if reportStart != nil { return sortReport() }
        guard let report else { return }
        state.withLock { s in
            for position in s.waiting.keys.sorted() where s.reportError == 0 {
                s.reportError = Console.write(report, BatchReporter.lines(s.waiting[position]!))
            }
            s.waiting = [:]
        }
    }

    /// Rewrites a report written as lines arrived in input order: the same bytes, so the
    /// file only changes order, and a report is the same at any worker count.
    private func sortReport() {
        guard let report, let at = reportStart else { return }
        state.withLock { s in
            guard s.reportError == 0, zip(s.arrived, s.arrived.dropFirst()).contains(where: { $0.position > $1.position }) else { return }
            let text = s.arrived.sorted { $0.position < $1.position }.map(\.text).joined()
            guard lseek(report, off_t(at), SEEK_SET) >= 0 else { s.reportError = errno; return }
            s.reportError = Console.write(report, text)
        }
    }

    /// Clears the progress line (before a last message of the caller's).
    func clearProgress() {
        if progress { Console.write(2, "\r\u{1B}[K") }
    }

    /// Inputs recorded so far.
    var inputsDone: Int { state.withLock { $0.inputs } }

    /// Clears the progress line, prints the summary, and returns the exit status: 0 when
    /// every input succeeded or was skipped, else 1 (also when the report could not be
    /// written: CI would read a truncated one).
    func finish() -> Int32 {
        sortReport()
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
