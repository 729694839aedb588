import ImageScaler

/// `imgscale run PLAN.json`: each object `plan --json` printed is run again, as it was
/// planned or not at all. A plan file is input like any other, so before a pixel is read:
/// its `command` may hold only the image commands' own options, no limit above the
/// defaults, no batch options, outputs only below the working directory; then the input
/// is planned again, and the new plan (the input's length and SHA-256, each output's
/// path, stages and encoder settings, the decodes, threads and memory) must equal the
/// recorded one field by field. Only then are the outputs made, by the same code the
/// command runs. The invariant: a replay writes exactly what its plan says, or nothing.
enum PlanReplay {
    /// Given to the replayed command's arguments after parsing (no user can type it: no
    /// table has it), holding the recorded plan the new one must equal.
    static let marker = "replay-of-plan"

    /// A job's own options, kept in its `command`; the batch's (which inputs, the report,
    /// the progress) belong to the run that made the plan, not to this one input.
    static let batchOptions: Set<String> = ["files-from", "null", "shard", "balance", "if-newer", "if-changed", "report", "progress",
                                            "quiet", "verbose", "jobs", "json", Commands.planMarker]

    /// The limits a replayed plan may lower but not raise or lift (0 lifts them).
    static let ceilings: [(option: String, most: Double)] = [
        ("max-pixels", Double(DecodeOptions.defaultMaxPixels)), ("max-memory", Double(MemoryBudget.defaultBytes)),
        ("max-frames", 1000), ("max-cpu", 120), ("timeout", 600),
    ]

    static let spec = CommandSpec(
        name: "run", summary: "Run a plan that 'plan ... --json' printed, exactly as planned, or refuse it.",
        usage: "imgscale run [-q] [-v] PLAN.json...   (- reads the plan from stdin)",
        examples: ["imgscale plan fit --size 640x photo.jpg -o small.webp --json > p.json && imgscale run p.json"],
        details: """
        Each line of PLAN.json is one input's plan, as 'imgscale plan fill|fit|crop|convert ... --json' \
        printed it. It is run from the same working directory, by the same imgscale version, and gives the \
        same bytes as the command that was planned. A plan may hold the image commands' options alone: \
        no --files-from, --shard, --report or other batch option, no --max-pixels, --max-memory, \
        --max-frames, --max-cpu or --timeout above its default (nor 0, no limit), no output outside the \
        working directory and no --export-profile file. The input is planned again first; when the \
        new plan differs from the recorded one in any field (the input's bytes, an output's path, \
        stages or encoder settings, the decodes, threads or memory), nothing is written and the \
        line says which field differs. Exit status: 0 when every plan ran, 1 when one was refused or failed.
        """,
        options: [OptionSpec("quiet", short: "q", "no summary line"),
                  OptionSpec("verbose", short: "v", "say how each input was decoded")],
        run: run)

    static func run(_ args: ParsedArguments) throws -> Int32 {
        guard !args.positionals.isEmpty else { throw UsageError(message: "run needs a plan file, as 'imgscale plan ... --json' writes") }
        var status: Int32 = 0
        for file in args.positionals {
            let shown = FileName.display(file)
            let bytes: [UInt8]
            do {
                bytes = try ImageFile.read(file, limit: 16 << 20, regularOnly: file != "-")
            } catch {
                Console.err("imgscale: \(shown): \(ErrorText.describe(error))")
                status = 1
                continue
            }
            let lines = bytes.split(separator: UInt8(ascii: "\n")).filter { !$0.allSatisfy { $0 == 32 || $0 == 13 } }
            if lines.isEmpty {
                Console.err("imgscale: \(shown): holds no plan")
                status = 1
            }
            for (n, line) in lines.enumerated() {
                let place = lines.count > 1 ? "\(shown) line \(n + 1)" : shown
                do {
                    status = max(status, try replay(try JSONValue.parse(Array(line)), quiet: args.has("quiet"), verbose: args.has("verbose")))
                } catch let refusal as Refusal {
                    Console.err("imgscale: \(place): \(refusal.why)")
                    status = max(status, 1)
                } catch let error as JSONValue.ParseError {
                    Console.err("imgscale: \(place): not a plan: not JSON (\(error.message))")
                    status = max(status, 1)
                } catch {
                    Console.err("imgscale: \(place): \(ErrorText.describe(error))")
                    status = max(status, 1)
                }
            }
        }
        return status
    }

    /// Why a plan is not run: one line, after the plan's name.
    struct Refusal: Error, CustomStringConvertible {
        let why: String
        var description: String { why }
    }

    private static func replay(_ plan: JSONValue, quiet: Bool, verbose: Bool) throws -> Int32 {
        guard case .object(let fields) = plan else { throw Refusal(why: "not a plan: a JSON object per line is") }
        let field = { (key: String) in fields.first { $0.0 == key }?.1 }
        guard case .string(let made)? = field("imgscale") else {
            throw Refusal(why: "not a plan 'imgscale plan ... --json' printed (no \"imgscale\" version)")
        }
        guard made == Commands.version else {
            throw Refusal(why: "planned by imgscale \(made), and this is \(Commands.version): plan it again")
        }
        guard case .array(let words)? = field("command") else {
            throw Refusal(why: "this plan cannot be replayed: its input or an option is not UTF-8 text (\"command\" is null)")
        }
        let tokens = try words.map { word -> String in
            guard case .string(let s) = word else { throw Refusal(why: "\"command\" holds a word that is not a string") }
            return s
        }
        guard let name = tokens.first, Commands.plannable.contains(name),
              let command = Commands.all.first(where: { $0.name == name }) else {
            throw Refusal(why: "\"command\" must start with \(Commands.plannable.sorted().joined(separator: ", ")), not '\(tokens.first ?? "")'")
        }
        var args: ParsedArguments
        do {
            args = try ArgumentParser(options: command.options).parse(Array(tokens.dropFirst()))
        } catch let error as UsageError {
            throw Refusal(why: "its command is not one imgscale \(name) takes: \(error.message)")
        }
        guard case .string(let input)? = field("input"), args.positionals == [input], input != "-" else {
            throw Refusal(why: "\"command\" must name the plan's one \"input\", a file")
        }
        if let batch = batchOptions.sorted().first(where: args.has) {
            throw Refusal(why: "--\(batch) belongs to a batch, not to one input's plan")
        }
        for (option, most) in ceilings {
            guard let given = args.value(option) else { continue }
            let value = args.number(option) ?? args.int(option).map(Double.init) ?? args.bytes(option).map(Double.init) ?? -1
            if !(value > 0 && value <= most) {
                throw Refusal(why: "--\(option) \(given) lifts or raises a limit; a replayed plan may only lower it (above 0, at most its default)")
            }
        }
        if let profile = args.value("export-profile"), !["srgb", "p3", "display-p3", "adobergb", "adobe-rgb"].contains(profile.lowercased()) {
            throw Refusal(why: "--export-profile names a file; a replayed plan may name srgb, p3 or adobergb")
        }
        args.values[marker] = [plan.text]
        // How much the run says is this run's choice, not the plan's.
        if quiet { args.values["quiet"] = [""] }
        if verbose { args.values["verbose"] = [""] }
        return try command.run(args)
    }

    /// The recorded plan against the one just made for the same command: equal, or the
    /// first field that differs; then every output must lie below the working directory.
    static func check(recorded text: String, jobs: [Job], settings: JobSettings, args: ParsedArguments) throws {
        let recorded = try JSONValue.parse(Array(text.utf8))
        // Invariant: `replay` checked that the command is a plannable one naming one input.
        guard case .object(let fields) = recorded, case .array(let words)? = fields.first(where: { $0.0 == "command" })?.1,
              case .string(let command)? = words.first, jobs.count == 1 else {
            throw Refusal(why: "\"command\" must name the plan's one input")
        }
        let now = try JSONValue.parse(Array(try PlanPrinter.object(jobs[0], settings: settings, args: args, command: command).utf8))
        if let field = difference(recorded, now, at: "") {
            if field == "input_sha256" || field == "input_bytes" {
                throw Refusal(why: "the input's bytes are not the ones planned (\(field) differs); plan it again")
            }
            throw Refusal(why: "the plan is not what imgscale plans for its command now: \(field) differs; plan it again")
        }
        for path in jobs[0].outputs.map(\.path) where path != "-" {
            guard inWorkingDirectory(path) else {
                throw Refusal(why: "output '\(FileName.display(path))' is outside the working directory")
            }
        }
    }

    /// The first key path where `a` and `b` differ, or nil.
    private static func difference(_ a: JSONValue, _ b: JSONValue, at path: String) -> String? {
        switch (a, b) {
        case (.object(let x), .object(let y)):
            for (key, value) in x {
                guard let other = y.first(where: { $0.0 == key })?.1 else { return path + key }
                if let d = difference(value, other, at: path + key + ".") { return d }
            }
            return y.first { key, _ in !x.contains { $0.0 == key } }.map { path + $0.0 }
        case (.array(let x), .array(let y)):
            guard x.count == y.count else { return String(path.dropLast()) }
            for (i, (p, q)) in zip(x, y).enumerated() {
                if let d = difference(p, q, at: String(path.dropLast()) + "[\(i)].") { return d }
            }
            return nil
        default:
            return a == b ? nil : String(path.dropLast())
        }
    }

    /// A relative path with no `..`, whose bytes would land (links followed, the last
    /// one too: `PathIdentity.canonical`) in the working directory or below it.
    static func inWorkingDirectory(_ path: String) -> Bool {
        guard !path.hasPrefix("/"), !path.split(separator: "/").contains("..") else { return false }
        let cwd = PathIdentity.canonicalDirectory(".")
        return PathIdentity(path: path).canonical.hasPrefix(cwd == "/" ? "/" : cwd + "/")
    }

    /// The command that plans and makes this one input again: the command's name, its
    /// options in its table's order (the threads as resolved, so the plan's split is
    /// the same on any machine), `--`, the input. Nil when a word is not UTF-8 text,
    /// which JSON could not give back byte for byte.
    static func command(_ name: String, args: ParsedArguments, options: [OptionSpec], threads: Int, input: String) -> [String]? {
        var words = [name]
        for option in options where !batchOptions.contains(option.long) && option.long != "threads" {
            guard let values = args.values[option.long] else { continue }
            if option.value == nil {
                words.append("--" + option.long)
            } else {
                words += values.map { "--\(option.long)=\($0)" }
            }
        }
        words += ["--threads=\(threads)", "--", input]
        return words.allSatisfy({ FileName.bytes($0) == Array($0.utf8) }) ? words : nil
    }
}
