#if canImport(Glibc)
import Glibc
#endif
import ImageCompare
import ImageScaler

/// `imgscale compare`: two images, or two directories of them compared by relative
/// path. The rule and the verdict are the library's (`ImageComparison`,
/// `ImageDifference`, `CompareLimits`); this turns them into lines, JSON, diff images,
/// a JUnit file and updated goldens. Exit status: 0 every pair matches, 1 something
/// differs or is missing or extra, 2 an image cannot be read (or a usage error).
struct CompareCommand {
    let args: ParsedArguments
    var comparison: ImageComparison
    var limits: CompareLimits
    let decode: DecodeOptions
    let autoOrient: Bool
    let style: DiffImage.Style
    let json: Bool
    /// Paths found in a walk or named by a server's client, not typed by the user: read
    /// and written only as regular files, never through a link.
    var strictPaths = false
    /// `--goldens-template`: each golden read through it.
    var template: GoldenTemplate? = nil

    /// What became of one pair.
    struct Outcome: Sendable {
        enum Status: String, Sendable { case match, differ, missing, extra, error, skipped, pruned, unchanged }
        let name: String
        let expected: String
        let actual: String
        var status: Status
        var line: String
        var json: String
        var milliseconds = 0
        /// The report's copies (expected, actual, diff), relative to the --html directory.
        var assets: [String] = []
        /// What a decoder library printed on stderr while this pair was read.
        var printed: String? = nil
        /// The diff image written for it, if any.
        var diff: String? = nil
        /// A match that used more of its allowance than --keep-near-miss.
        var nearMiss = false
    }

    static func run(_ args: ParsedArguments) throws -> Int32 {
        guard args.positionals.count == 2 || args.has("server") else {
            throw UsageError(message: "compare needs exactly two images (or two directories), EXPECTED and ACTUAL; got \(args.positionals.count)")
        }
        var rule = ImageComparison.Rule.tolerance(args.int("tolerance") ?? 0)
        if let t = args.number("threshold") {
            guard t <= 1 else { throw UsageError(message: "--threshold must be from 0 to 1, not \(t)") }
            if args.has("tolerance") { throw UsageError(message: "--threshold and --tolerance are two rules; give one") }
            rule = .perceptual(threshold: t, countAntialiased: args.value("antialiasing") == "count")
        } else if args.has("antialiasing") {
            throw UsageError(message: "--antialiasing applies to --threshold's perceptual rule; give --threshold too")
        }
        if let e = args.number("max-delta-e") {
            guard e >= 0 && e.isFinite else { throw UsageError(message: "--max-delta-e must be 0 or more, not '\(args.value("max-delta-e") ?? "")'") }
            if args.has("tolerance") || args.has("threshold") {
                throw UsageError(message: "--max-delta-e, --threshold and --tolerance are three rules; give one")
            }
            rule = .deltaE(e)
        }
        var limits = CompareLimits(minPSNR: args.number("min-psnr"), minSSIM: args.number("min-ssim"))
        if let m = limits.minSSIM, !(m > 0 && m <= 1) {
            throw UsageError(message: "--min-ssim must be above 0 and at most 1, not '\(args.value("min-ssim") ?? "")'")
        }
        if let text = args.value("max-pixels-differ") {
            let percent = text.hasSuffix("%")
            let number = percent ? String(text.dropLast()) : text
            // A count is digits up to 2^48, the pixels of the largest sides (2^24) any image has;
            // a percentage at most 100.
            let count = percent ? nil : number.allSatisfy(\.isASCII) && number.allSatisfy(\.isNumber) && number.count <= 15
                ? Int(number).flatMap { $0 <= 1 << 48 ? $0 : nil } : nil
            guard let v = Double(number), v >= 0, v.isFinite, percent ? v <= 100 : count != nil else {
                throw UsageError(message: "--max-pixels-differ must be a count of pixels up to 2^48 or a percentage up to 100% like 0.1%, not '\(text)'")
            }
            limits.allowed = percent ? .percent(v) : .pixels(count ?? 0)
        }
        var decode = DecodeOptions()
        decode.maxMemory = Commands.maxMemory(args)
        var comparison = ImageComparison(rule: rule, ignore: args.rects("ignore"))
        if let maskPath = args.value("mask") {
            do {
                comparison.mask = try ImageCodec.decode(try ImageFile.readImage(maskPath, limit: decode.maxMemory, regularOnly: true), options: decode).0
            } catch {
                throw UsageError(message: "--mask \(FileName.display(maskPath)): \(ErrorText.describe(error))")
            }
        }
        var command = CompareCommand(args: args, comparison: comparison, limits: limits, decode: decode,
                                     autoOrient: !args.has("no-auto-orient"),
                                     style: args.choice("diff-style", as: DiffImage.Style.self) ?? .overlay, json: args.has("json"))
        command.template = try GoldenTemplate.parse(args)
        if args.has("server") {
            guard args.positionals.isEmpty else { throw UsageError(message: "--server reads its pairs from stdin, one JSON request a line; give no paths") }
            for option in ["diff", "junit", "html", "update", "keep-near-miss", "cache"] where args.has(option) {
                throw UsageError(message: "--\(option) does not apply to --server: a request may name its own \"diff\"")
            }
            let cores = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
            command.strictPaths = true
            return CompareServer(command: command, width: max(1, args.int("jobs") ?? cores)).run()
        }
        let (expected, actual) = (args.positionals[0], args.positionals[1])
        var dirs = (isDirectory(expected), isDirectory(actual))
        // A golden suite's first recording makes its directory, as a pair's golden file's
        // folders are made: nothing there yet is what "missing" means.
        var st = stat()
        if dirs.1, !dirs.0, ["missing", "all"].contains(args.value("update") ?? ""), lstat(expected, &st) != 0, errno == ENOENT {
            do { try ImageFile.makeDirectory(expected) } catch {
                throw UsageError(message: "compare: cannot make the goldens directory '\(FileName.display(expected))': \(ErrorText.describe(error))")
            }
            dirs.0 = true
        }
        if args.has("cache") && !(dirs.0 && dirs.1) {
            throw UsageError(message: "--cache records the pairs of two directories that passed; give two directories")
        }
        for option in ["diff", "junit", "html", "cache"] {
            if let path = args.value(option) {
                try BatchPlanner.checkSideOutput(path, option: option, inputs: [expected, actual], outputs: [])
                try CompareCommand.checkOutside(path, option: option, of: [expected, actual], directories: dirs.0 && dirs.1)
            }
        }
        if let f = args.number("keep-near-miss") {
            guard f >= 0 && f < 1 else { throw UsageError(message: "--keep-near-miss must be a fraction from 0 to below 1, not '\(args.value("keep-near-miss") ?? "")'") }
            guard args.has("diff") else { throw UsageError(message: "--keep-near-miss writes diffs; give --diff PATH (or DIR) too") }
        }
        if args.value("update") == "prune" && !(dirs.0 && dirs.1) {
            throw UsageError(message: "--update prune removes goldens that have no actual image; it takes two directories")
        }
        switch dirs {
        case (true, true):
            command.strictPaths = true
            return try command.runDirectories(expected, actual)
        case (false, false): return command.runPair(expected, actual)
        default: throw UsageError(message: "compare takes two files or two directories, not one of each")
        }
    }

    /// A side output inside a compared directory would be compared (or reported as
    /// extra) on the next run, and one that is a compared file would overwrite it.
    static func checkOutside(_ path: String, option: String, of compared: [String], directories: Bool) throws {
        guard path != "-" else { return }
        let side = PathIdentity(path: path).canonical
        for c in compared {
            if directories {
                let dir = PathIdentity.canonicalDirectory(c)
                if side == dir || side.hasPrefix(dir == "/" ? "/" : dir + "/") {
                    throw UsageError(message: "--\(option) '\(FileName.display(path))' lies inside the compared directory '\(FileName.display(c))'; write it elsewhere")
                }
            } else if side == PathIdentity(path: c).canonical {
                throw UsageError(message: "--\(option) '\(FileName.display(path))' is the compared file '\(FileName.display(c))'; write it elsewhere")
            }
        }
    }

    /// One pair: a line (or JSON), the diff when they differ, an update when asked. A
    /// golden not there yet is "extra", as in directory mode: exit 1, or recorded by
    /// `--update missing`.
    private func runPair(_ given: String, _ actual: String) -> Int32 {
        let name = ImageFile.split(actual).name
        let (expected, kind) = template?.resolve(pair: given) ?? (given, "")
        var outcome: Outcome
        var st = stat()
        if FileName.withCString(expected, { lstat($0, &st) }) != 0 && errno == ENOENT,
           FileName.withCString(actual, { stat($0, &st) }) == 0 {
            outcome = Outcome(name: name, expected: expected, actual: actual, status: .extra,
                              line: "extra: \(FileName.display(actual)) (no golden at \(FileName.display(expected)))",
                              json: listingJSON(name, expected, actual, "extra"))
        } else {
            // Guarded in this process, as a single fill is: a decoder library that crashes
            // on either file gives the pair's one line and exit 2 (unreadable), not a signal.
            let limits = WorkerPool.Limits(budget: decode.maxMemory, images: 2, cpuSeconds: nil)
            let diff = args.value("diff")
            outcome = CrashGuard.run(limits: limits, reportFD: nil, display: FileName.display(actual),
                                     outcome: { BatchReporter.InputOutcome(input: actual, error: $0, outputs: [], milliseconds: 0) },
                                     exitStatus: 2) {
                CrashGuard.faultForTests(on: name)
                return compare(name: name, expected: expected, actual: actual, diff: diff)
            }
        }
        if let mode = args.value("update"), shouldUpdate(outcome.status, mode: mode) {
            outcome = update(outcome, within: nil)
        }
        if let template { outcome.json = template.annotate(outcome.json, kind: kind) }
        if outcome.status == .error {
            if json { Console.out(outcome.json) } else { Console.err("imgscale: " + outcome.line) }
        } else {
            Console.out(json ? outcome.json : outcome.line)
        }
        writeJUnit([outcome])
        writeHTML([outcome])
        switch outcome.status {
        case .match, .skipped, .pruned, .unchanged: return 0
        case .error: return 2
        default: return 1
        }
    }

    /// Every image under both directories, by relative path, `-j` at a time: each
    /// failure gets a line (every pair with --json), then a summary.
    private func runDirectories(_ expectedDir: String, _ actualDir: String) throws -> Int32 {
        let rules: GoldenRules?
        do {
            rules = try GoldenRules.load(directory: expectedDir)
        } catch {
            // One line, exit 2, nothing compared: a suite must not run under limits nobody wrote.
            Console.err("imgscale: \(error)")
            return 2
        }
        // The masks the rules name live beside the goldens but are none themselves.
        let masks = Set(rules?.rules.compactMap(\.mask) ?? [])
        let (goldenFiles, goldenLinks) = CompareCommand.images(under: expectedDir)
        let (actualFiles, actualLinks) = CompareCommand.images(under: actualDir)
        // A link is one failed entry, never silently dropped: the goldens behind it go
        // unchecked, and the suite should say so.
        let linkOutcomes = (goldenLinks.map { (expectedDir, $0) } + actualLinks.map { (actualDir, $0) }).map { dir, link in
            let path = join(dir, link)
            let why = "\(FileName.display(path)): a symbolic link; compare neither follows nor changes links inside a directory"
            var j = JSON()
            j.add(path: "path", path)
            j.add("result", "error")
            j.add("error", why)
            return Outcome(name: link, expected: path, actual: path, status: .error, line: why, json: j.text)
        }
        let expected = Set(goldenFiles).subtracting(masks)
        let actual = Set(actualFiles).subtracting(masks)
        // Through a template, each actual image has its golden found for it; the goldens
        // of every platform lie under the directory, so none is "missing" for lacking one.
        let names = template == nil ? expected.union(actual).sorted() : actual.sorted()
        let diffDir = args.value("diff")
        let applying = names.map { rules?.matching($0) ?? [] }
        if let rules {
            // A rule for no image is a typo or a stale rule: either way nobody's limits.
            let used = Set(applying.flatMap { $0.map(\.index) })
            if let r = rules.rules.first(where: { !used.contains($0.index) }) {
                Console.err("imgscale: \(FileName.display(rules.path)):\(r.line): rule \(r.index) (match \"\(r.pattern)\") matches no image")
                return 2
            }
        }
        let cores = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        let workers = max(1, min(args.int("jobs") ?? cores, max(names.count, 1)))
        @Sendable func outcome(_ i: Int) -> Outcome {
            let name = names[i]
            var e = join(expectedDir, name)
            let a = join(actualDir, name)
            if let template {
                let (golden, kind) = template.resolve(dir: expectedDir, path: name)
                e = golden
                var o: Outcome
                if kind == "missing" {
                    o = Outcome(name: name, expected: e, actual: a, status: .extra, line: "extra: \(FileName.display(name)) (no golden at \(FileName.display(e)))",
                                json: listingJSON(name, e, a, "extra"))
                    o.assets = reportCopy(of: a, name: name, as: "actual")
                } else {
                    o = compared(i, e, a)
                }
                o.json = template.annotate(o.json, kind: kind)
                return o
            }
            if !actual.contains(name) {
                var o = Outcome(name: name, expected: e, actual: a, status: .missing, line: "missing: \(FileName.display(name)) (not in \(FileName.display(actualDir)))",
                                json: listingJSON(name, e, a, "missing"))
                o.assets = reportCopy(of: e, name: name, as: "expected")
                return o
            } else if !expected.contains(name) {
                var o = Outcome(name: name, expected: e, actual: a, status: .extra, line: "extra: \(FileName.display(name)) (no golden in \(FileName.display(expectedDir)))",
                                json: listingJSON(name, e, a, "extra"))
                o.assets = reportCopy(of: a, name: name, as: "actual")
                return o
            }
            return compared(i, e, a)
        }
        /// A pair both of whose images are there, under the rules that apply to it.
        @Sendable func compared(_ i: Int, _ e: String, _ a: String) -> Outcome {
            let name = names[i]
            CrashGuard.faultForTests(on: name)
            var command = self
            if !applying[i].isEmpty {
                let skip = applying[i].compactMap(\.skip).last ?? false
                let numbers = applying[i].map { String($0.index) }.joined(separator: ", ")
                if skip {
                    var j = pairJSON(name, e, a)
                    j.add("result", "skipped")
                    j.add("rules", raw: "[" + numbers + "]")
                    let why = applying[i].compactMap(\.reason).last.map { ": " + $0 } ?? ""
                    return Outcome(name: name, expected: e, actual: a, status: .skipped,
                                   line: "\(FileName.display(name)): skipped by rule \(numbers) of \(GoldenRules.fileName)\(why)", json: j.text)
                }
                do {
                    try command.apply(applying[i], goldens: expectedDir)
                } catch {
                    var j = pairJSON(name, e, a)
                    j.add("result", "error")
                    j.add("error", ErrorText.describe(error))
                    return Outcome(name: name, expected: e, actual: a, status: .error, line: "\(FileName.display(name)): \(ErrorText.describe(error))", json: j.text)
                }
            }
            var o = command.compare(name: name, expected: e, actual: a, diff: diffDir.map { join($0, name) + ".diff." + ImageFormat.lossless.fileExtension },
                                    rules: applying[i])
            if o.status != .error { o.line = FileName.display(name) + ": " + o.line }
            return o
        }
        var results = [Outcome?](repeating: nil, count: names.count)
        // --cache: pairs whose images and judging are those of a pass recorded are not read.
        let cachePath = args.value("cache")
        var cache = CompareCache(), writable = true
        if let cachePath {
            let (loaded, warning, canWrite) = CompareCache.load(cachePath)
            if let warning { Console.err("imgscale: warning: \(warning)") }
            cache = loaded
            writable = canWrite
        }
        let signature = cacheSignature()
        var kept: [String: CompareCache.Entry] = [:]
        @Sendable func golden(_ i: Int) -> String? {
            let name = names[i]
            if let template {
                let (path, kind) = template.resolve(dir: expectedDir, path: name)
                return kind == "missing" ? nil : path
            }
            return expected.contains(name) && actual.contains(name) ? join(expectedDir, name) : nil
        }
        func key(_ i: Int, _ golden: String) -> String {
            SHA256.hex(Array((signature + "\n" + golden + "\n" + String(describing: applying[i])).utf8))
        }
        if cachePath != nil {
            for i in names.indices {
                guard let e = golden(i) else { continue }
                let a = join(actualDir, names[i])
                if let entry = cache.unchanged(names[i], key: key(i, e), expected: e, actual: a) {
                    kept[names[i]] = entry
                    var j = pairJSON(names[i], e, a)
                    j.add("result", "unchanged")
                    results[i] = Outcome(name: names[i], expected: e, actual: a, status: .unchanged, line: "\(FileName.display(names[i])): unchanged", json: j.text)
                }
            }
        }
        let todo = names.indices.filter { results[$0] == nil }
        if WorkerPool.available {
            // Pairs are decoded in forked workers, so a decoder library that crashes on one
            // file costs that pair (an error, as for an unreadable file), not the run.
            let budget = decode.maxMemory
            let pool = WorkerPool(limits: .init(budget: budget, images: 2, cpuSeconds: nil))
            let finished = pool.runAll(count: todo.count, width: min(workers, max(todo.count, 1)), run: { outcome(todo[$0]) }, record: { results[todo[$0]] = $1 },
                                       crashed: { k, why in let i = todo[k]; return crashedPair(names[i], join(expectedDir, names[i]), join(actualDir, names[i]), why) })
            if !finished {
                Console.err("imgscale: interrupted (\(WorkerPool.signalName(pool.stoppedBy))) after \(results.filter { $0 != nil }.count) of \(names.count) pairs")
                return 128 + pool.stoppedBy
            }
        } else {
            let shared = Locked(results)
            InProcessPool.run(count: todo.count, width: workers) { k in
                let o = outcome(todo[k])
                shared.withLock { $0[todo[k]] = o }
            }
            results = shared.withLock { $0 }
        }
        if let cachePath, writable {
            for i in todo where results[i]?.status == .match {
                guard let e = golden(i), let entry = CompareCache.entry(key: key(i, e), expected: e, actual: join(actualDir, names[i])) else { continue }
                kept[names[i]] = entry
            }
            do { try CompareCache.write(kept, to: cachePath) } catch {
                Console.err("imgscale: warning: --cache \(FileName.display(cachePath)): \(ErrorText.describe(error)); the next run compares every pair")
            }
        }
        var outcomes = results.map { $0! } + linkOutcomes
        for o in outcomes {
            if let printed = o.printed { Console.err("imgscale: \(FileName.display(o.name)): warning: the decoder printed: \(printed)") }
        }
        if args.value("update") == "prune" {
            outcomes = outcomes.map { $0.status == .missing ? prune($0, within: expectedDir) : $0 }
        } else if let mode = args.value("update") {
            outcomes = outcomes.map { shouldUpdate($0.status, mode: mode) ? update($0, within: actualDir, goldens: expectedDir) : $0 }
        }
        var counts: [Outcome.Status: Int] = [:]
        for o in outcomes {
            counts[o.status, default: 0] += 1
            if json {
                Console.out(o.json)
            } else if (o.status != .match && o.status != .unchanged) || o.nearMiss {
                if o.status == .error { Console.err("imgscale: " + o.line) } else { Console.out(o.line) }
            }
        }
        writeJUnit(outcomes)
        writeHTML(outcomes)
        let failed = outcomes.count - (counts[.match] ?? 0) - (counts[.skipped] ?? 0) - (counts[.pruned] ?? 0) - (counts[.unchanged] ?? 0)
        if !json {
            Console.err("imgscale: compared \(outcomes.count): \(counts[.match] ?? 0) match, \(counts[.differ] ?? 0) differ, "
                        + "\(counts[.missing] ?? 0) missing, \(counts[.extra] ?? 0) extra, \(counts[.error] ?? 0) unreadable"
                        + ((counts[.unchanged] ?? 0) > 0 ? ", \(counts[.unchanged]!) unchanged (--cache)" : "")
                        + ((counts[.skipped] ?? 0) > 0 ? ", \(counts[.skipped]!) skipped by rule" : "")
                        + ((counts[.pruned] ?? 0) > 0 ? ", \(counts[.pruned]!) pruned" : ""))
        }
        if (counts[.error] ?? 0) > 0 { return 2 }
        return failed > 0 ? 1 : 0
    }

    /// The pair whose worker died: an error, as an unreadable file is.
    private func crashedPair(_ name: String, _ expected: String, _ actual: String, _ why: String) -> Outcome {
        let reason = "\(FileName.display(name)): \(why)"
        var j = pairJSON(name, expected, actual)
        j.add("result", "error")
        j.add("error", reason)
        return Outcome(name: name, expected: expected, actual: actual, status: .error, line: reason, json: j.text)
    }

    /// Decodes and compares one pair; writes its diff (only when it differs).
    /// The rules matching a pair laid over the command line's limits, least specific
    /// first; a rule's mask is read from the goldens directory.
    mutating func apply(_ rules: [GoldenRules.Rule], goldens: String) throws {
        for r in rules {
            if let rule = r.rule { comparison.rule = rule }
            if let allowed = r.allowed { limits.allowed = allowed }
            if let m = r.minPSNR { limits.minPSNR = m }
            if let m = r.minSSIM { limits.minSSIM = m }
            if let ignore = r.ignore { comparison.ignore = ignore }
            if let mask = r.mask {
                let path = join(goldens, mask)
                if let (link, kind) = PathIdentity.linkOnTheWay(mask, under: goldens), kind != "missing" {
                    throw GoldenRules.Invalid(message: "the mask of rule \(r.index), \(FileName.display(path)): \(FileName.display(link)) is \(kind); a mask is a regular file inside the goldens, reached without links")
                }
                do {
                    comparison.mask = try ImageCodec.decode(try ImageFile.readImage(path, limit: decode.maxMemory, regularOnly: true), options: decode).0
                } catch {
                    throw GoldenRules.Invalid(message: "the mask of rule \(r.index), \(FileName.display(path)): \(ErrorText.describe(error))")
                }
            }
        }
    }

    func compare(name: String, expected: String, actual: String, diff: String?, rules: [GoldenRules.Rule] = []) -> Outcome {
        let t0 = Console.now()
        var images: [PixelBuffer] = []
        var files: [[UInt8]] = []
        for path in [expected, actual] {
            do {
                let data = try ImageFile.readImage(path, limit: decode.maxMemory, regularOnly: strictPaths)
                images.append(try ImageOperation.convert.perform(on: data, decode: decode, autoOrient: autoOrient).0)
                files.append(data)
            } catch {
                let reason = "\(FileName.display(path)): \(ErrorText.describe(error))"
                var j = pairJSON(name, expected, actual)
                j.add("result", "error")
                j.add("error", reason)
                return Outcome(name: name, expected: expected, actual: actual, status: .error, line: reason, json: j.text)
            }
        }
        if let mask = comparison.mask, mask.size != images[0].size || mask.size != images[1].size {
            // Ignoring it would compare pixels the user meant to leave out.
            let reason = "--mask \(FileName.display(args.value("mask") ?? "")) is \(mask.size), but the images are \(images[0].size) and \(images[1].size)"
            var j = pairJSON(name, expected, actual)
            j.add("result", "error")
            j.add("error", reason)
            return Outcome(name: name, expected: expected, actual: actual, status: .error, line: reason, json: j.text)
        }
        let html = args.value("html")
        // The verdict ImageScalerTesting gives too (`PairVerdict`): on one canvas when the
        // sizes differ, at 16 bits where both files have them, SSIM by --metric ssim or
        // a --min-ssim to reach, its memory held to the budget as the decodes are.
        let judged: PairVerdict
        do {
            judged = try PairVerdict(expected: images[0], actual: images[1], files: (files[0], files[1]), decode: decode,
                                      autoOrient: autoOrient, comparison: comparison, limits: limits,
                                      scoreSSIM: args.value("metric") == "ssim", keepClasses: diff != nil || html != nil)
        } catch {
            let reason = error is DecodeError ? "SSIM of \(images[0].size) " + ErrorText.describe(error) : "the images could not be compared"
            var j = pairJSON(name, expected, actual)
            j.add("result", "error")
            j.add("error", reason)
            return Outcome(name: name, expected: expected, actual: actual, status: .error, line: reason, json: j.text)
        }
        let (e, a, d, depth, ssim, matches, sameSize) = (judged.expected, judged.actual, judged.difference, judged.bitDepth,
                                                         judged.ssim, judged.matches, judged.sameSize)
        var j = pairJSON(name, expected, actual)
        j.add("result", matches ? "match" : "differ")
        if !sameSize { j.add("reason", "size") }
        j.add("expected_width", images[0].width)
        j.add("expected_height", images[0].height)
        j.add("actual_width", images[1].width)
        j.add("actual_height", images[1].height)
        j.add("differing_pixels", d.differingPixels)
        j.add("antialiased_pixels", d.antialiasedPixels)
        j.add("compared_pixels", d.comparedPixels)
        j.add("pixels", d.pixelCount)
        j.add("differing_ratio", raw: "\(d.differingRatio)")
        j.add("bounds", raw: d.bounds.map { "{\"x\":\($0.x),\"y\":\($0.y),\"width\":\($0.width),\"height\":\($0.height)}" } ?? "null")
        j.add("max_difference", d.maxDifference)
        j.add("mean", raw: "\(d.meanDifference)")
        j.add("psnr", raw: d.psnr.isInfinite ? "\"inf\"" : "\(d.psnr)")
        if let ssim {
            j.add("ssim", raw: "\(ssim.score)")
            // Where it got worse: the local SSIM map below 0.95.
            j.add("ssim_worse", raw: ssim.worse.map { r in
                "{\"x\":\(r.x),\"y\":\(r.y),\"width\":\(r.width),\"height\":\(r.height),\"mean\":\(ssim.worseMean ?? 0)}"
            } ?? "null")
        }
        // imgscale info --hash's pHash of each picture as compared (upright), and how many bits differ.
        let phash = args.value("metric") == "phash"
            ? PerceptualHash.distance(PerceptualHash.phash.hash(images[0]), PerceptualHash.phash.hash(images[1])) : nil
        if let phash { j.add("phash_distance", phash) }
        j.add("bit_depth", depth)
        j.add("limits", raw: limitsJSON())
        if let decisive = rules.last {
            j.add("rules", raw: "[" + rules.map { String($0.index) }.joined(separator: ",") + "]")
            // The most specific rule is applied last: its settings are the ones that held.
            var r = JSON()
            r.add("file", GoldenRules.fileName)
            r.add("line", decisive.line)
            r.add("rule", decisive.index)
            r.add("match", decisive.pattern)
            j.add("rule", raw: r.text)
        }
        var line: String
        if !sameSize {
            line = "differ: size \(images[0].size) vs \(images[1].size)"
        } else {
            let psnr = d.psnr.isInfinite ? "inf" : format(d.psnr, digits: 2)
            let (clause, decided) = verdict(d, ssim: ssim?.score)
            j.add("decided_by", raw: "[" + decided.joined(separator: ",") + "]")
            line = "\(matches ? "match" : "differ"): " + (clause ?? "\(d.differingPixels) pixels")
            if case .perceptual(_, let counted) = comparison.rule {
                line += ", \(d.antialiasedPixels) anti-aliased \(counted ? "counted" : "ignored")"
            }
            line += ", max difference \(d.maxDifference), mean \(format(d.meanDifference, digits: 3)), PSNR \(psnr) dB"
            if let ssim { line += ", SSIM \(format(ssim.score, digits: 4))" }
            if depth == 16 { line += " (16-bit)" }
        }
        if let phash { line += ", pHash distance \(phash)" }
        // A pass that used most of what it was allowed: its diff is kept, so creeping
        // drift shows before it fails.
        var nearMiss = false
        if matches, let keep = args.number("keep-near-miss") {
            let used = allowanceUsed(d, ssim: ssim?.score)
            if used > keep {
                nearMiss = true
                line += " (near miss: \(Int((used * 100).rounded(.down)))% of its allowance)"
                j.add("near_miss", raw: "\(used)")
            }
        }
        var outcome = Outcome(name: name, expected: expected, actual: actual, status: matches ? .match : .differ, line: line, json: "")
        outcome.nearMiss = nearMiss
        if !matches || nearMiss, let diff {
            do {
                try writeDiff(e, a, d, to: diff)
                j.add(path: "diff", diff)
                outcome.diff = diff
            } catch {
                outcome.status = .error
                outcome.line = "\(FileName.display(diff)): \(ErrorText.describe(error))"
                j.add("error", outcome.line)
            }
        }
        if !matches, let html {
            // The report shows lossless copies, so any input format displays in a browser.
            let stem = "files/" + CompareCommand.reportName(name), ext = ImageFormat.lossless.fileExtension
            do {
                var options = EncodeOptions()
                options.compression = 1
                for (suffix, image) in [("expected", images[0]), ("actual", images[1])] {
                    try ImageFile.makeDirectory(ImageFile.split(join(html, stem)).dir)
                    try ImageFile.write(try ImageCodec.encode(image, as: .lossless, options: options), to: join(html, "\(stem).\(suffix).\(ext)"))
                }
                try writeDiff(e, a, d, to: join(html, "\(stem).diff.\(ext)"))
                outcome.assets = ["expected", "actual", "diff"].map { "\(stem).\($0).\(ext)" }
            } catch {
                Console.err("imgscale: --html \(FileName.display(html)): \(ErrorText.describe(error))")
            }
        }
        outcome.json = j.text
        outcome.milliseconds = Int(((Console.now() - t0) * 1000).rounded())
        return outcome
    }

    /// For `--html`, the one image a missing or extra pair has, copied losslessly as a
    /// failure's are; its path relative to the report, or none (no report, or unreadable).
    private func reportCopy(of path: String, name: String, as suffix: String) -> [String] {
        guard let html = args.value("html") else { return [] }
        let copy = "files/" + CompareCommand.reportName(name) + ".\(suffix)." + ImageFormat.lossless.fileExtension
        do {
            let data = try ImageFile.readImage(path, limit: decode.maxMemory)
            let image = try ImageOperation.convert.perform(on: data, decode: decode, autoOrient: autoOrient).0
            var options = EncodeOptions()
            options.compression = 1
            try ImageFile.makeDirectory(ImageFile.split(join(html, copy)).dir)
            try ImageFile.write(try ImageCodec.encode(image, as: .lossless, options: options), to: join(html, copy))
            return [copy]
        } catch {
            return []
        }
    }

    private func writeDiff(_ e: PixelBuffer, _ a: PixelBuffer, _ d: ImageDifference, to path: String) throws {
        let picture = try DiffImage.render(expected: e, actual: a, difference: d, style: style)
        var options = EncodeOptions()
        // zlib level 1: a 12 MP diff is for looking at, not for keeping small.
        options.compression = 1
        if let slash = path.lastIndex(of: "/") { try ImageFile.makeDirectory(String(path[..<slash])) }
        let bytes = try ImageCodec.encode(picture, as: .lossless, options: options)
        if strictPaths { try ImageFile.writeRegular(bytes, to: path) } else { try ImageFile.write(bytes, to: path) }
    }

    /// What judges every pair alike, for --cache's keys: the version, the rule, the
    /// limits, the ignored rects, the mask's bytes, the orientation and the platform.
    private func cacheSignature() -> String {
        let mask = comparison.mask.map { "\($0.width)x\($0.height)x\($0.channels) " + SHA256.hex($0.pixels) } ?? "-"
        return ["imgscale \(Commands.version)", String(describing: comparison.rule), String(describing: comparison.ignore), mask,
                String(describing: limits), "\(autoOrient)", template.map { "\($0.template) \($0.platform) \($0.fallback)" } ?? "-"].joined(separator: "\n")
    }

    private func shouldUpdate(_ status: Outcome.Status, mode: String) -> Bool {
        switch mode {
        case "missing": return status == .extra
        case "failed": return status == .differ || status == .extra
        default: return status != .missing && status != .error && status != .skipped
        }
    }

    /// Copies the actual file over (or into) the golden, and says so. Only an image is
    /// copied, and in directory mode only one inside ACTUAL once symlinks are resolved:
    /// `act/passwd -> /etc/passwd` must not become a golden.
    private func update(_ outcome: Outcome, within actualDir: String?, goldens expectedDir: String? = nil) -> Outcome {
        var o = outcome
        do {
            // A golden is written only where the goldens' own tree holds it: never through
            // a link inside it, to a directory or a file that may be anywhere.
            if let expectedDir, let (path, kind) = PathIdentity.linkOnTheWay(o.name, under: expectedDir), kind != "missing" {
                throw UsageError(message: "\(FileName.display(path)) is \(kind), which --update neither follows nor replaces")
            }
            if let actualDir {
                let dir = PathIdentity.canonicalDirectory(actualDir)
                let real = PathIdentity.canonicalDirectory(o.actual)
                guard real.hasPrefix(dir == "/" ? "/" : dir + "/") else {
                    throw UsageError(message: "it resolves to \(FileName.display(real)), outside \(FileName.display(actualDir))")
                }
            }
            let bytes = try ImageFile.readImage(o.actual, limit: decode.maxMemory)
            _ = try ImageCodec.decode(bytes, options: decode)
            if let slash = o.expected.lastIndex(of: "/") { try ImageFile.makeDirectory(String(o.expected[..<slash])) }
            if expectedDir != nil { try ImageFile.writeRegular(bytes, to: o.expected) } else { try ImageFile.write(bytes, to: o.expected) }
            Console.err("imgscale: updated \(FileName.display(o.expected)) from \(FileName.display(o.actual)) (was \(o.status.rawValue))")
            o.status = .match
        } catch {
            o.status = .error
            o.line = "\(FileName.display(o.expected)): cannot update: \(ErrorText.describe(error))"
        }
        return o
    }

    /// Removes a golden whose actual image is gone, and the directories it leaves empty
    /// up to the goldens' own; a symlink is removed, never what it points to.
    private func prune(_ outcome: Outcome, within expectedDir: String) -> Outcome {
        var o = outcome
        // Only a regular file reached without a link is removed: a link (to a file or a
        // directory anywhere) is said and left alone, as is what it points to.
        if let (path, kind) = PathIdentity.linkOnTheWay(o.name, under: expectedDir) {
            o.status = .error
            o.line = "\(FileName.display(path)): not pruned: it is \(kind), which --update prune leaves alone"
            var j = pairJSON(o.name, o.expected, o.actual)
            j.add("result", "error")
            j.add("error", o.line)
            o.json = j.text
            return o
        }
        guard unlink(o.expected) == 0 else {
            o.status = .error
            o.line = "\(FileName.display(o.expected)): cannot prune: \(String(cString: strerror(errno)))"
            return o
        }
        Console.err("imgscale: pruned \(FileName.display(o.expected)) (no actual image)")
        var dir = String(o.expected[..<(o.expected.lastIndex(of: "/") ?? o.expected.startIndex)])
        let top = expectedDir.hasSuffix("/") ? String(expectedDir.dropLast()) : expectedDir
        while dir.count > top.count, dir.hasPrefix(top + "/"), rmdir(dir) == 0 {
            dir = String(dir[..<(dir.lastIndex(of: "/") ?? dir.startIndex)])
        }
        o.status = .pruned
        o.line = "\(FileName.display(o.name)): pruned (no actual image)"
        var j = pairJSON(o.name, o.expected, o.actual)
        j.add("result", "pruned")
        o.json = j.text
        return o
    }

    private func pairJSON(_ name: String, _ expected: String, _ actual: String) -> JSON {
        var j = JSON()
        j.add(path: "expected", expected)
        j.add(path: "actual", actual)
        return j
    }

    private func listingJSON(_ name: String, _ expected: String, _ actual: String, _ result: String) -> String {
        var j = pairJSON(name, expected, actual)
        j.add("result", result)
        return j.text
    }

    /// How much of its allowance a passing pair used, 0-1: the differing pixels of those
    /// allowed; for `--min-psnr` the limit over the PSNR (identical: 0); for `--min-ssim`
    /// 1 - SSIM over 1 - the limit; the most used where both are given.
    private func allowanceUsed(_ d: ImageDifference, ssim: Double?) -> Double {
        if limits.minPSNR != nil || limits.minSSIM != nil {
            var used = 0.0
            if let m = limits.minPSNR, d.psnr.isFinite, d.psnr > 0 { used = max(used, m / d.psnr) }
            if let m = limits.minSSIM, let s = ssim, m < 1 { used = max(used, (1 - s) / (1 - m)) }
            return used
        }
        let allowed = limits.allowedPixels(of: d)
        return allowed > 0 ? Double(d.differingPixels) / Double(allowed) : 0
    }

    /// The limits that decided a pair, named: the clause the line opens with (nil for
    /// the default rule, any difference failing, which "N pixels" already says) and a
    /// JSON object per limit (its name, the pair's value, the limit, whether it held).
    private func verdict(_ d: ImageDifference, ssim: Double?) -> (String?, [String]) {
        func object(_ limit: String, _ value: String, _ bound: String, _ held: Bool) -> String {
            "{\"limit\":\"\(limit)\",\"value\":\(value),\"bound\":\(bound),\"held\":\(held)}"
        }
        if limits.minPSNR != nil || limits.minSSIM != nil {
            var parts: [String] = [], objects: [String] = []
            if let m = limits.minPSNR {
                let held = d.psnr >= m
                parts.append("PSNR \(d.psnr.isInfinite ? "inf" : format(d.psnr, digits: 2)) dB \(held ? "reaches" : "is below") the limit \(format(m, digits: 2)) dB")
                objects.append(object("min_psnr", d.psnr.isInfinite ? "\"inf\"" : "\(d.psnr)", "\(m)", held))
            }
            if let m = limits.minSSIM {
                let s = ssim ?? -1, held = s >= m
                parts.append("SSIM \(format(s, digits: 4)) \(held ? "reaches" : "is below") the limit \(format(m, digits: 4))")
                objects.append(object("min_ssim", "\(s)", "\(m)", held))
            }
            return (parts.joined(separator: " and ") + "; \(d.differingPixels) pixels", objects)
        }
        let allowed = limits.allowedPixels(of: d), shown: String
        switch limits.allowed {
        case .pixels: shown = "\(allowed)"
        case .percent(let p): shown = "\(format(p, digits: p == p.rounded() ? 0 : 3))% = \(allowed)"
        }
        let by: String
        switch comparison.rule {
        case .tolerance(let t): by = t == 0 ? "" : " by more than \(t) level\(t == 1 ? "" : "s")"
        case .perceptual(let t, _): by = " by more than pixelmatch's threshold \(t)"
        case .deltaE(let e): by = " by more than ΔE \(format(e, digits: e == e.rounded() ? 1 : 2))"
        }
        let held = d.differingPixels <= allowed
        let object = object("max_pixels_differ", "\(d.differingPixels)", "\(allowed)", held)
        if case .tolerance(0) = comparison.rule, allowed == 0 { return (nil, [object]) }
        return ("\(d.differingPixels) pixels differ\(by) (limit \(shown))", [object])
    }

    private func limitsJSON() -> String {
        var j = JSON()
        switch comparison.rule {
        case .tolerance(let t):
            j.add("rule", "tolerance")
            j.add("tolerance", t)
        case .perceptual(let t, let counted):
            j.add("rule", "perceptual")
            j.add("threshold", raw: "\(t)")
            j.add("antialiasing", counted ? "count" : "ignore")
        case .deltaE(let e):
            j.add("rule", "delta_e")
            j.add("max_delta_e", raw: "\(e)")
        }
        switch limits.allowed {
        case .pixels(let n): j.add("max_pixels_differ", n)
        case .percent(let p): j.add("max_pixels_differ", "\(p)%")
        }
        j.add("min_psnr", raw: limits.minPSNR.map { "\($0)" } ?? "null")
        j.add("min_ssim", raw: limits.minSSIM.map { "\($0)" } ?? "null")
        j.add("ignored_rects", comparison.ignore.count)
        j.add("mask", args.value("mask"))
        return j.text
    }

    /// JUnit XML: one test case per pair, failures with their line.
    private func writeJUnit(_ outcomes: [Outcome]) {
        guard let path = args.value("junit") else { return }
        let failures = outcomes.filter { $0.status == .differ || $0.status == .missing || $0.status == .extra }.count
        let errors = outcomes.filter { $0.status == .error }.count
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites tests=\"\(outcomes.count)\" failures=\"\(failures)\" errors=\"\(errors)\">\n"
        xml += "  <testsuite name=\"imgscale compare\" tests=\"\(outcomes.count)\" failures=\"\(failures)\" errors=\"\(errors)\">\n"
        for o in outcomes {
            let time = format(Double(o.milliseconds) / 1000, digits: 3)
            xml += "    <testcase classname=\"imgscale.compare\" name=\"\(CompareCommand.xml(FileName.display(o.name)))\" time=\"\(time)\""
            switch o.status {
            case .match, .unchanged: xml += "/>\n"
            case .skipped, .pruned: xml += ">\n      <skipped message=\"\(CompareCommand.xml(o.line))\"/>\n    </testcase>\n"
            case .error: xml += ">\n      <error message=\"\(CompareCommand.xml(o.line))\"/>\n    </testcase>\n"
            default:
                // Jenkins' and GitLab's attachment convention: the images beside the failure.
                let files = [o.expected, o.actual, o.diff].compactMap { $0 }.filter { access($0, F_OK) == 0 }.map(CompareCommand.absolute)
                let attached = files.map { "[[ATTACHMENT|\(CompareCommand.xml($0))]]" }.joined(separator: "\n")
                xml += ">\n      <failure message=\"\(CompareCommand.xml(o.line))\">\(CompareCommand.xml(o.line))</failure>\n"
                    + (files.isEmpty ? "" : "      <system-out>\(attached)</system-out>\n") + "    </testcase>\n"
            }
        }
        xml += "  </testsuite>\n</testsuites>\n"
        do {
            try ImageFile.write(Array(xml.utf8), to: path)
        } catch {
            Console.err("imgscale: --junit \(FileName.display(path)): \(ErrorText.describe(error))")
        }
    }

    /// `--html DIR`: index.html with a summary and, for each failure, the expected,
    /// actual and diff images side by side (PNG copies in DIR/files/).
    /// `--html DIR`'s index.html: one page with no network, its script and style inline;
    /// the failures first, a filter by status, and for each failure side by side, a
    /// slider, an onion skin, blink and the diff, with its line (scores and the limits
    /// that decided) and the rules applied. Pictures are linked by their mirrored
    /// relative paths (`reportName`), so no two pairs share one.
    private func writeHTML(_ outcomes: [Outcome]) {
        guard let dir = args.value("html") else { return }
        var counts: [Outcome.Status: Int] = [:]
        for o in outcomes { counts[o.status, default: 0] += 1 }
        let passing: Set<Outcome.Status> = [.match, .skipped, .pruned, .unchanged]
        let failures = outcomes.filter { !passing.contains($0.status) }
        let ordered = failures + outcomes.filter { passing.contains($0.status) }
        let x = CompareCommand.xml
        var h = """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>imgscale compare: \(failures.count) of \(outcomes.count) failed</title>
        <style>
        body { font: 14px system-ui, sans-serif; margin: 16px; background: #fafafa; }
        .pair { margin: 12px 0; padding: 8px; background: #fff; border: 1px solid #ddd; }
        .pair h2 { font-size: 15px; margin: 0 0 4px; }
        .pair[data-status=match], .pair[data-status=skipped], .pair[data-status=pruned] { padding: 2px 8px; }
        .views button { margin: 4px 4px 8px 0; } .views button.on { font-weight: bold; }
        .side { display: flex; gap: 8px; } figure { margin: 0; } figcaption { color: #555; }
        img { width: 256px; height: auto; image-rendering: pixelated; border: 1px solid #ccc;
              background: repeating-conic-gradient(#eee 0 25%, #fff 0 50%) 0 0 / 16px 16px; }
        .stack { position: relative; display: inline-block; } .stack img.top { position: absolute; left: 0; top: 0; }
        .match { color: #070; } .fail { color: #b00; } .rules { color: #555; }
        </style></head><body>
        <h1>imgscale compare</h1>
        <p id="summary" class="\(failures.isEmpty ? "match" : "fail")"><span id="failed">\(failures.count)</span> of \(outcomes.count) failed:
        \(counts[.match] ?? 0) match, \(counts[.differ] ?? 0) differ, \(counts[.missing] ?? 0) missing, \(counts[.extra] ?? 0) extra,
        \(counts[.error] ?? 0) unreadable, \(counts[.skipped] ?? 0) skipped, \(counts[.pruned] ?? 0) pruned</p>
        <div id="filter">Show:

        """
        for status in ["differ", "missing", "extra", "error", "match", "skipped", "pruned"] {
            let n = outcomes.filter { $0.status.rawValue == status }.count
            guard n > 0 else { continue }
            let on = !["match", "skipped", "pruned"].contains(status)
            h += "<label><input type=\"checkbox\" data-status=\"\(status)\"\(on ? " checked" : "")> \(status) (\(n))</label>\n"
        }
        h += "</div>\n"
        for o in ordered {
            let shown = !passing.contains(o.status)
            h += "<section class=\"pair\" data-status=\"\(o.status.rawValue)\" id=\"\(x(CompareCommand.reportName(o.name)))\"\(shown ? "" : " hidden")>\n"
            h += "<h2>\(x(FileName.display(o.name))): \(o.status.rawValue)</h2>\n<p class=\"line\">\(x(o.line))</p>\n"
            if case .object(let fields)? = try? JSONValue.parse(Array(o.json.utf8)),
               case .array(let applied)? = fields.first(where: { $0.0 == "rules" })?.1 {
                let numbers = applied.compactMap { v -> String? in if case .number(let n) = v { return String(Int(n)) }; return nil }
                var said = "rules of \(GoldenRules.fileName) applied: \(numbers.joined(separator: ", "))"
                if case .object(let rule)? = fields.first(where: { $0.0 == "rule" })?.1,
                   case .number(let n)? = rule.first(where: { $0.0 == "rule" })?.1,
                   case .number(let line)? = rule.first(where: { $0.0 == "line" })?.1,
                   case .string(let match)? = rule.first(where: { $0.0 == "match" })?.1 {
                    said += "; decided by rule \(Int(n)) (line \(Int(line)), match \"\(match)\")"
                }
                h += "<p class=\"rules\">\(x(said))</p>\n"
            }
            if o.assets.count == 3 {
                let (e, a, d) = (x(o.assets[0]), x(o.assets[1]), x(o.assets[2]))
                h += """
                <div class="views"><button class="on" data-view="side">side by side</button><button data-view="slider">slider</button><button data-view="onion">onion skin</button><button data-view="blink">blink</button><button data-view="diff">diff</button></div>
                <div class="view side" data-view="side"><figure><img src="\(e)" alt="expected"><figcaption>expected</figcaption></figure><figure><img src="\(a)" alt="actual"><figcaption>actual</figcaption></figure><figure><img src="\(d)" alt="diff"><figcaption>diff</figcaption></figure></div>
                <div class="view" data-view="slider" hidden><div class="stack"><img src="\(e)" alt="expected"><img class="top" src="\(a)" alt="actual" style="clip-path: inset(0 0 0 50%)"></div><br><input type="range" class="slide" min="0" max="100" value="50" aria-label="expected | actual"></div>
                <div class="view" data-view="onion" hidden><div class="stack"><img src="\(e)" alt="expected"><img class="top" src="\(a)" alt="actual" style="opacity: 0.5"></div><br><input type="range" class="fade" min="0" max="100" value="50" aria-label="actual's opacity"></div>
                <div class="view" data-view="blink" hidden><div class="stack"><img src="\(e)" alt="expected"><img class="top blinker" src="\(a)" alt="actual"></div></div>
                <div class="view" data-view="diff" hidden><img src="\(d)" alt="diff"></div>

                """
            } else if o.assets.count == 1 {
                // A missing pair has only its golden, an extra one only the new image.
                let which = o.status == .missing ? "expected" : "actual"
                h += "<div class=\"side\"><figure><img src=\"\(x(o.assets[0]))\" alt=\"\(which)\"><figcaption>\(which)</figcaption></figure></div>\n"
            }
            h += "</section>\n"
        }
        h += """
        <script>
        document.querySelectorAll('#filter input').forEach(box => box.addEventListener('change', () => {
          document.querySelectorAll('.pair[data-status="' + box.dataset.status + '"]').forEach(p => { p.hidden = !box.checked; });
        }));
        document.querySelectorAll('.pair').forEach(pair => {
          pair.querySelectorAll('.views button').forEach(b => b.addEventListener('click', () => {
            pair.querySelectorAll('.views button').forEach(o => o.classList.toggle('on', o === b));
            pair.querySelectorAll('.view').forEach(v => { v.hidden = v.dataset.view !== b.dataset.view; });
          }));
          pair.querySelectorAll('.slide').forEach(r => r.addEventListener('input', () => {
            r.parentElement.querySelector('img.top').style.clipPath = 'inset(0 0 0 ' + r.value + '%)';
          }));
          pair.querySelectorAll('.fade').forEach(r => r.addEventListener('input', () => {
            r.parentElement.querySelector('img.top').style.opacity = r.value / 100;
          }));
        });
        setInterval(() => document.querySelectorAll('.blinker').forEach(i => { i.style.visibility = i.style.visibility === 'hidden' ? 'visible' : 'hidden'; }), 500);
        </script>
        </body></html>

        """
        do {
            try ImageFile.makeDirectory(dir)
            try ImageFile.write(Array(h.utf8), to: join(dir, "index.html"))
        } catch {
            Console.err("imgscale: --html \(FileName.display(dir)): \(ErrorText.describe(error))")
        }
    }

    /// The path of a pair's report copies: its relative path mirrored, one directory a
    /// component, each byte but ASCII letters, digits, '.' and '-' written `_XX` (and
    /// '_' itself `__`), so distinct names never share pictures (`a b` is
    /// `a_20b`, `a_b` is `a__b`) and every name is safe in a URL.
    static func reportName(_ name: String) -> String {
        name.split(separator: "/", omittingEmptySubsequences: true).map { part -> String in
            var out = ""
            for b in FileName.bytes(String(part)) {
                switch b {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                     UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"):
                    out.unicodeScalars.append(Unicode.Scalar(b))
                case UInt8(ascii: "_"): out += "__"
                default: out += "_" + (b < 16 ? "0" : "") + String(b, radix: 16)
                }
            }
            return out
        }.joined(separator: "/")
    }

    /// A path from the working directory, for readers that open it from elsewhere.
    /// Without `.` or `..`: a CI server shows the path as its attachment's name. The
    /// file's real path where it exists (a `..` after a link is the link target's parent).
    static func absolute(_ path: String) -> String {
        if let real = realpath(path, nil) {
            defer { free(real) }
            return String(cString: real)
        }
        var joined = path
        if !path.hasPrefix("/") {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            guard getcwd(&buffer, buffer.count) != nil else { return path }
            joined = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + "/" + path
        }
        var parts: [Substring] = []
        for part in joined.split(separator: "/") where part != "." {
            if part == ".." { _ = parts.popLast() } else { parts.append(part) }
        }
        return "/" + parts.joined(separator: "/")
    }

    static func xml(_ s: String) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case _ where c.value < 0x20 && c != "\t": out += " "
            // Not characters XML may hold, even as references.
            case "\u{FFFE}", "\u{FFFF}": out += "\u{FFFD}"
            case _ where FileName.reordersText(c): out += "\\u{\(String(c.value, radix: 16))}"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    private func join(_ dir: String, _ name: String) -> String {
        dir.hasSuffix("/") ? dir + name : dir + "/" + name
    }

    static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return FileName.withCString(path, { stat($0, &st) }) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// Relative paths of the regular image files under `dir` (by extension), recursively,
    /// sorted; hidden entries are skipped.
    /// Links inside the tree are listed apart, never followed: what they point to may be
    /// outside it. A directory reached twice (a bind mount) is walked once.
    static func images(under dir: String) -> (images: [String], links: [String]) {
        var found: [String] = [], links: [String] = []
        var visited = Set<[UInt64]>()
        func walk(_ relative: String) {
            let path = relative.isEmpty ? dir : dir + "/" + relative
            var here = stat()
            guard FileName.withCString(path, { stat($0, &here) }) == 0,
                  visited.insert([UInt64(here.st_dev), UInt64(here.st_ino)]).inserted else { return }
            guard let d = FileName.withCString(path, { opendir($0) }) else { return }
            defer { closedir(d) }
            while let e = readdir(d) {
                let name = withUnsafeBytes(of: e.pointee.d_name) { FileName.decode(Array($0.prefix { $0 != 0 })) }
                if name.hasPrefix(".") { continue }
                let rel = relative.isEmpty ? name : relative + "/" + name
                var st = stat()
                // lstat: a link inside the tree, to a directory or a file, is not walked.
                // What it points to may be anywhere, and --update prune would delete it.
                guard FileName.withCString(dir + "/" + rel, { lstat($0, &st) }) == 0 else { continue }
                if (st.st_mode & S_IFMT) == S_IFLNK {
                    links.append(rel)
                } else if (st.st_mode & S_IFMT) == S_IFDIR {
                    walk(rel)
                } else if (st.st_mode & S_IFMT) == S_IFREG && ImageFormat.fromExtension(of: name) != nil {
                    // Regular files only: a FIFO or device named like an image would
                    // block the read (or --update's copy) forever.
                    found.append(rel)
                }
            }
        }
        walk("")
        return (found.sorted(), links.sorted())
    }
}
