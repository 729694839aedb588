#if canImport(Glibc)
import Glibc
#endif
import ImageScaler

/// `imgscale merge-reports REPORT...`: the `--report` files of a sharded run added up,
/// one verdict per output: how many were ok, skipped and failed, each failure with its
/// input, error and report, each output more than one report made (the shards were given
/// different lists), and how many a retry made. Where one report holds several attempts
/// of its shard (`ReportAttempt`), an output's last attempt is its word. `--merged PATH`
/// writes those lines, one per output, in input order, as one run over the whole list
/// would have. Each line is read alone: a shard killed mid-line costs that line, counted
/// as damaged, even when it was cut inside a UTF-8 sequence.
///
/// The reports are streamed, never held: each is read once to find its stretches in
/// input order (a shard's report is one, a retried shard's one per attempt), then all
/// stretches are merged by input through small buffers, so a million lines merge in
/// seconds and a few MiB. A report with more than `maxStretches` stretches (written from
/// a list in no order) is sorted in memory instead.
enum MergeReportsCommand {
    /// One report file may hold a line for each of millions of outputs; past this it is
    /// not a report.
    static let fileLimit = 1 << 30
    static let maxStretches = 256

    /// One line of a group: which report and stretch it came from, and its text.
    private struct Entry {
        let report: Int
        let stretch: Int
        let line: ReportLine
        let text: ArraySlice<UInt8>
    }

    /// Where lines come from in the merge: a stretch read through a cursor, or a
    /// report's lines sorted in memory.
    private final class Source {
        let report: Int
        let stretch: Int
        var cursor: ReportCursor?
        var held: [(ReportLine, ArraySlice<UInt8>)] = []
        var nextHeld = 0
        var head: (ReportLine, ArraySlice<UInt8>)? = nil

        init(report: Int, stretch: Int, cursor: ReportCursor?, held: [(ReportLine, ArraySlice<UInt8>)] = []) {
            self.report = report
            self.stretch = stretch
            self.cursor = cursor
            self.held = held
        }

        /// Moves to the next line that is a report line (damage was counted in the first pass).
        func advance() {
            head = nil
            if cursor == nil {
                if nextHeld < held.count { head = held[nextHeld]; nextHeld += 1 }
                return
            }
            while let (text, _) = cursor!.next() {
                guard !MergeReportsCommand.isBlank(text), let line = try? ReportLine.scan(text) else { continue }
                head = (line, text)
                return
            }
        }
    }

    static func run(_ args: ParsedArguments) throws -> Int32 {
        let reports = args.positionals
        guard !reports.isEmpty else { throw UsageError(message: "no report files (give the --report files of each shard)") }
        let mergedPath = args.value("merged")
        if let mergedPath, mergedPath != "-" {
            // A link, FIFO or device where the merged file goes is neither followed nor replaced.
            var st = stat()
            if FileName.withCString(mergedPath, { lstat($0, &st) }) == 0, (st.st_mode & S_IFMT) != S_IFREG {
                throw UsageError(message: "--merged '\(FileName.display(mergedPath))' is \(ImageFile.kind(st.st_mode)), not a regular file; name a file")
            }
            for report in reports where PathIdentity(path: report).fileID != nil && PathIdentity(path: report).fileID == PathIdentity(path: mergedPath).fileID {
                throw UsageError(message: "--merged '\(FileName.display(mergedPath))' is the report '\(FileName.display(report))'; write it elsewhere")
            }
        }
        var unreadable = false, damaged = 0
        var fds: [Int32] = []
        defer { for fd in fds where fd >= 0 { close(fd) } }
        var sources: [Source] = []
        for (r, path) in reports.enumerated() {
            // O_NONBLOCK: a FIFO named as a report is refused, not waited on.
            let fd = FileName.withCString(path) { open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
            var st = stat()
            fds.append(fd)
            guard fd >= 0, fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG || (st.st_mode & S_IFMT) == S_IFDIR else {
                Console.err("imgscale merge-reports: \(FileName.display(path)): cannot be read: "
                            + (fd >= 0 ? "is \(ImageFile.kind(st.st_mode)), not a report file" : String(cString: strerror(errno))))
                unreadable = true
                continue
            }
            guard (st.st_mode & S_IFMT) == S_IFREG, st.st_size <= fileLimit else {
                Console.err("imgscale merge-reports: \(FileName.display(path)): cannot be read: " + ((st.st_mode & S_IFMT) == S_IFDIR ? "is a directory" : "larger than \(fileLimit >> 20) MiB"))
                unreadable = true
                continue
            }
            // The first pass: damage, and where the input order starts again.
            var cursor = ReportCursor(fd: fd, start: 0, end: Int(st.st_size))
            var starts: [Int] = [], previous: [UInt8]? = nil, n = 0
            while let (text, at) = cursor.next() {
                n += 1
                guard !isBlank(text) else { continue }
                do {
                    let line = try ReportLine.scan(text)
                    if previous.map({ line.input.lexicographicallyPrecedes($0) }) ?? true { starts.append(at) }
                    previous = line.input
                } catch {
                    Console.err("imgscale merge-reports: \(FileName.display(path)):\(n): damaged line (\(error.reason)); a shard killed while writing?")
                    damaged += 1
                }
            }
            if cursor.failed {
                Console.err("imgscale merge-reports: \(FileName.display(path)): cannot be read: \(String(cString: strerror(EIO)))")
                unreadable = true
            }
            if starts.count > maxStretches {
                // Written in no order: its lines are sorted here instead.
                var all = ReportCursor(fd: fd, start: 0, end: Int(st.st_size))
                var held: [(ReportLine, ArraySlice<UInt8>)] = []
                while let (text, _) = all.next() {
                    if !isBlank(text), let line = try? ReportLine.scan(text) { held.append((line, ArraySlice(Array(text)))) }
                }
                let order = held.indices.sorted { held[$0].0.input != held[$1].0.input ? held[$0].0.input.lexicographicallyPrecedes(held[$1].0.input) : $0 < $1 }
                sources.append(Source(report: r, stretch: 0, cursor: nil, held: order.map { held[$0] }))
                continue
            }
            for (s, start) in starts.enumerated() {
                let end = s + 1 < starts.count ? starts[s + 1] : Int(st.st_size)
                sources.append(Source(report: r, stretch: s, cursor: ReportCursor(fd: fd, start: start, end: end, chunk: sources.count > 64 ? 1 << 14 : 1 << 16)))
            }
        }

        var writer: MergedWriter? = nil
        if let mergedPath { writer = try MergedWriter(mergedPath) }
        var counts = (outputs: 0, ok: 0, skipped: 0, failed: 0, retried: 0)
        var failures: [(input: String, output: String, error: String, report: String)] = []
        var twice: [(input: String, output: String)] = []
        // The sources by their next line's input, then report and stretch: the merge's order.
        var heap = BinaryHeap<Source> { a, b in
            let x = a.head!.0.input, y = b.head!.0.input
            return x != y ? x.lexicographicallyPrecedes(y) : (a.report, a.stretch) < (b.report, b.stretch)
        }
        for source in sources {
            source.advance()
            if source.head != nil { heap.push(source) }
        }
        while let first = heap.first?.head?.0.input {
            // Every line of this input, from every stretch, in report and stretch order.
            var group: [Entry] = []
            while heap.first?.head?.0.input == first {
                let source = heap.pop()
                while let (line, text) = source.head, line.input == first {
                    group.append(Entry(report: source.report, stretch: source.stretch, line: line, text: text))
                    source.advance()
                }
                if source.head != nil { heap.push(source) }
            }
            if group.count > 1 { group.sort { ($0.report, $0.stretch) < ($1.report, $1.stretch) } }
            // Per output, in the order first seen: the first report's last attempt.
            var outputs: [(output: [UInt8], entries: [Entry])] = []
            for e in group {
                if let i = outputs.firstIndex(where: { $0.output == e.line.output }) { outputs[i].entries.append(e) } else { outputs.append((e.line.output, [e])) }
            }
            for (output, entries) in outputs {
                let firstReport = entries[0].report
                let mine = entries.filter { $0.report == firstReport }
                // A retry that found an earlier attempt's output current only confirms it.
                var winner = mine.max { $0.line.attempt <= $1.line.attempt }!
                if winner.line.status == "skipped", let made = mine.last(where: { $0.line.status == "ok" }) { winner = made }
                counts.outputs += 1
                switch winner.line.status {
                case "ok": counts.ok += 1
                case "skipped": counts.skipped += 1
                case "failed":
                    counts.failed += 1
                    failures.append((winner.line.inputJSON, winner.line.outputJSON, winner.line.errorJSON, reports[winner.report]))
                default: break
                }
                if winner.line.attempt > 1 { counts.retried += 1 }
                if entries.contains(where: { $0.report != firstReport }) {
                    twice.append((FileName.display(FileName.decode(first)), FileName.display(FileName.decode(output))))
                }
                try writer?.append(winner.text)
            }
        }
        try writer?.finish()

        if args.has("json") {
            var j = JSON()
            j.add("reports", reports.count)
            j.add("outputs", counts.outputs)
            j.add("ok", counts.ok)
            j.add("skipped", counts.skipped)
            j.add("failed", counts.failed)
            j.add("retried", counts.retried)
            j.add("unreadable_lines", damaged)
            j.add("done_twice", twice.count)
            j.add("failures", raw: "[" + failures.map { f in
                var o = JSON()
                o.add("input", raw: f.input)
                o.add("output", raw: f.output)
                o.add("error", raw: f.error)
                o.add(path: "report", f.report)
                return o.text
            }.joined(separator: ",") + "]")
            Console.out(j.text)
        } else {
            Console.out("\(counts.outputs) outputs in \(reports.count) reports: \(counts.ok) ok, \(counts.skipped) skipped, \(counts.failed) failed"
                + (counts.retried == 0 ? "" : ", \(counts.retried) made by a retry")
                + (twice.isEmpty ? "" : ", \(twice.count) done by more than one shard")
                + (damaged == 0 ? "" : ", \(damaged) damaged lines"))
            for f in failures {
                Console.out("failed: \(text(f.input)): \(text(f.error))  (\(FileName.display(f.report)))")
            }
            for t in twice { Console.out("twice: \(t.input) -> \(t.output)") }
        }
        return failures.isEmpty && twice.isEmpty && damaged == 0 && !unreadable ? 0 : 1
    }

    static func isBlank(_ line: ArraySlice<UInt8>) -> Bool {
        !line.contains { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }
    }

    /// A JSON string's text as a message shows it; "?" for anything else.
    private static func text(_ json: String) -> String {
        if case .string(let s)? = try? JSONValue.parse(Array(json.utf8)) { return s }
        return "?"
    }
}
