#if canImport(Glibc)
import Glibc
#endif

/// One line of a `--report` as `merge-reports` needs it, scanned in one pass without
/// building a tree (a million lines merge in seconds): the input's and output's names as
/// bytes (from `input_hex`/`output_hex` when the name is not UTF-8), the status, the
/// attempt that wrote it, and the JSON text of the fields a failure is listed with.
/// `scan` accepts exactly the lines that are UTF-8 and one JSON object with a string
/// `status`; anything else is damaged, with the reason.
struct ReportLine {
    var input: [UInt8] = []
    var output: [UInt8] = []
    var status = ""
    var attempt = 1
    /// The JSON text of `input`, `output` and `error` as written ("null" when absent).
    var inputJSON = "null", outputJSON = "null", errorJSON = "null"

    struct Damage: Error {
        let reason: String
    }

    static func scan(_ line: ArraySlice<UInt8>) throws(Damage) -> ReportLine {
        guard String(validating: line, as: UTF8.self) != nil else { throw Damage(reason: "not UTF-8") }
        return try line.withUnsafeBufferPointer { (bytes) throws(Damage) -> ReportLine in
            var scanner = Scanner(bytes: bytes)
            return try scanner.line()
        }
    }

    /// The fields read; the others are only checked.
    private enum Field: String, CaseIterable {
        case input, output, inputHex = "input_hex", outputHex = "output_hex", status, attempt, error
        static let names = allCases.map { ($0, Array($0.rawValue.utf8)) }
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var at = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        private var damaged: Damage { Damage(reason: "not JSON at byte \(at + 1)") }

        mutating func line() throws(Damage) -> ReportLine {
            skipSpace()
            guard at < bytes.count, bytes[at] == UInt8(ascii: "{") else {
                _ = try value(depth: 0)
                skipSpace()
                throw at == bytes.count ? Damage(reason: "not a report object") : damaged
            }
            at += 1
            var line = ReportLine()
            var inputText: [UInt8]? = nil, outputText: [UInt8]? = nil, inputHex: [UInt8]? = nil, outputHex: [UInt8]? = nil
            var status: String? = nil
            skipSpace()
            if peek == UInt8(ascii: "}") { at += 1 } else {
                while true {
                    skipSpace()
                    let field = try key()
                    skipSpace()
                    try expect(UInt8(ascii: ":"))
                    skipSpace()
                    let start = at
                    switch field {
                    case .input?, .output?, .inputHex?, .outputHex?, .status?:
                        let text = peek == UInt8(ascii: "\"") ? try string() : nil
                        if text == nil { _ = try value(depth: 1) }
                        switch field {
                        case .input?: inputText = text; line.inputJSON = raw(start)
                        case .output?: outputText = text; line.outputJSON = raw(start)
                        case .inputHex?: inputHex = text.flatMap(Hex.bytes)
                        case .outputHex?: outputHex = text.flatMap(Hex.bytes)
                        default: status = text.map { String(decoding: $0, as: UTF8.self) }
                        }
                    case .attempt?:
                        _ = try value(depth: 1)
                        line.attempt = Int(raw(start)) ?? 1
                    case .error?:
                        _ = try value(depth: 1)
                        line.errorJSON = raw(start)
                    case nil:
                        _ = try value(depth: 1)
                    }
                    skipSpace()
                    if peek == UInt8(ascii: ",") { at += 1; continue }
                    try expect(UInt8(ascii: "}"))
                    break
                }
            }
            skipSpace()
            guard at == bytes.count else { throw damaged }
            guard let status else { throw Damage(reason: "not a report object") }
            line.status = status
            line.input = inputHex ?? inputText ?? []
            line.output = outputHex ?? outputText ?? []
            return line
        }

        private var peek: UInt8? { at < bytes.count ? bytes[at] : nil }

        private func raw(_ start: Int) -> String { String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self) }

        private mutating func skipSpace() {
            while at < bytes.count, [0x20, 0x09, 0x0D, 0x0A].contains(bytes[at]) { at += 1 }
        }

        private mutating func expect(_ c: UInt8) throws(Damage) {
            guard peek == c else { throw damaged }
            at += 1
        }

        /// Skips one value of any kind (nesting bounded as `JSONValue` bounds it).
        private mutating func value(depth: Int) throws(Damage) -> Void {
            guard depth < JSONValue.maxDepth, let c = peek else { throw damaged }
            switch c {
            case UInt8(ascii: "\""): _ = try stringRange()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let close = c == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                at += 1
                skipSpace()
                if peek == close { at += 1; return }
                while true {
                    skipSpace()
                    if close == UInt8(ascii: "}") {
                        _ = try stringRange()
                        skipSpace()
                        try expect(UInt8(ascii: ":"))
                        skipSpace()
                    }
                    try value(depth: depth + 1)
                    skipSpace()
                    if peek == UInt8(ascii: ",") { at += 1; continue }
                    try expect(close)
                    return
                }
            case UInt8(ascii: "t"): try word("true")
            case UInt8(ascii: "f"): try word("false")
            case UInt8(ascii: "n"): try word("null")
            default: try number()
            }
        }

        private mutating func word(_ w: StaticString) throws(Damage) {
            let n = w.utf8CodeUnitCount
            guard at + n <= bytes.count, (0..<n).allSatisfy({ bytes[at + $0] == w.utf8Start[$0] }) else { throw damaged }
            at += n
        }

        private mutating func number() throws(Damage) {
            let start = at
            if peek == UInt8(ascii: "-") { at += 1 }
            func digits() -> Int {
                let s = at
                while let c = peek, c >= 0x30 && c <= 0x39 { at += 1 }
                return at - s
            }
            guard let first = peek, first >= 0x30 && first <= 0x39 else { throw damaged }
            if first == 0x30 { at += 1 } else { _ = digits() }
            if peek == UInt8(ascii: ".") { at += 1; guard digits() > 0 else { throw damaged } }
            if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
                at += 1
                if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { at += 1 }
                guard digits() > 0 else { throw damaged }
            }
            if at == start { throw damaged }
        }

        /// A key, as the field it names (nil: one only checked).
        private mutating func key() throws(Damage) -> Field? {
            let (start, end, escaped) = try stringRange()
            if escaped {
                at = start
                let text = try string()
                return Field.names.first { $0.1 == text }?.0
            }
            let n = end - start - 2
            return Field.names.first { name in
                name.1.count == n && name.1.withUnsafeBufferPointer { memcmp($0.baseAddress!, bytes.baseAddress! + start + 1, n) == 0 }
            }?.0
        }

        /// Passes over a string, checking it: where it starts and ends (with its quotes)
        /// and whether it holds escapes.
        private mutating func stringRange() throws(Damage) -> (Int, Int, Bool) {
            let start = at
            try expect(UInt8(ascii: "\""))
            var escaped = false
            while true {
                guard let c = peek else { throw damaged }
                at += 1
                if c == UInt8(ascii: "\"") { return (start, at, escaped) }
                if c < 0x20 { throw damaged }
                if c == UInt8(ascii: "\\") {
                    escaped = true
                    guard let e = peek else { throw damaged }
                    at += 1
                    if e == UInt8(ascii: "u") { _ = try hex4() } else if JSONValue.escaped(e) == nil { throw damaged }
                }
            }
        }

        /// A string's bytes, escapes decoded (a lone surrogate becomes U+FFFD).
        private mutating func string() throws(Damage) -> [UInt8] {
            let (start, end, escaped) = try stringRange()
            guard escaped else { return Array(UnsafeBufferPointer(rebasing: bytes[start + 1..<end - 1])) }
            at = start
            try expect(UInt8(ascii: "\""))
            var out: [UInt8] = []
            while true {
                guard let c = peek else { throw damaged }
                at += 1
                switch c {
                case UInt8(ascii: "\""): return out
                case UInt8(ascii: "\\"):
                    guard let e = peek else { throw damaged }
                    at += 1
                    if let byte = JSONValue.escaped(e) { out.append(byte); continue }
                    switch e {
                    case UInt8(ascii: "u"):
                        var scalar = try hex4()
                        if (0xD800..<0xDC00).contains(scalar), peek == UInt8(ascii: "\\"), at + 1 < bytes.count, bytes[at + 1] == UInt8(ascii: "u") {
                            let save = at
                            at += 2
                            let low = try hex4()
                            if (0xDC00..<0xE000).contains(low) { scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00) } else { at = save }
                        }
                        out += Array(String(Unicode.Scalar(scalar).map(Character.init) ?? "\u{FFFD}").utf8)
                    default: throw damaged
                    }
                case 0..<0x20: throw damaged
                default: out.append(c)
                }
            }
        }

        private mutating func hex4() throws(Damage) -> UInt32 {
            guard at + 4 <= bytes.count else { throw damaged }
            var v: UInt32 = 0
            for _ in 0..<4 {
                guard let d = Hex.nibble(bytes[at]) else { throw damaged }
                v = v << 4 | UInt32(d)
                at += 1
            }
            return v
        }
    }
}
