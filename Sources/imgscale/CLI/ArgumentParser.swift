import ImageScaler

/// What an option's value must be. The parser checks every value against its kind as
/// it reads it, so a command sees typed values only and every usage error is worded
/// from the table.
enum OptionKind: Sendable {
    /// Takes no value.
    case flag
    /// Any text: paths, templates.
    case text
    case int(ClosedRange<Int>)
    /// `WxH`; with `oneSided`, also `Wx` or `xH` (the open side `Size.unbounded`).
    case size(oneSided: Bool = false)
    /// `X,Y,W,H`.
    case rect
    /// One of these words (the first names of `aliases` map to the second).
    case choice([String], aliases: [String: String] = [:])
    /// `512M`, `2G`, bytes.
    case bytes
    /// `RRGGBB`, `RRGGBBAA`, `RGB`, `RGBA`, `transparent` or a CSS colour name.
    case color
    /// A number >= 0.
    case number
    /// `RADIUS[,PERCENT[,THRESHOLD]]`, Pillow's unsharp mask (its defaults 2, 150, 3 for
    /// what is left out); the value is optional: alone, the option means `Sharpen.mild`.
    case sharpen
    /// A number >= 0 that may be left out: alone, the option means its default (`--trim`).
    case optionalNumber
}

/// A value the parser has checked.
enum OptionValue: Sendable {
    case none
    case text(String)
    case int(Int)
    case size(Size)
    case rect(Rect)
    case bytes(Int)
    case color(RGBColor)
    case number(Double)
    case sharpen(RenderOptions.Sharpen)
}

/// One option a command accepts: its name, what its value must be, and its help.
/// `value` names the argument in help (nil for a flag).
struct OptionSpec: Sendable {
    let long: String
    let short: Character?
    let value: String?
    let kind: OptionKind
    let help: String
    /// May be given more than once, each value kept (`--size`, `--ignore`); any other
    /// option with a value given twice is a usage error, never silently the last.
    let repeatable: Bool

    init(_ long: String, short: Character? = nil, value: String, _ kind: OptionKind, _ help: String, repeatable: Bool = false) {
        self.long = long
        self.short = short
        self.value = value
        self.kind = kind
        self.help = help
        self.repeatable = repeatable
    }

    /// A flag (no `value`) or a free-text option.
    init(_ long: String, short: Character? = nil, value: String? = nil, _ help: String) {
        self.long = long
        self.short = short
        self.value = value
        self.kind = value == nil ? .flag : .text
        self.help = help
        repeatable = false
    }

    /// Checks `text` against the kind; the usage error names the option.
    func check(_ text: String) throws -> OptionValue {
        switch kind {
        case .flag: return .none
        case .text: return .text(text)
        case .int(let range): return .int(try ValueParser.int(text, option: long, range: range))
        case .size(let oneSided): return .size(try ValueParser.size(text, option: long, oneSided: oneSided))
        case .rect: return .rect(try ValueParser.rect(text, option: long))
        case .bytes: return .bytes(try ValueParser.byteSize(text, option: long))
        case .choice(let words, let aliases):
            // Values are case-insensitive, as ImageMagick's are (--gravity NORTH, --format JPEG).
            let word = aliases[text.lowercased()] ?? text.lowercased()
            guard words.contains(word) else {
                throw UsageError(message: "--\(long) must be one of \(words.joined(separator: "|")), not '\(text)'"
                                 + Suggestion.hint(text, among: words))
            }
            return .text(word)
        case .color:
            guard let colour = RGBColor(parsing: text) else {
                throw UsageError(message: "--\(long) must be RRGGBB, RRGGBBAA, RGB or RGBA hex, 'transparent' or a CSS colour name, like ffffff or navy, not '\(text)'")
            }
            return .color(colour)
        case .number:
            guard let v = Double(text), v.isFinite, v >= 0 else {
                throw UsageError(message: "--\(long) must be a number of \(value ?? "units") >= 0, not '\(text)'")
            }
            return .number(v)
        case .optionalNumber:
            if text.isEmpty { return .none }
            guard let v = Double(text), v.isFinite, v >= 0 else {
                throw UsageError(message: "--\(long) must be a number of \(value ?? "units") >= 0 or left out, not '\(text)'")
            }
            return .number(v)
        case .sharpen:
            if text.isEmpty { return .sharpen(.mild) }
            let parts = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard (1...3).contains(parts.count), let radius = Double(parts[0]), radius.isFinite, (0...100).contains(radius),
                  let percent = parts.count > 1 ? Int(parts[1]) : 150, (0...10000).contains(percent),
                  let threshold = parts.count > 2 ? Int(parts[2]) : 3, (0...255).contains(threshold) else {
                throw UsageError(message: "--\(long) must be RADIUS[,PERCENT[,THRESHOLD]] (radius 0-100, percent 0-10000, threshold 0-255), like 1,80,2, or given alone; not '\(text)'")
            }
            return .sharpen(RenderOptions.Sharpen(radius: radius, percent: percent, threshold: threshold))
        }
    }

    /// Whether the option's value may be left out.
    var takesOptionalValue: Bool {
        switch kind {
        case .sharpen, .optionalNumber: return true
        default: return false
        }
    }

    /// Whether `text` may be this option's optional value rather than a positional.
    func takesOptional(_ text: String) -> Bool {
        switch kind {
        case .sharpen: return !text.isEmpty && text.allSatisfy { $0.isASCII && ($0.isNumber || $0 == "." || $0 == ",") }
        case .optionalNumber: return Double(text) != nil && text.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") }
        default: return false
        }
    }
}

/// A usage error: what is wrong, shown before the command's usage line; exit status 2.
struct UsageError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// The result of parsing: checked option values by long name (repeatable options keep
/// every value, in order) and the positional arguments.
struct ParsedArguments {
    var values: [String: [String]] = [:]
    var typed: [String: [OptionValue]] = [:]
    var positionals: [String] = []

    func has(_ long: String) -> Bool { values[long] != nil }
    /// The last value given, as GNU tools let a later option override an earlier one.
    func value(_ long: String) -> String? { values[long]?.last }

    /// The last checked value of `long`, when it is of the kind `extract` takes.
    private func last<T>(_ long: String, _ extract: (OptionValue) -> T?) -> T? {
        typed[long]?.last.flatMap(extract)
    }

    func int(_ long: String) -> Int? { last(long) { if case .int(let v) = $0 { v } else { nil } } }
    func size(_ long: String) -> Size? { last(long) { if case .size(let v) = $0 { v } else { nil } } }
    /// Every size given, in order (a repeated `--size` asks for several outputs).
    func sizes(_ long: String) -> [Size] { (typed[long] ?? []).compactMap { if case .size(let v) = $0 { v } else { nil } } }
    func rect(_ long: String) -> Rect? { last(long) { if case .rect(let v) = $0 { v } else { nil } } }
    /// Every rect given, in order (a repeated `--ignore`).
    func rects(_ long: String) -> [Rect] { (typed[long] ?? []).compactMap { if case .rect(let v) = $0 { v } else { nil } } }
    func bytes(_ long: String) -> Int? { last(long) { if case .bytes(let v) = $0 { v } else { nil } } }
    func color(_ long: String) -> RGBColor? { last(long) { if case .color(let v) = $0 { v } else { nil } } }
    func number(_ long: String) -> Double? { last(long) { if case .number(let v) = $0 { v } else { nil } } }
    func sharpen(_ long: String) -> RenderOptions.Sharpen? { last(long) { if case .sharpen(let v) = $0 { v } else { nil } } }
    /// Every number given, in order (a repeated `--scale`).
    func numbers(_ long: String) -> [Double] { (typed[long] ?? []).compactMap { if case .number(let v) = $0 { v } else { nil } } }
    /// Every word a repeatable `.choice` option was given, in order, as enum values.
    func choices<T: RawRepresentable>(_ long: String, as: T.Type) -> [T] where T.RawValue == String {
        (typed[long] ?? []).compactMap { if case .text(let word) = $0 { T(rawValue: word) } else { nil } }
    }

    /// A `.choice` option's word as an enum value (the table guarantees it parses).
    func choice<T: RawRepresentable>(_ long: String, as: T.Type) -> T? where T.RawValue == String {
        last(long) { if case .text(let word) = $0 { T(rawValue: word) } else { nil } }
    }
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
                result.typed[spec.long, default: []].append(.none)
                return
            }
            let text: String
            if let inline {
                text = inline
            } else if spec.takesOptionalValue {
                // An optional value: the next argument when it has the value's shape
                // (a file named like "1,80,2" is then given as ./1,80,2), else none.
                if i + 1 < args.count, spec.takesOptional(args[i + 1]) {
                    i += 1
                    text = args[i]
                } else {
                    text = ""
                }
            } else {
                guard i + 1 < args.count else { throw UsageError(message: "option '--\(spec.long)' needs a value (\(spec.value!))") }
                i += 1
                text = args[i]
            }
            if !spec.repeatable, let earlier = result.values[spec.long]?.first {
                throw UsageError(message: "--\(spec.long) given twice ('\(FileName.display(earlier))' and '\(FileName.display(text))'); it takes one value")
            }
            result.typed[spec.long, default: []].append(try spec.check(text))
            result.values[spec.long, default: []].append(text)
        }
        while i < args.count {
            let arg = args[i]
            if arg == "--" {
                result.positionals.append(contentsOf: args[(i + 1)...])
                break
            } else if arg.hasPrefix("--") {
                let body = arg.dropFirst(2)
                let name = body.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
                // Invariant: the index is looked for only where `contains` found it.
                let inline = body.contains("=") ? String(body[body.index(after: body.firstIndex(of: "=")!)...]) : nil
                guard let spec = options.first(where: { $0.long == name }) else {
                    throw UsageError(message: "unknown option '--\(name)'" + Suggestion.option(name, among: options.map(\.long)))
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
