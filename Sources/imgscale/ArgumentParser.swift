/// One option a command accepts. `value` names the argument (shown in help) or is nil
/// for a flag that takes none.
struct OptionSpec: Sendable {
    let long: String
    let short: Character?
    let value: String?
    let help: String

    init(_ long: String, short: Character? = nil, value: String? = nil, _ help: String) {
        self.long = long
        self.short = short
        self.value = value
        self.help = help
    }
}

/// A usage error: what is wrong, shown before the command's usage line; exit status 2.
struct UsageError: Error {
    let message: String
}

/// The result of parsing: option values by long name (repeatable options keep every
/// value, in order) and the positional arguments.
struct ParsedArguments {
    var values: [String: [String]] = [:]
    var positionals: [String] = []

    func has(_ long: String) -> Bool { values[long] != nil }
    /// The last value given, as GNU tools let a later option override an earlier one.
    func value(_ long: String) -> String? { values[long]?.last }
}

/// A small GNU-style parser driven by a table of `OptionSpec`s: options may stand before
/// or after positionals, `--opt value`, `--opt=value`, `-o value`, `-ovalue`, bundled
/// short flags (`-qv`), `--` ends the options and a lone `-` is a positional (stdin).
struct ArgumentParser {
    let options: [OptionSpec]

    func parse(_ args: [String]) throws -> ParsedArguments {
        var result = ParsedArguments()
        var i = 0
        func take(_ spec: OptionSpec, inline: String?) throws {
            if spec.value == nil {
                if inline != nil { throw UsageError(message: "option '--\(spec.long)' takes no value") }
                result.values[spec.long, default: []].append("")
                return
            }
            if let inline {
                result.values[spec.long, default: []].append(inline)
                return
            }
            guard i + 1 < args.count else { throw UsageError(message: "option '--\(spec.long)' needs a value (\(spec.value!))") }
            i += 1
            result.values[spec.long, default: []].append(args[i])
        }
        while i < args.count {
            let arg = args[i]
            if arg == "--" {
                result.positionals.append(contentsOf: args[(i + 1)...])
                break
            } else if arg.hasPrefix("--") {
                let body = arg.dropFirst(2)
                let name = body.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
                let inline = body.contains("=") ? String(body[body.index(after: body.firstIndex(of: "=")!)...]) : nil
                guard let spec = options.first(where: { $0.long == name }) else {
                    throw UsageError(message: "unknown option '--\(name)'" + Suggestion.hint(name, among: options.map(\.long), prefix: "--"))
                }
                try take(spec, inline: inline)
            } else if arg.hasPrefix("-") && arg.count > 1 {
                var rest = Substring(arg.dropFirst())
                while let c = rest.first {
                    rest = rest.dropFirst()
                    guard let spec = options.first(where: { $0.short == c }) else {
                        throw UsageError(message: "unknown option '-\(c)'")
                    }
                    if spec.value != nil {
                        try take(spec, inline: rest.isEmpty ? nil : String(rest))
                        break
                    }
                    try take(spec, inline: nil)
                }
            } else {
                result.positionals.append(arg)
            }
            i += 1
        }
        return result
    }
}
