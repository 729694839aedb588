#if canImport(Glibc)
import Glibc
#endif
import ImageScaler

/// Turns the command line into the list of jobs, and finds every usage error (output
/// collisions, `-o` with several inputs, unknown extensions) before any work starts.
struct BatchPlanner {
    let args: ParsedArguments
    let operation: ImageOperation

    func jobs() throws -> [Job] {
        var inputs = args.positionals
        if let list = args.value("files-from") {
            if list == "-" && inputs.contains("-") {
                throw UsageError(message: "stdin ('-') cannot be both an input and the --files-from list")
            }
            inputs += try readList(list, nul: args.has("null"))
        }
        guard !inputs.isEmpty else { throw UsageError(message: "no input files") }
        if inputs.filter({ $0 == "-" }).count > 1 { throw UsageError(message: "stdin ('-') can be read only once") }
        let format = try args.value("format").map { try ValueParser.choice($0 == "jpg" ? "jpeg" : $0, option: "format", as: ImageFormat.self) }

        var jobs: [Job] = []
        if let output = args.value("output") {
            guard inputs.count == 1 else {
                throw UsageError(message: "-o takes exactly one input, got \(inputs.count); use --out-dir DIR for several")
            }
            if args.has("out-dir") { throw UsageError(message: "-o and --out-dir cannot be used together") }
            jobs.append(Job(input: inputs[0], output: output, format: try outputFormat(output, override: format)))
        } else {
            guard let dir = args.value("out-dir") else {
                throw UsageError(message: "no output: give -o OUTPUT for one input, or --out-dir DIR")
            }
            let template = args.value("name") ?? "{name}"
            for input in inputs {
                guard input != "-" else { throw UsageError(message: "stdin ('-') needs -o OUTPUT") }
                var name = try expand(template, input: input)
                if let format { name = replaceExtension(name, with: format.fileExtension) }
                let path = dir.hasSuffix("/") ? dir + name : dir + "/" + name
                jobs.append(Job(input: input, output: path, format: try outputFormat(path, override: nil)))
            }
            try checkCollisions(jobs)
        }
        return try shard(jobs)
    }

    private func outputFormat(_ path: String, override: ImageFormat?) throws -> ImageFormat {
        if let override { return override }
        if path == "-" { throw UsageError(message: "writing to stdout ('-o -') needs --format png|jpeg") }
        guard let f = ImageFormat.fromExtension(of: path) else {
            throw UsageError(message: "cannot tell the output format of '\(path)': use a .png, .jpg or .jpeg name, or --format")
        }
        return f
    }

    private func expand(_ template: String, input: String) throws -> String {
        let slash = input.lastIndex(of: "/")
        let name = slash.map { String(input[input.index(after: $0)...]) } ?? input
        let dir = slash.map { String(input[..<$0]) } ?? "."
        let dot = name.lastIndex(of: ".").flatMap { $0 == name.startIndex ? nil : $0 }
        let stem = dot.map { String(name[..<$0]) } ?? name
        let ext = dot.map { String(name[name.index(after: $0)...]) } ?? ""
        let size = operation.requestedSize
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
            case "ext": out += ext
            case "dir": out += dir
            case "w", "h":
                guard let size else { throw UsageError(message: "--name token {\(token)} needs a size, which this command has not") }
                out += String(token == "w" ? size.width : size.height)
            default:
                throw UsageError(message: "--name has unknown token {\(token)}; known: {name} {stem} {ext} {dir} {w} {h}")
            }
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }

    private func replaceExtension(_ name: String, with ext: String) -> String {
        let base = name.lastIndex(of: "/").map { name.index(after: $0) } ?? name.startIndex
        if let dot = name[base...].lastIndex(of: "."), dot != base {
            return String(name[..<dot]) + "." + ext
        }
        return name + "." + ext
    }

    /// Two inputs writing one output would race and lose one; an output that is an
    /// input would destroy it. Both are refused before any work.
    private func checkCollisions(_ jobs: [Job]) throws {
        var seen: [String: String] = [:]
        let inputs = Dictionary(jobs.map { (fileID($0.input), $0.input) }, uniquingKeysWith: { a, _ in a })
        for job in jobs {
            let key = normalise(job.output)
            if let other = seen[key] {
                throw UsageError(message: "inputs '\(other)' and '\(job.input)' would both write '\(job.output)'")
            }
            seen[key] = job.input
            if let id = fileID(job.output), let input = inputs[id] ?? nil {
                throw UsageError(message: "output '\(job.output)' is the input '\(input)'; use -o to overwrite an input on purpose")
            }
        }
    }

    private func normalise(_ path: String) -> String {
        var parts: [Substring] = []
        for p in path.split(separator: "/", omittingEmptySubsequences: true) where p != "." {
            parts.append(p)
        }
        return (path.hasPrefix("/") ? "/" : "") + parts.joined(separator: "/")
    }

    private func fileID(_ path: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return "\(st.st_dev):\(st.st_ino)"
    }

    /// `--shard K/N`: input i (0-based) belongs to shard i mod N + 1, so the shards are
    /// disjoint, cover everything, and stay stable when the list is.
    private func shard(_ jobs: [Job]) throws -> [Job] {
        guard let spec = args.value("shard") else { return jobs }
        let parts = spec.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = ValueParser.positive(parts[0]), let n = ValueParser.positive(parts[1]), k <= n else {
            throw UsageError(message: "--shard must be K/N with 1 <= K <= N, like 2/8, not '\(spec)'")
        }
        return jobs.enumerated().filter { $0.offset % n == k - 1 }.map(\.element)
    }

    private func readList(_ path: String, nul: Bool) throws -> [String] {
        let bytes: [UInt8]
        do { bytes = try ImageFile.read(path) } catch {
            throw UsageError(message: "--files-from \(path): \(error)")
        }
        let separator: UInt8 = nul ? 0 : 10
        return bytes.split(separator: separator, omittingEmptySubsequences: true).map {
            var line = String(decoding: $0, as: UTF8.self)
            if !nul && line.hasSuffix("\r") { line.removeLast() }
            return line
        }.filter { !$0.isEmpty }
    }
}
