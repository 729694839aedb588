import Glibc
import ImageCompare
import ImageScaler

/// The limits of a goldens directory per image: `imgscale-goldens.json` in the EXPECTED
/// directory, a list of rules each naming the pairs it applies to by a glob of their
/// relative paths. Every rule that matches a pair applies, the least specific first, so
/// for each setting the most specific rule that gives it wins; the command line's limits
/// lie beneath them all. A file that is not valid is refused whole, naming the rule and
/// the key: a golden suite must not run under limits nobody wrote.
struct GoldenRules {
    static let fileName = "imgscale-goldens.json"

    struct Rule {
        let index: Int
        /// Where it begins in the file, for messages.
        let line: Int
        let pattern: String
        var rule: ImageComparison.Rule?
        var allowed: CompareLimits.Allowance?
        var minPSNR: Double??
        var minSSIM: Double??
        var ignore: [Rect]?
        var mask: String?
        var skip: Bool?
        var reason: String?

        /// Exact paths first, then the patterns with the most literal characters; a
        /// later rule before an earlier one of the same weight.
        var specificity: Int {
            let wild = pattern.contains { "*?".contains($0) }
            return wild ? pattern.filter { !"*?".contains($0) }.count : Int.max / 2
        }
    }

    let rules: [Rule]
    let path: String

    struct Invalid: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    /// The directory's rules, nil when it has none.
    static func load(directory: String) throws -> GoldenRules? {
        let path = directory.hasSuffix("/") ? directory + fileName : directory + "/" + fileName
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        func bad(_ what: String) -> Invalid { Invalid(message: "\(FileName.display(path)): \(what)") }
        // A FIFO or a device would be read forever, or block, and a link could bring in
        // limits from anywhere: only a file is a rules file.
        guard st.st_mode & S_IFMT == S_IFREG else { throw bad("is \(ImageFile.kind(st.st_mode)), not a regular file") }
        let bytes: [UInt8]
        do { bytes = try ImageFile.read(path, limit: 1 << 20, regularOnly: true) } catch { throw bad("cannot be read: \(ErrorText.describe(error)) (a rules file holds at most 1 MiB)") }
        return try parse(bytes, path: path)
    }

    /// The rules a file at `path` holds in `bytes` (named in its messages).
    static func parse(_ bytes: [UInt8], path: String) throws -> GoldenRules {
        func bad(_ what: String) -> Invalid { Invalid(message: "\(FileName.display(path)): \(what)") }
        let document: JSONValue, lines: [Int]
        do { (document, lines) = try JSONValue.parseWithLines(bytes) } catch let e as JSONValue.ParseError { throw bad("not JSON: \(e.message)") }
        guard case .object(let top) = document else { throw bad("the file must hold an object with \"rules\"") }
        var list: [JSONValue] = []
        for (key, value) in top {
            switch key {
            case "version":
                guard value == .number(1) else { throw bad("\"version\" must be 1") }
            case "rules":
                guard case .array(let items) = value else { throw bad("\"rules\" must be a list") }
                list = items
            default: throw bad("unknown key \"\(key)\" (known: version, rules)")
            }
        }
        var rules: [Rule] = []
        for (i, item) in list.enumerated() {
            let n = i + 1
            guard case .object(let fields) = item else { throw bad("rule \(n) must be an object") }
            let line = lines.count == list.count ? lines[i] : 0
            func badRule(_ what: String) -> Invalid { Invalid(message: "\(FileName.display(path)):\(line): \(what)") }
            guard case .string(let pattern)? = fields.first(where: { $0.0 == "match" })?.1, !pattern.isEmpty else {
                throw badRule("rule \(n) needs \"match\", a glob of relative paths such as \"icons/*.png\"")
            }
            rules.append(try rule(fields, index: n, line: line, pattern: pattern, label: "rule \(n)", fail: badRule))
        }
        return GoldenRules(rules: rules, path: path)
    }

    /// One rule's settings from its JSON object (a rules file's rule, or a server
    /// request's options); `label` names it in messages, `allowing` the keys the caller
    /// reads itself.
    static func rule(_ fields: [(String, JSONValue)], index: Int, line: Int, pattern: String, label: String,
                     allowing: Set<String> = ["match"], fail: (String) -> Invalid) throws -> Rule {
        var r = Rule(index: index, line: line, pattern: pattern)
        func number(_ v: JSONValue, _ key: String, _ range: ClosedRange<Double>) throws -> Double {
            guard case .number(let d) = v, range.contains(d) else { throw fail("\(label): \"\(key)\" must be a number from \(range.lowerBound) to \(range.upperBound)") }
            return d
        }
        var rulesGiven: [String] = []
        var antialiasing: Bool? = nil
        for (key, value) in fields where !allowing.contains(key) {
            switch key {
            case "tolerance":
                let t = try number(value, key, 0...255)
                guard t == t.rounded() else { throw fail("\(label): \"tolerance\" must be a whole number of levels") }
                r.rule = .tolerance(Int(t)); rulesGiven.append(key)
            case "threshold":
                r.rule = .perceptual(threshold: try number(value, key, 0...1), countAntialiased: false); rulesGiven.append(key)
            case "max_delta_e":
                r.rule = .deltaE(try number(value, key, 0...1000)); rulesGiven.append(key)
            case "antialiasing":
                guard case .string(let s) = value, s == "count" || s == "ignore" else { throw fail("\(label): \"antialiasing\" must be \"count\" or \"ignore\"") }
                antialiasing = s == "count"
            case "max_pixels_differ":
                switch value {
                case .number(let d) where d >= 0 && d == d.rounded() && d < 0x1p62: r.allowed = .pixels(Int(d))
                case .string(let s) where s.hasSuffix("%"):
                    guard let p = Double(s.dropLast()), p >= 0, p <= 100 else { fallthrough }
                    r.allowed = .percent(p)
                default: throw fail("\(label): \"max_pixels_differ\" must be a count or a percentage such as \"0.5%\"")
                }
            case "min_psnr":
                r.minPSNR = value == .null ? .some(nil) : .some(try number(value, key, 0...1000))
            case "min_ssim":
                if value == .null { r.minSSIM = .some(nil) } else {
                    let s = try number(value, key, 0...1)
                    guard s > 0 else { throw fail("\(label): \"min_ssim\" must be above 0") }
                    r.minSSIM = .some(s)
                }
            case "ignore":
                guard case .array(let rects) = value else { throw fail("\(label): \"ignore\" must be a list of [x, y, width, height]") }
                r.ignore = try rects.map { v in
                    guard case .array(let xs) = v, xs.count == 4,
                          case let nums = xs.compactMap({ x -> Int? in if case .number(let d) = x, d >= 0, d == d.rounded(), d < 1e9 { return Int(d) }; return nil }),
                          nums.count == 4, nums[2] > 0, nums[3] > 0 else {
                        throw fail("\(label): each \"ignore\" rect must be [x, y, width, height] in whole pixels")
                    }
                    return Rect(x: nums[0], y: nums[1], width: nums[2], height: nums[3])
                }
            case "mask":
                guard case .string(let m) = value, !m.isEmpty else { throw fail("\(label): \"mask\" must be a path relative to the goldens") }
                // A mask is a file of the suite: it may not reach out of the goldens.
                guard !m.hasPrefix("/"), !m.split(separator: "/", omittingEmptySubsequences: false).contains("..") else {
                    throw fail("\(label): \"mask\" \"\(m)\" leaves the goldens directory; a mask is a path inside it, without \"..\"")
                }
                r.mask = m
            case "skip":
                guard case .bool(let b) = value else { throw fail("\(label): \"skip\" must be true or false") }
                r.skip = b
            case "reason":
                guard case .string(let s) = value else { throw fail("\(label): \"reason\" must be text") }
                r.reason = s
            default:
                throw fail("\(label): unknown key \"\(key)\" (known: \((allowing.sorted() + ["tolerance"]).joined(separator: ", ")), threshold, antialiasing, max_delta_e, "
                          + "max_pixels_differ, min_psnr, min_ssim, ignore, mask, skip, reason)")
            }
        }
        guard rulesGiven.count <= 1 else { throw fail("\(label): \(rulesGiven.joined(separator: ", ")) are rules of their own; give one") }
        if let count = antialiasing {
            guard case .perceptual(let t, _)? = r.rule else { throw fail("\(label): \"antialiasing\" applies to \"threshold\"; give it too") }
            r.rule = .perceptual(threshold: t, countAntialiased: count)
        }
        return r
    }

    /// The rules matching a relative path, least specific first.
    func matching(_ name: String) -> [Rule] {
        rules.filter { GoldenRules.glob($0.pattern, matches: name) }
            .sorted { ($0.specificity, $0.index) < ($1.specificity, $1.index) }
    }

    /// `*` any characters but '/', `?` one of them, `**` any path (with its '/'s); a
    /// pattern without '/' is matched against the file's name alone, as in .gitignore.
    static func glob(_ pattern: String, matches name: String) -> Bool {
        let p = Array(pattern.utf8)
        let subject = p.contains(UInt8(ascii: "/")) ? Array(name.utf8) : Array(name.split(separator: "/").last.map(String.init)?.utf8 ?? "".utf8)
        // Memoised on (pattern index, subject index): no backtracking blow-up.
        var memo = [Int8](repeating: -1, count: (p.count + 1) * (subject.count + 1))
        func match(_ i: Int, _ j: Int) -> Bool {
            let key = i * (subject.count + 1) + j
            if memo[key] >= 0 { return memo[key] == 1 }
            var result: Bool
            if i == p.count {
                result = j == subject.count
            } else if p[i] == UInt8(ascii: "*") {
                let double = i + 1 < p.count && p[i + 1] == UInt8(ascii: "*")
                if double {
                    // "**/" also matches no directory at all.
                    var next = i + 2
                    if next < p.count, p[next] == UInt8(ascii: "/") { next += 1 }
                    result = match(next, j) || (j < subject.count && match(i, j + 1))
                } else {
                    result = match(i + 1, j) || (j < subject.count && subject[j] != UInt8(ascii: "/") && match(i, j + 1))
                }
            } else if j < subject.count, p[i] == UInt8(ascii: "?") ? subject[j] != UInt8(ascii: "/") : p[i] == subject[j] {
                result = match(i + 1, j + 1)
            } else {
                result = false
            }
            memo[key] = result ? 1 : 0
            return result
        }
        return match(0, 0)
    }
}
