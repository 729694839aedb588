/// One subcommand: its help text and option table, and what runs it. `run` returns the
/// exit status (0 success, 1 an input failed) or throws `UsageError` (status 2).
struct CommandSpec: Sendable {
    let name: String
    let summary: String
    let usage: String
    let examples: [String]
    let details: String
    let options: [OptionSpec]
    let run: @Sendable (ParsedArguments) throws -> Int32

    var help: String {
        var lines = ["usage: \(usage)", "", summary]
        if !details.isEmpty { lines += ["", details] }
        lines += ["", "options:"]
        for o in options + [OptionSpec("help", short: "h", "show this help")] {
            var flag = o.short.map { "-\($0), " } ?? "    "
            flag += "--\(o.long)" + (o.value.map { " \($0)" } ?? "")
            let pad = max(1, 28 - flag.count)
            lines.append("  " + flag + String(repeating: " ", count: pad) + o.help)
        }
        lines += ["", "examples:"] + examples.map { "  " + $0 }
        return lines.joined(separator: "\n")
    }
}
