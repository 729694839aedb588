import ImageScaler

/// `imgscale merge-reports REPORT...`: the `--report` files of a sharded run added up.
/// It gives how many outputs were ok, skipped and failed, each failure with its input,
/// error and report, and each input that more than one shard did (the shards were given
/// different lists). Each line is read alone: a shard killed mid-line costs that line,
/// counted as damaged, even when it was cut inside a UTF-8 sequence. Exit 1 when
/// anything failed, was done twice or was damaged.
enum MergeReportsCommand {
    /// One report file may hold a line for each of millions of outputs; past this it is
    /// not a report.
    static let fileLimit = 1 << 30

    private struct Failure {
        let input: JSONValue, output: JSONValue, error: JSONValue, report: String
    }

    static func run(_ args: ParsedArguments) throws -> Int32 {
        let reports = args.positionals
        guard !reports.isEmpty else { throw UsageError(message: "no report files (give the --report files of each shard)") }
        var counts: [String: Int] = [:]
        var damaged = 0
        var failures: [Failure] = []
        // Each (input, output) pair and the reports that did it, in the order first seen.
        var seen: [String: [String]] = [:]
        var seenOrder: [(key: String, input: String, output: String)] = []
        var unreadable = false
        for path in reports {
            let bytes: [UInt8]
            do { bytes = try ImageFile.read(path, limit: fileLimit) } catch {
                Console.err("imgscale merge-reports: \(FileName.display(path)): cannot be read: \(ErrorText.describe(error))")
                unreadable = true
                continue
            }
            for (n, line) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
                guard line.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { continue }
                let fields: [(String, JSONValue)], status: String
                do {
                    guard String(validating: line, as: UTF8.self) != nil else { throw JSONValue.ParseError(message: "not UTF-8") }
                    guard case .object(let f) = try JSONValue.parse(Array(line)), case .string(let s)? = f.first(where: { $0.0 == "status" })?.1 else {
                        throw JSONValue.ParseError(message: "not a report object")
                    }
                    (fields, status) = (f, s)
                } catch let e as JSONValue.ParseError {
                    Console.err("imgscale merge-reports: \(FileName.display(path)):\(n + 1): damaged line (\(e.message)); a shard killed while writing?")
                    damaged += 1
                    continue
                }
                func field(_ k: String) -> JSONValue { fields.first(where: { $0.0 == k })?.1 ?? .null }
                counts[status, default: 0] += 1
                // A name that is not UTF-8 is keyed by its exact bytes, as imgscale gives them.
                let input = text(field("input_hex")) ?? text(field("input")) ?? "", output = text(field("output_hex")) ?? text(field("output")) ?? ""
                let key = input + "\u{0}" + output
                if seen[key] == nil {
                    seen[key] = [path]
                    seenOrder.append((key, text(field("input")) ?? "", text(field("output")) ?? ""))
                } else if !seen[key]!.contains(path) {
                    seen[key]!.append(path)
                }
                if status == "failed" {
                    failures.append(Failure(input: field("input"), output: field("output"), error: field("error"), report: path))
                }
            }
        }
        let twice = seenOrder.filter { seen[$0.key]!.count > 1 }.sorted { ($0.input, $0.output) < ($1.input, $1.output) }
        let (ok, skipped, failed) = (counts["ok", default: 0], counts["skipped", default: 0], counts["failed", default: 0])
        if args.has("json") {
            var j = JSON()
            j.add("reports", reports.count)
            j.add("outputs", ok + skipped + failed)
            j.add("ok", ok)
            j.add("skipped", skipped)
            j.add("failed", failed)
            j.add("unreadable_lines", damaged)
            j.add("done_twice", twice.count)
            j.add("failures", raw: "[" + failures.map { f in
                var o = JSON()
                o.add("input", raw: f.input.text)
                o.add("output", raw: f.output.text)
                o.add("error", raw: f.error.text)
                o.add(path: "report", f.report)
                return o.text
            }.joined(separator: ",") + "]")
            Console.out(j.text)
        } else {
            Console.out("\(ok + skipped + failed) outputs in \(reports.count) reports: \(ok) ok, \(skipped) skipped, \(failed) failed"
                + (twice.isEmpty ? "" : ", \(twice.count) done by more than one shard")
                + (damaged == 0 ? "" : ", \(damaged) damaged lines"))
            for f in failures {
                Console.out("failed: \(text(f.input) ?? "?"): \(text(f.error) ?? "?")  (\(FileName.display(f.report)))")
            }
            for t in twice { Console.out("twice: \(t.input) -> \(t.output)") }
        }
        return failures.isEmpty && twice.isEmpty && damaged == 0 && !unreadable ? 0 : 1
    }

    private static func text(_ v: JSONValue) -> String? {
        if case .string(let s) = v { return s }
        return nil
    }
}
