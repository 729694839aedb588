#if canImport(Glibc)
import Glibc
#endif
import ImageScaler

/// Schedules a batch: `workers` threads each take the next job and run it, decoding one
/// image at a time so memory stays bounded by the worker count. What became of each
/// input and its outputs goes to the `BatchReporter`; a failed input never stops the
/// others.
final class BatchRunner: Sendable {
    let jobs: [Job]
    let settings: JobSettings
    let workers: Int
    let ifNewer: Bool
    /// `--if-changed`'s manifests, loaded before the workers fork (nil without it).
    let manifest: BuildManifest?
    private let signature: String
    let reporter: BatchReporter


    /// CPU seconds one input may take in its worker for each output (nil: no bound).
    let cpuSeconds: Int?
    /// Whether inputs run in worker processes (`WorkerPool`); otherwise on threads here.
    let isolated: Bool
    /// The wall-clock time one input may take (`--timeout`).
    let wall: WallClockLimit

    init(jobs: [Job], settings: JobSettings, workers: Int, ifNewer: Bool, manifest: BuildManifest? = nil, reporter: BatchReporter,
         cpuSeconds: Int?, wall: WallClockLimit = .none, isolated: Bool = true) {
        self.jobs = jobs
        self.settings = settings
        self.workers = max(1, min(workers, jobs.count))
        self.ifNewer = ifNewer
        self.manifest = manifest
        // The settings' part of every key, made once.
        signature = manifest == nil ? "" : BuildManifest.signature(settings)
        self.reporter = reporter
        self.cpuSeconds = cpuSeconds
        self.isolated = isolated
        self.wall = wall
    }

    /// Runs every job; returns the exit status (`BatchReporter.finish`), or 128 plus the
    /// signal when interrupted (130 for SIGINT, 143 for SIGTERM).
    func run() -> Int32 {
        // Largest inputs first (by file size): with few workers, a big file picked up
        // last would leave the other cores idle at the end of the batch.
        // Each size read once: in the comparison it was a stat per step of the sort, 20,000
        // for 1,000 inputs, a quarter of an --if-changed rerun that skips them all.
        // --if-changed's inputs whose every output its stamps show current are reported
        // here: a rerun with nothing to make forks no worker and reads no file.
        var pending = Array(jobs.indices)
        if manifest != nil && !(isolated && jobs.count == 1) {
            pending = pending.filter { i in
                guard let outcome = skippedByStamps(jobs[i]) else { return true }
                reporter.record(outcome, position: i)
                return false
            }
        }
        var sizes = [Int](repeating: 0, count: jobs.count)
        for i in pending { sizes[i] = BatchRunner.fileSize(jobs[i].input) }
        let order = workers > 1 ? pending.sorted { sizes[$0] > sizes[$1] } : pending
        let forkable = isolated && WorkerPool.available
        let budget = settings.decode.maxMemory
        var limits = WorkerPool.Limits(budget: budget, images: 1, cpuSeconds: cpuSeconds)
        limits.outputsOfJob = { [jobs, order] n in jobs[order[n]].outputs.filter { $0.failure == nil }.count }
        limits.wall = wall
        limits.inputBytesOfJob = { [sizes, order] n in sizes[order[n]] }
        if reporter.verbose {
            let place = !isolated ? "threads of this process"
                : jobs.count == 1 ? "this process, isolated as a worker would be (a decoder crash fails only it)"
                : forkable ? "\(workers) worker process\(workers == 1 ? "" : "es")"
                : "threads of this process (it has threads already, so it cannot fork workers)"
            Console.err("imgscale: \(jobs.count) input\(jobs.count == 1 ? "" : "s") on \(place)")
        }
        if isolated && jobs.count == 1 {
            let job = jobs[0]
            Interruption.installInProcess(line: "imgscale: \(FileName.display(job.input)): interrupted; nothing written\n",
                                          report: BatchReporter.lines(failed(job, "interrupted; nothing written")), reportFD: reporter.report)
            let outcome = CrashGuard.run(limits: limits, reportFD: reporter.report, display: FileName.display(job.input),
                                         outcome: { self.failed(job, $0) }) { runIsolated(job) }
            reporter.record(outcome, position: 0)
            Interruption.jobHandedOn()
            return reporter.finish()
        }
        if forkable {
            let pool = WorkerPool(limits: limits)
            let finished = pool.runAll(count: order.count, width: workers, run: { i in runIsolated(jobs[order[i]]) },
                                       record: { i, outcome in reporter.record(outcome, position: order[i]) },
                                       crashed: { i, why in failed(jobs[order[i]], why) })
            guard finished else {
                // Every outcome received is in the report, in order where it can be: a
                // file written is a file named.
                reporter.flushWaiting()
                reporter.clearProgress()
                Console.err("imgscale: interrupted (\(WorkerPool.signalName(pool.stoppedBy))) after \(reporter.inputsDone) of \(jobs.count) inputs; the report names every file written")
                return 128 + pool.stoppedBy
            }
            return reporter.finish()
        }
        InProcessPool.run(count: order.count, width: workers) { index in
            reporter.record(runOne(jobs[order[index]]), position: order[index])
        }
        return reporter.finish()
    }

    /// Renders the outputs that need it; an output failed while naming it, or up to
    /// date with `--if-newer`, is reported as it is.
    private func runOne(_ job: Job) -> BatchReporter.InputOutcome {
        let t0 = Console.now()
        func ms() -> Int { Int(((Console.now() - t0) * 1000).rounded()) }
        var outcomes = job.outputs.map { BatchReporter.Outcome(output: $0.path, status: .failed, error: $0.failure, note: $0.note) }
        var wanted: [Int] = []
        // --if-changed reads and hashes the input first: its outputs are current when the
        // manifest's key is this run's and their files are what was written.
        var data: [UInt8]? = nil, keys: [Int: String] = [:]
        let inputStamp = manifest == nil ? nil : BuildManifest.stamp(job.input)
        var inputSHA: String? = nil
        if let manifest, let inputStamp {
            // An input stamped as the manifest recorded it is the file that was hashed.
            let known = Set(job.outputs.filter { $0.failure == nil }.map { manifest.entry(for: $0.path)?.stamps })
            if known.count == 1, let stamps = known.first!, stamps.input == inputStamp { inputSHA = stamps.inputSHA }
            if inputSHA == nil, let bytes = try? ImageFile.readImage(job.input, limit: settings.decode.maxMemory) {
                data = bytes
                inputSHA = SHA256.hex(bytes)
            }
        }
        if let input = inputSHA {
            for (i, output) in job.outputs.enumerated() where output.failure == nil {
                keys[i] = BuildManifest.key(input: input, signature: signature + "\n" + BuildManifest.signature(output))
            }
        }
        for (i, output) in job.outputs.enumerated() where output.failure == nil {
            if let key = keys[i], let current = current(output.path, key: key) {
                outcomes[i] = skipped(output.path, key: key, current: current, input: inputStamp!, inputSHA: inputSHA!)
            } else if ifNewer, let (size, file) = upToDate(input: job.input, output: output.path) {
                outcomes[i] = .init(output: output.path, status: .skipped, size: size, file: file)
            } else {
                wanted.append(i)
            }
        }
        // An input whose header failed while its outputs were named fails once, in one line.
        if wanted.isEmpty, let first = job.outputs.first?.failure, job.outputs.allSatisfy({ $0.failure == first }),
           outcomes.allSatisfy({ $0.status == .failed }) {
            return .init(input: job.input, error: first, outputs: outcomes, milliseconds: ms())
        }
        do {
            for i in wanted { try makeParent(of: job.outputs[i].path) }
            var jobSettings = settings
            if wall == .scaled {
                // The header tells what the job costs: its allowance rises to match, as
                // soon as the render has read it (no second read of the header).
                let outputs = wanted.map { RenderOutput(job.outputs[$0].operation, as: job.outputs[$0].format) }
                let encode = settings.encode, animated = settings.render.animated
                let floor = WallClockLimit.floorSeconds * max(1, Double(data?.count ?? BatchRunner.fileSize(job.input)) / Double(8 << 20))
                jobSettings.render.headerRead = { header in
                    JobDeadline.extend(to: WallClockLimit.slowdown * WorkEstimate.seconds(header: header, outputs: outputs, encode: encode, animated: animated, floor: floor))
                }
            }
            let (results, warnings, decodes) = try JobProcessor.run(job, outputs: wanted, jobSettings, data: data)
            for (i, result) in results {
                switch result {
                case .success(let (size, file)):
                    let path = job.outputs[i].path
                    let stamps = inputStamp.flatMap { i in inputSHA.flatMap { s in BuildManifest.stamp(path).map { BuildManifest.Stamps(input: i, inputSHA: s, output: $0) } } }
                    outcomes[i] = .init(output: path, status: .ok, size: size, file: file, key: keys[i], stamps: stamps,
                                        note: job.outputs[i].note)
                case .failure(let error):
                    // An encoder library says only that it failed; where memory ran out, this says so.
                    outcomes[i].error = ErrorText.describe(error) + (error is EncodeError ? WorkerPool.memoryLimitReason().map { "; \($0)" } ?? "" : "")
                }
            }
            return .init(input: job.input, warnings: warnings, decodes: decodes, outputs: outcomes, milliseconds: ms())
        } catch {
            let reason = ErrorText.describe(error)
            for i in wanted { outcomes[i].error = reason }
            return .init(input: job.input, error: reason, outputs: outcomes, milliseconds: ms())
        }
    }

    /// An input whose outputs `--if-changed` skips on the stamps alone: the input stamped as
    /// the manifest recorded it, and each output the file it wrote. Nil where anything
    /// would need a read (`runOne` then hashes what it must) or an output failed naming.
    private func skippedByStamps(_ job: Job) -> BatchReporter.InputOutcome? {
        guard let manifest, !job.outputs.isEmpty, let inputStamp = BuildManifest.stamp(job.input) else { return nil }
        var outcomes: [BatchReporter.Outcome] = []
        for output in job.outputs {
            guard output.failure == nil, let entry = manifest.entry(for: output.path), entry.stamps.input == inputStamp else { return nil }
            let key = BuildManifest.key(input: entry.stamps.inputSHA, signature: signature + "\n" + BuildManifest.signature(output))
            guard let current = current(output.path, key: key), current.2 == entry.stamps.output else { return nil }
            outcomes.append(skipped(output.path, key: key, current: current, input: inputStamp, inputSHA: entry.stamps.inputSHA))
        }
        return .init(input: job.input, outputs: outcomes, milliseconds: 0)
    }

    private func skipped(_ output: String, key: String, current: (Size, BatchReporter.WrittenFile, String), input: String,
                         inputSHA: String) -> BatchReporter.Outcome {
        .init(output: output, status: .skipped, size: current.0, file: current.1, key: key,
              stamps: BuildManifest.Stamps(input: input, inputSHA: inputSHA, output: current.2))
    }

    /// `runOne` where a crash is survived.
    private func runIsolated(_ job: Job) -> BatchReporter.InputOutcome {
        CrashGuard.faultForTests(on: job.input)
        return runOne(job)
    }

    /// The outcome of an input whose worker died: every output it had not already
    /// failed fails with `why`.
    private func failed(_ job: Job, _ why: String) -> BatchReporter.InputOutcome {
        let outputs = job.outputs.map { BatchReporter.Outcome(output: $0.path, status: .failed, error: $0.failure ?? why) }
        return .init(input: job.input, error: why, outputs: outputs, milliseconds: 0)
    }

    private static func fileSize(_ path: String) -> Int {
        var st = stat()
        return FileName.withCString(path, { stat($0, &st) }) == 0 ? Int(st.st_size) : 0
    }

    /// Like make: an output at least as new as its input needs no rebuild. Its size,
    /// from its header, goes in the report; an output that cannot be read is rebuilt.
    /// Only a regular file can be up to date: a FIFO, device or pipe output is never
    /// read (that would block), always written.
    private func upToDate(input: String, output: String) -> (Size, BatchReporter.WrittenFile?)? {
        var i = stat(), o = stat()
        guard output != "-", FileName.withCString(input, { stat($0, &i) }) == 0,
              FileName.withCString(output, { stat($0, &o) }) == 0, (o.st_mode & S_IFMT) == S_IFREG,
              (o.st_mtim.tv_sec, o.st_mtim.tv_nsec) >= (i.st_mtim.tv_sec, i.st_mtim.tv_nsec) else { return nil }
        return existing(output)
    }

    /// A regular file on disk as an output: its size from its header, and its file facts.
    private func existing(_ output: String) -> (Size, BatchReporter.WrittenFile?)? {
        var o = stat()
        guard output != "-", FileName.withCString(output, { stat($0, &o) }) == 0, (o.st_mode & S_IFMT) == S_IFREG,
              let data = try? ImageFile.readImage(output, limit: settings.decode.maxMemory),
              let info = try? ImageCodec.info(data) else { return nil }
        guard settings.fileFacts else { return (info.size, nil) }
        // A file made by hand or by another tool has no manifest line to hold them.
        let placeholders = settings.placeholders.isEmpty ? Placeholders()
            : try? Placeholders(settings.placeholders, ofFile: data, decode: settings.decode, blurhash: settings.blurhashComponents)
        guard let placeholders else { return nil }
        return (info.size, BatchReporter.WrittenFile(data, placeholders: placeholders))
    }

    /// The output, and its stamp, when the manifest says `key` made it and the file is
    /// still that one: by its stamp, or else by its bytes' digest.
    private func current(_ output: String, key: String) -> (Size, BatchReporter.WrittenFile, String)? {
        guard let entry = manifest?.entry(for: output), entry.key == key, let stamp = BuildManifest.stamp(output) else { return nil }
        // Placeholders the entry lacks: the output is made again (the same bytes), with them.
        guard let placeholders = entry.placeholders.selecting(settings.placeholders, blurhash: settings.blurhashComponents) else { return nil }
        // The stamp is ino-length-mtime-ctime: its second field is the file's length.
        if stamp == entry.stamps.output, let format = ImageFormat.fromExtension(of: output)?.rawValue,
           let length = Int(stamp.split(separator: "-")[1]) {
            return (entry.size, BatchReporter.WrittenFile(bytes: length, format: format, sha256: entry.sha256, placeholders: placeholders), stamp)
        }
        guard let data = try? ImageFile.read(output, limit: settings.decode.maxMemory) else { return nil }
        let file = BatchReporter.WrittenFile(data, placeholders: placeholders)
        return file.sha256 == entry.sha256 ? (entry.size, file, stamp) : nil
    }

    private func makeParent(of path: String) throws {
        guard path != "-", let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
        try ImageFile.makeDirectory(String(path[..<slash]))
    }
}
