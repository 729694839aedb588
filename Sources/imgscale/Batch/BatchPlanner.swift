#if canImport(Glibc)
import Glibc
#endif
import ImageScaler

/// Turns the command line into the list of jobs, and finds every usage error (output
/// collisions, `-o` with several inputs or sizes, unknown extensions) before any work
/// starts. Each input gets one output per operation (one per `--size`), named by
/// `--name` with that operation's `{w}` and `{h}`.
struct BatchPlanner {
    let args: ParsedArguments
    let operations: [ImageOperation]
    /// The most bytes a --files-from list may take.
    let limit: Int
    /// Each operation's `--scale` (its `{scale}` and `{at}`), when a density set asked for them.
    var scales: [Double]? = nil
    /// The sizes `operations` produce from an input (its header read and planned), for
    /// `{width}` and `{height}`; asked only when the template uses them.
    var produced: ((String, [ImageOperation], ImageFormat?) -> Result<[Size], Error>)? = nil
    /// `--shard`, read from the command line and the engine's variables.
    var shardSpec: ShardSpec? = nil
    /// What each job will cost (`InputCost`), for `--balance cost`.
    var cost: ((Job) -> Int)? = nil

    func jobs() throws -> [Job] {
        var inputs = args.positionals
        if args.value("output") == "-" && args.value("report") == "-" {
            throw UsageError(message: "-o - and --report - would both write to stdout; send the report to a file")
        }
        if let list = args.value("files-from") {
            if list == "-" && inputs.contains("-") {
                throw UsageError(message: "stdin ('-') cannot be both an input and the --files-from list")
            }
            for option in ["output", "report"] {
                if let path = args.value(option), path != "-", list != "-",
                   let id = PathIdentity(path: list).fileID, PathIdentity(path: path).fileID == id || PathIdentity(path: path).canonical == PathIdentity(path: list).canonical {
                    throw UsageError(message: "--\(option) '\(FileName.display(path))' is the --files-from list; write it elsewhere")
                }
            }
            inputs += try readList(list, nul: args.has("null"))
        }
        guard !inputs.isEmpty else { throw UsageError(message: "no input files") }
        if inputs.filter({ $0 == "-" }).count > 1 { throw UsageError(message: "stdin ('-') can be read only once") }
        let formats = args.choices("format", as: ImageFormat.self)
        if let twice = formats.first(where: { f in formats.filter { $0 == f }.count > 1 }) {
            throw UsageError(message: "--format \(twice.rawValue) is given twice, so two outputs would both write one file")
        }
        let format = formats.first

        var jobs: [Job] = []
        if let output = args.value("output") {
            guard !output.isEmpty else { throw UsageError(message: "-o needs a file name, not ''") }
            guard formats.count <= 1 else {
                throw UsageError(message: "-o writes one file, but --format is given \(formats.count) times; use --out-dir DIR --name '{stem}.{ext}'")
            }
            if let format, let named = ImageFormat.fromExtension(of: output), named != format {
                throw UsageError(message: "-o '\(FileName.display(output))' names a \(named.displayName) file but --format is \(format.rawValue); "
                                 + "give a .\(format.fileExtension) name, or leave --format out")
            }
            guard inputs.count == 1 else {
                throw UsageError(message: "-o takes exactly one input, got \(inputs.count); use --out-dir DIR for several")
            }
            let named = format ?? ImageFormat.fromExtension(of: output)
            // A container of sizes (favicon.ico) holds every --size in the one file.
            guard (named?.files(holding: operations.count) ?? operations.count) == 1 else {
                throw UsageError(message: "-o writes one file, but \(operations.count) sizes make \(operations.count); use --out-dir DIR --name '{stem}-{w}x{h}.\(ImageFormat.lossless.fileExtension)'")
            }
            if args.has("out-dir") { throw UsageError(message: "-o and --out-dir cannot be used together") }
            if case .none = format, ImageFormat.isUnwritableImageExtension(of: output) {
                throw UsageError(message: "cannot write '\(FileName.display(output))': imgscale writes \(ImageFormat.names(ImageFormat.writable)); use a \(ImageFormat.writableExtensions) name, or --format")
            }
            jobs.append(Job(index: 0, input: inputs[0], outputs: [
                Job.Output(path: output, format: named, operation: operations[0], entries: Array(operations.dropFirst()))]))
            try checkOutputs(&jobs, outDir: nil)
        } else {
            guard let dir = args.value("out-dir") else {
                throw UsageError(message: "no output: give -o OUTPUT for one input, or --out-dir DIR")
            }
            let template = args.value("name") ?? "{name}"
            if ["", ".", ".."].contains(template) || template.hasSuffix("/") {
                throw UsageError(message: "--name '\(FileName.display(template))' names no file; give a template like '{stem}.\(ImageFormat.lossless.fileExtension)'")
            }
            // A container of sizes (ICO) named without {w} or {h} holds them all in one file.
            let oneFile = operations.count > 1 && !template.contains("{w}") && !template.contains("{h}")
                && (format ?? ImageFormat.fromExtension(of: template))?.files(holding: operations.count) == 1
            let sizeTokens = ["{w}", "{h}", "{width}", "{height}", "{scale}", "{at}", "{dpi}"]
            if operations.count > 1 && !oneFile && !sizeTokens.contains(where: template.contains) {
                throw UsageError(message: "--name '\(FileName.display(template))' gives all \(operations.count) sizes one file name; put {w} or {h} in it, like '{stem}-{w}.\(ImageFormat.lossless.fileExtension)'")
            }
            // Asked once: a substring search per input was a tenth of an --if-changed rerun.
            let namesProduced = template.contains("{width}") || template.contains("{height}")
            for (index, input) in inputs.enumerated() {
                guard input != "-" else { throw UsageError(message: "stdin ('-') needs -o OUTPUT") }
                var outputs: [Job.Output] = []
                // The sizes made, read from the header once per input and format.
                var made: [String: Result<[Size], Error>] = [:]
                func produced(_ index: Int, _ format: ImageFormat?) -> Result<Size, Error>? {
                    guard let ask = self.produced, namesProduced else { return nil }
                    let key = format?.rawValue ?? ""
                    if made[key] == nil { made[key] = ask(input, operations, format) }
                    return made[key]!.map { $0[index] }
                }
                let combinations = (oneFile ? [0] : Array(operations.indices)).flatMap { i in
                    (formats.isEmpty ? [nil] : formats.map(Optional.some)).map { (i, $0) }
                }
                for (index, format) in combinations {
                    let operation = operations[index]
                    let size = produced(index, format)
                    if case .failure(let error) = size {
                        // Named anyway, so the input fails with the decoder's words when it runs.
                        outputs.append(Job.Output(path: dir + "/" + template, format: format, operation: operation,
                                                  failure: ErrorText.describe(error)))
                        continue
                    }
                    var name = try expand(template, input: input, size: operation.requestedSize, ext: format?.fileExtension,
                                          produced: try size?.get(), scale: scales?[index])
                    if let format { name = replaceExtension(name, with: format.fileExtension) }
                    // Joined as a shell would: an absolute name stands alone (and is then
                    // refused for leaving the directory).
                    let path = name.hasPrefix("/") ? name : dir.hasSuffix("/") ? dir + name : dir + "/" + name
                    // Checked before any directory is made: a name the filesystem refuses
                    // would otherwise fail every input after creating their folders.
                    if let long = path.split(separator: "/").first(where: { FileName.bytes(String($0)).count > 255 }) {
                        throw UsageError(message: "--name makes '\(FileName.display(String(long.prefix(40))))...', \(FileName.bytes(String(long)).count) bytes; a file name has at most 255")
                    }
                    if FileName.bytes(path).count >= Int(PATH_MAX) {
                        throw UsageError(message: "--name makes a path of \(FileName.bytes(path).count) bytes ('\(FileName.display(String(path.prefix(40))))...'); a path has at most \(PATH_MAX - 1)")
                    }
                    var output = Job.Output(path: path, format: ImageFormat.fromExtension(of: path), operation: operation,
                                            entries: oneFile ? Array(operations.dropFirst()) : [], produced: try size?.get())
                    if ImageFormat.isUnwritableImageExtension(of: path) {
                        output.failure = "cannot write '\(FileName.display(path))': imgscale writes \(ImageFormat.names(ImageFormat.writable)); give --format or a --name with \(ImageFormat.writableExtensions)"
                    }
                    outputs.append(output)
                }
                jobs.append(Job(index: index, input: input, outputs: outputs))
            }
            try checkOutputs(&jobs, outDir: dir)
        }
        return try shard(jobs)
    }

    /// `template` for `input` and the requested `size`; `{ext}` is `ext` (the output
    /// format's, with --format) or else the input's own.
    private func expand(_ template: String, input: String, size: Size?, ext outputExt: String? = nil,
                        produced: Size? = nil, scale: Double? = nil) throws -> String {
        let slash = input.lastIndex(of: "/")
        var name = slash.map { String(input[input.index(after: $0)...]) } ?? input
        let dir = slash.map { String(input[..<$0]) } ?? "."
        let dot = name.lastIndex(of: ".").flatMap { $0 == name.startIndex ? nil : $0 }
        let stem = dot.map { String(name[..<$0]) } ?? name
        var ext = dot.map { String(name[name.index(after: $0)...]) } ?? ""
        // A format imgscale reads but never writes (SVG) is written losslessly where no
        // format is named, so its own name and extension say so.
        if outputExt == nil, let own = ImageFormat.fromExtension(of: name), !own.isWritable {
            ext = ImageFormat.lossless.fileExtension
            name = stem + "." + ext
        }
        var out = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            out += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else {
                throw UsageError(message: "--name has an unclosed '{' in '\(template)'")
            }
            let token = rest[rest.index(after: open)..<close]
            switch token {
            case "name": out += name
            case "stem": out += stem
            case "ext": out += outputExt ?? ext
            case "dir": out += dir
            case "w", "h":
                guard let size else { throw UsageError(message: "--name token {\(token)} needs a size, which this command has not") }
                // A one-sided size's open side has no number: `{h}` of `320x` is empty.
                let side = token == "w" ? size.width : size.height
                out += side == Size.unbounded ? "" : String(side)
            case "width", "height":
                guard let produced else { throw UsageError(message: "--name token {\(token)} needs a size, which this command has not") }
                out += String(token == "width" ? produced.width : produced.height)
            case "scale":
                out += BatchPlanner.scaleText(scale ?? 1)
            case "at":
                // Scale 1 is the base name ("icon"), others Apple's suffix ("icon@2x").
                if let scale, scale != 1 { out += "@" + BatchPlanner.scaleText(scale) + "x" }
            case "dpi":
                let s = scale ?? 1
                guard let bucket = BatchPlanner.androidDensities[s] else {
                    throw UsageError(message: "--name token {dpi} names Android's densities, scales \(BatchPlanner.androidDensities.keys.sorted().map(BatchPlanner.scaleText).joined(separator: " ")); --scale \(BatchPlanner.scaleText(s)) has none")
                }
                out += bucket
            default:
                throw UsageError(message: "--name has unknown token {\(token)}; known: {name} {stem} {ext} {dir} {w} {h} {width} {height} {scale} {at} {dpi}")
            }
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }

    /// Android's density buckets by scale over mdpi's 160 dpi, as `{dpi}` names them.
    static let androidDensities: [Double: String] = [0.75: "ldpi", 1: "mdpi", 1.5: "hdpi", 2: "xhdpi", 3: "xxhdpi", 4: "xxxhdpi"]

    /// "2", "1.5", "0.75": a scale as a name holds it.
    static func scaleText(_ scale: Double) -> String {
        scale == scale.rounded() ? String(Int(scale)) : String(scale)
    }

    private func replaceExtension(_ name: String, with ext: String) -> String {
        let base = name.lastIndex(of: "/").map { name.index(after: $0) } ?? name.startIndex
        if let dot = name[base...].lastIndex(of: "."), dot != base {
            return String(name[..<dot]) + "." + ext
        }
        return name + "." + ext
    }

    /// An output that is an input would destroy it, and one outside --out-dir is not what
    /// the user asked for: both are refused before any work, comparing files, not
    /// spellings. Two outputs naming one file would race and lose one: where they are the
    /// same file (sizes that `--no-upscale` makes one), it is made once and said so;
    /// else both fail, with their inputs' other outputs still made.
    private func checkOutputs(_ jobs: inout [Job], outDir: String?) throws {
        var inputs: [String: String] = [:]
        for job in jobs where job.input != "-" {
            if let id = PathIdentity(path: job.input).fileID, inputs[id] == nil { inputs[id] = job.input }
        }
        let root = outDir.map { PathIdentity.canonicalDirectory($0) + "/" }
        var seen: [String: (job: Int, output: Int)] = [:]
        var repeated: Set<[Int]> = []
        /// The sizes asked of each output kept for several.
        var merged: [[Int]: [String]] = [:]
        var directories: [String: String] = [:]
        for j in jobs.indices {
            let job = jobs[j]
            for (o, output) in job.outputs.enumerated() where output.path != "-" && output.failure == nil {
                let target = PathIdentity(path: output.path).outputFacts(directories: &directories)
                let canonical = target.canonical
                if let root, !canonical.hasPrefix(root) {
                    throw UsageError(message: "input '\(FileName.display(job.input))' would be written to '\(FileName.display(output.path))', outside --out-dir; {dir} is the input's directory as given, so use relative input paths without '..'")
                }
                if let id = target.fileID, let input = inputs[id] {
                    throw UsageError(message: "output '\(FileName.display(output.path))' is the input '\(FileName.display(input))'; write it elsewhere")
                }
                guard target.isReplaceable else { continue }
                guard let (oj, oo) = seen[canonical] else {
                    seen[canonical] = (j, o)
                    continue
                }
                let other = jobs[oj].outputs[oo]
                let sizes = [other.operation, output.operation].compactMap(\.requestedSize).map { "--size \(ValueParser.text(of: $0))" }
                if oj == j, let made = output.produced, other.produced == made, other.format == output.format,
                   BatchPlanner.kind(of: other.operation) == BatchPlanner.kind(of: output.operation) {
                    repeated.insert([j, o])
                    let asked = (merged[[oj, oo]] ?? [sizes[0]]) + sizes.dropFirst()
                    merged[[oj, oo]] = asked
                    jobs[oj].outputs[oo].note = asked.dropLast().joined(separator: ", ") + " and \(asked.last!) give the same \(made) picture (no upscaling past the source): written once"
                    continue
                }
                // Names from the command line alone meet for every input: a usage error.
                if oj == j, output.produced == nil || other.produced == nil {
                    throw UsageError(message: "\(sizes.joined(separator: " and ")) of '\(FileName.display(job.input))' would both write '\(FileName.display(canonical))'; put {w} and {h} in --name")
                }
                let why = oj == j
                    ? "\(sizes.joined(separator: " and ")) would both write '\(FileName.display(canonical))'; name both sides, like '{stem}-{width}x{height}.{ext}'"
                    : "inputs '\(FileName.display(jobs[oj].input))' and '\(FileName.display(job.input))' would both write '\(FileName.display(canonical))'"
                jobs[j].outputs[o].failure = why
                if jobs[oj].outputs[oo].failure == nil { jobs[oj].outputs[oo].failure = why }
            }
        }
        for j in jobs.indices {
            jobs[j].outputs = jobs[j].outputs.enumerated().filter { !repeated.contains([j, $0.offset]) }.map(\.element)
        }
    }

    /// Which operation: outputs of one input by the same one at the same size are the same picture.
    private static func kind(of operation: ImageOperation) -> Int {
        switch operation {
        case .fill: return 0
        case .fit: return 1
        case .crop: return 2
        case .convert: return 3
        }
    }

    /// `--report` and `--diff` write files too: they must not be an input or an output.
    static func checkSideOutput(_ path: String, option: String, inputs: [String], outputs: [String]) throws {
        guard path != "-" else { return }
        let side = PathIdentity(path: path)
        if let id = side.fileID {
            for input in inputs where input != "-" && PathIdentity(path: input).fileID == id {
                throw UsageError(message: "--\(option) '\(FileName.display(path))' is the input '\(FileName.display(input))'; write it elsewhere")
            }
        }
        guard side.isReplaceable else { return }
        var directories: [String: String] = [:]
        let canonical = side.canonical(directories: &directories)
        for output in outputs where output != "-" && PathIdentity(path: output).canonical(directories: &directories) == canonical {
            throw UsageError(message: "--\(option) '\(FileName.display(path))' is also an image output")
        }
    }

    /// `--shard`: by count, input i (0-based, in the list as given) belongs to shard
    /// i mod N, so the shards are disjoint, cover everything, and stay stable when the
    /// list is; by cost, `ShardBalance` deals them, and the shard's inputs run in path order.
    private func shard(_ jobs: [Job]) throws -> [Job] {
        guard let spec = shardSpec else { return jobs }
        guard spec.balance == .cost else {
            return jobs.enumerated().filter { $0.offset % spec.count == spec.index }.map(\.element)
        }
        let costs = jobs.map { cost?($0) ?? 1 }
        let dealt = ShardBalance(paths: jobs.map { FileName.bytes($0.input) }, costs: costs, count: spec.count)
        if args.has("verbose") {
            let total = dealt.loads.reduce(0, +), mean = Double(total) / Double(spec.count)
            let mine = dealt.loads[spec.index], largest = dealt.loads.max() ?? 0
            Console.err("imgscale: shard \(spec.text): \(dealt.shardOf.filter { $0 == spec.index }.count) of \(jobs.count) inputs, "
                        + "predicted cost \(mine) (mean \(format(mean, digits: 0)), largest shard \(largest): \(format(Double(largest) / max(mean, 1), digits: 3))x the mean)")
        }
        let paths = jobs.map { FileName.bytes($0.input) }
        return jobs.indices.filter { dealt.shardOf[$0] == spec.index }
            .sorted { paths[$0].lexicographicallyPrecedes(paths[$1]) || (paths[$0] == paths[$1] && $0 < $1) }
            .map { jobs[$0] }
    }

    private func readList(_ path: String, nul: Bool) throws -> [String] {
        let bytes: [UInt8]
        do { bytes = try ImageFile.read(path, limit: limit) } catch {
            throw UsageError(message: "--files-from \(FileName.display(path)): \(error)")
        }
        let separator: UInt8 = nul ? 0 : 10
        return bytes.split(separator: separator, omittingEmptySubsequences: true).map {
            var line = Array($0)
            if !nul && line.last == 13 { line.removeLast() }
            return FileName.decode(line)
        }.filter { !$0.isEmpty }
    }
}
