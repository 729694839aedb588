import ImageScaler

/// `imgscale plan COMMAND ...`: the jobs the same command line would run, each printed
/// as the library plans it (`JobPlan`), and nothing decoded or written. Text by default,
/// one JSON object per input with `--json`. An input that cannot be planned gets its
/// one line, as in a batch, and exit status 1.
enum PlanPrinter {
    static func run(_ jobs: [Job], settings: JobSettings, json: Bool, args: ParsedArguments, command: String) -> Int32 {
        var status: Int32 = 0
        for job in jobs {
            do {
                if json {
                    Console.out(try object(job, settings: settings, args: args, command: command))
                } else {
                    let data = try ImageFile.readImage(job.input, limit: settings.decode.maxMemory)
                    let plan = try plan(data, job: job, settings: settings)
                    Console.out("plan: \(FileName.display(job.input))")
                    let lines = plan.lines(names: job.outputs.map { FileName.display($0.path) })
                    lines.forEach { Console.out("  " + $0) }
                }
            } catch {
                Console.err("imgscale: \(FileName.display(job.input)): \(ErrorText.describe(error))")
                status = 1
            }
        }
        return status
    }

    private static func plan(_ data: [UInt8], job: Job, settings: JobSettings) throws -> JobPlan {
        let outputs = job.outputs.map { RenderOutput($0.operation, as: $0.format) }
        return try ImageOperation.plan(data, outputs: outputs, decode: settings.decode, encode: settings.encode, settings: settings.render)
    }

    /// A job's plan as `--json` prints it, with what `imgscale run` replays it from: this
    /// version, the input's length and SHA-256, and the command for this input alone.
    static func object(_ job: Job, settings: JobSettings, args: ParsedArguments, command: String) throws -> String {
        let data = try ImageFile.readImage(job.input, limit: settings.decode.maxMemory)
        let options = Commands.all.first { $0.name == command }?.options ?? []
        let words = PlanReplay.command(command, args: args, options: options, threads: settings.render.threads, input: job.input)
        return text(try plan(data, job: job, settings: settings), job: job, replay: [
            ("imgscale", JSON.quote(Commands.version)), ("input_bytes", "\(data.count)"), ("input_sha256", JSON.quote(SHA256.hex(data))),
            ("command", words.map(list) ?? "null"),
        ])
    }

    /// The plan as one JSON object.
    private static func text(_ plan: JobPlan, job: Job, replay: [(String, String)]) -> String {
        var j = JSON()
        for (key, raw) in replay { j.add(key, raw: raw) }
        j.add(path: "input", job.input)
        j.add("format", plan.input.format.rawValue)
        j.add("width", plan.input.size.width)
        j.add("height", plan.input.size.height)
        j.add("channels", plan.input.channels)
        j.add("orientation", plan.input.orientation.rawValue)
        j.add("decodes", raw: "[" + plan.decodes.map { d in
            var o = JSON()
            o.add("shrink", d.shrink)
            o.add("window", d.window.map { "\($0)" })
            o.add("split", d.split)
            if let drawn = d.drawn { o.add("drawn", "\(drawn)") }
            o.add("outputs", raw: "[" + d.outputs.map { "\($0 + 1)" }.joined(separator: ",") + "]")
            return o.text
        }.joined(separator: ",") + "]")
        j.add("outputs", raw: "[" + zip(plan.outputs, job.outputs).map { o, out in
            var e = JSON()
            e.add(path: "path", out.path)
            e.add("operation", o.operation)
            e.add("width", o.size.width)
            e.add("height", o.size.height)
            e.add("path_kind", o.path)
            e.add("stages", raw: list(o.stages.map(\.description)))
            e.add("format", o.format.rawValue)
            e.add("settings", raw: list(o.settings))
            e.add("metadata", raw: list(o.metadata))
            e.add("warnings", raw: list(o.dropped))
            return e.text
        }.joined(separator: ",") + "]")
        j.add("threads", plan.threads)
        j.add("library_threads", plan.libraryThreads)
        j.add("memory", plan.memory)
        j.add("schedule", plan.schedule)
        j.add("budget", plan.budget >= Int.max / 2 ? nil : plan.budget)
        return j.text
    }

    private static func list(_ items: [String]) -> String {
        "[" + items.map(JSON.quote).joined(separator: ",") + "]"
    }
}
