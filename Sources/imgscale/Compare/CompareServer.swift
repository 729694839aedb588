import Glibc
import ImageScaler

/// `compare --server`: one JSON request a line on stdin, `{"expected": PATH, "actual":
/// PATH, "diff": PATH?, "options": {...}}` (the options are a rules file's keys), and one
/// JSON result a line on stdout, in the order asked: the pair's object as `--json` gives
/// it, or `{"request": N, "error": ...}` for a request that could not be read. Requests
/// waiting together are compared `-j` at a time in forked workers, as directory mode's
/// pairs are, so a decoder that crashes costs its pair only. EOF ends it, exit 0.
struct CompareServer {
    let command: CompareCommand
    let width: Int

    /// A request read, or why it could not be.
    enum Request: Sendable {
        case pair(expected: String, actual: String, diff: String?, rule: GoldenRules.Rule?)
        case bad(String)
    }

    func run() -> Int32 {
        var input = LineReader(fd: 0)
        var number = 0
        var guarded = DiffGuard()
        let limits = WorkerPool.Limits(budget: command.decode.maxMemory, images: 2, cpuSeconds: nil)
        let alone = ServerWorker(limits: limits) { line, number in serve(CompareServer.parse(line), number: number) }
        while true {
            let lines = input.next(atMost: 4096)
            guard !lines.isEmpty else { return 0 }
            number += lines.count
            let first = number - lines.count + 1
            // Parsed here, in the parent, which alone knows every image compared so far.
            var requests = lines.map { $0.overlong ? .bad("the request is longer than \(LineReader.maxLine >> 20) MiB; skipped") : CompareServer.parse($0.text) }
            for case .pair(let expected, let actual, _, _) in requests { guarded.compare(expected: expected, actual: actual) }
            for (i, r) in requests.enumerated() {
                if case .pair(_, _, let diff?, _) = r, let why = guarded.refusal(diff) { requests[i] = .bad(why) }
            }
            let batch = requests
            let count = lines.count
            var results = [CompareCommand.Outcome?](repeating: nil, count: count)
            @Sendable func outcome(_ i: Int) -> CompareCommand.Outcome { serve(batch[i], number: first + i) }
            if count == 1, case .pair = batch[0], WorkerPool.available {
                // A test runner's request alone: to the worker kept for it.
                results[0] = alone.run(line: lines[0].text, number: first) {
                    CompareServer.failure(first, "the comparison's worker died: \($0)")
                }
            } else if WorkerPool.available {
                let pool = WorkerPool(limits: limits)
                let finished = pool.runAll(count: count, width: min(width, count), run: outcome, record: { results[$0] = $1 },
                                           crashed: { i, why in CompareServer.failure(first + i, "the comparison's worker died: \(why)") })
                // Stopped (SIGTERM, SIGINT): the answers made are given, then the server ends.
                if !finished {
                    Console.write(1, results.compactMap { $0.map { $0.json + "\n" } }.joined())
                    return 128 + pool.stoppedBy
                }
            } else {
                for i in 0..<count { results[i] = outcome(i) }
            }
            // One write a batch: a client reading line by line sees them all at once.
            Console.write(1, results.map { ($0?.json ?? CompareServer.failure(0, "not compared").json) + "\n" }.joined())
        }
    }

    private func serve(_ request: Request, number: Int) -> CompareCommand.Outcome {
        switch request {
        case .bad(let why):
            return CompareServer.failure(number, why)
        case .pair(let expected, let actual, let diff, let rule):
            var c = command
            do {
                // A diff written over either image would destroy a golden.
                if let diff { try BatchPlanner.checkSideOutput(diff, option: "diff", inputs: [expected, actual], outputs: []) }
                if let rule { try c.apply([rule], goldens: ".") }
            } catch let e as UsageError {
                return CompareServer.failure(number, e.message)
            } catch {
                return CompareServer.failure(number, "\(error)")
            }
            CrashGuard.faultForTests(on: actual)
            let (golden, kind) = c.template?.resolve(pair: expected) ?? (expected, "")
            var o: CompareCommand.Outcome
            if kind == "missing" {
                var j = JSON()
                j.add(path: "expected", golden)
                j.add(path: "actual", actual)
                j.add("result", "missing")
                j.add("error", "no golden at \(FileName.display(golden))" + (c.template?.fallback == true ? " nor at \(FileName.display(expected))" : ""))
                o = CompareCommand.Outcome(name: actual, expected: golden, actual: actual, status: .missing, line: "", json: j.text)
            } else {
                o = c.compare(name: actual, expected: golden, actual: actual, diff: diff)
            }
            if let template = c.template { o.json = template.annotate(o.json, kind: kind) }
            // Numbered as asked, so a client can check it holds the answer it expects.
            if o.json.hasPrefix("{") { o.json = "{\"request\":\(number)," + o.json.dropFirst() }
            return o
        }
    }

    private static func failure(_ number: Int, _ why: String) -> CompareCommand.Outcome {
        var j = JSON()
        j.add("request", number)
        j.add("result", "error")
        j.add("error", why)
        return CompareCommand.Outcome(name: "", expected: "", actual: "", status: .error, line: why, json: j.text)
    }

    static func parse(_ text: String) -> Request {
        do {
            guard case .object(let fields) = try JSONValue.parse(Array(text.utf8)) else { return .bad("a request is a JSON object") }
            var expected: String?, actual: String?, diff: String?, rule: GoldenRules.Rule?
            for (key, value) in fields {
                switch (key, value) {
                case ("expected", .string(let s)): expected = s
                case ("actual", .string(let s)): actual = s
                case ("diff", .string(let s)): diff = s
                case ("id", _): break
                case ("options", .object(let o)):
                    rule = try GoldenRules.rule(o, index: 0, line: 0, pattern: "*", label: "options", allowing: [],
                                                fail: { GoldenRules.Invalid(message: $0) })
                default: return .bad("unknown or mistyped key \"\(key)\" (known: expected, actual, diff, id, options)")
                }
            }
            guard let expected, let actual, !expected.isEmpty, !actual.isEmpty else { return .bad("a request needs \"expected\" and \"actual\" paths") }
            return .pair(expected: expected, actual: actual, diff: diff, rule: rule)
        } catch let e as JSONValue.ParseError {
            return .bad("not JSON: \(e.message)")
        } catch {
            return .bad("\(error)")
        }
    }
}
