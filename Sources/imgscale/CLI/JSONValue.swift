/// A JSON document read from a file strangers may write: objects keep their keys' order,
/// numbers are doubles, and nesting deeper than `maxDepth` or any malformed byte is an
/// error naming its line and column, never a crash.
indirect enum JSONValue: Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x), .number(let y)): return x == y
        case (.string(let x), .string(let y)): return x == y
        case (.array(let x), .array(let y)): return x == y
        case (.object(let x), .object(let y)): return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    static let maxDepth = 64

    /// The byte a one-letter escape (`\n`, `\"`...) stands for; nil for `\u` and for
    /// anything JSON does not allow.
    static func escaped(_ letter: UInt8) -> UInt8? {
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return letter
        case UInt8(ascii: "n"): return 0x0A
        case UInt8(ascii: "t"): return 0x09
        case UInt8(ascii: "r"): return 0x0D
        case UInt8(ascii: "b"): return 0x08
        case UInt8(ascii: "f"): return 0x0C
        default: return nil
        }
    }

    /// The value written back as JSON, keys in their order; a whole number without a
    /// fraction, as it was most likely given.
    var text: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let d):
            if d == d.rounded(), abs(d) < 1e15 { return String(Int(d)) }
            return d.isFinite ? "\(d)" : "null"
        case .string(let s): return JSON.quote(s)
        case .array(let items): return "[" + items.map(\.text).joined(separator: ",") + "]"
        case .object(let fields): return "{" + fields.map { JSON.quote($0.0) + ":" + $0.1.text }.joined(separator: ",") + "}"
        }
    }

    struct ParseError: Error { let message: String }

    static func parse(_ bytes: [UInt8]) throws -> JSONValue {
        try parseWithLines(bytes).0
    }

    /// The document and the line on which each object two levels down begins (the
    /// items of a list in the top object, such as a rules file's rules), in order.
    static func parseWithLines(_ bytes: [UInt8]) throws -> (JSONValue, [Int]) {
        var reader = Reader(bytes: bytes)
        let value = try reader.value(depth: 0)
        reader.skipSpace()
        guard reader.at == bytes.count else { throw reader.error("text after the document") }
        return (value, reader.itemStarts.map { Reader.line(bytes, $0).0 })
    }

    private struct Reader {
        let bytes: [UInt8]
        var at = 0
        var itemStarts: [Int] = []

        /// Line and column (from 1) of a byte offset.
        static func line(_ bytes: [UInt8], _ offset: Int) -> (Int, Int) {
            var line = 1, column = 1
            for b in bytes[..<min(offset, bytes.count)] {
                if b == 0x0A { line += 1; column = 1 } else { column += 1 }
            }
            return (line, column)
        }

        func error(_ what: String) -> ParseError {
            let (l, c) = Reader.line(bytes, at)
            return ParseError(message: "\(what) at line \(l), column \(c)")
        }

        mutating func skipSpace() {
            while at < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { at += 1 }
        }

        mutating func literal(_ word: String, _ value: JSONValue) throws -> JSONValue {
            let w = Array(word.utf8)
            guard at + w.count <= bytes.count, Array(bytes[at..<at + w.count]) == w else { throw error("not JSON") }
            at += w.count
            return value
        }

        mutating func value(depth: Int) throws -> JSONValue {
            guard depth < JSONValue.maxDepth else { throw error("nested deeper than \(JSONValue.maxDepth)") }
            skipSpace()
            guard at < bytes.count else { throw error("the document ends early") }
            switch bytes[at] {
            case UInt8(ascii: "{"):
                if depth == 2 { itemStarts.append(at) }
                at += 1
                var members: [(String, JSONValue)] = []
                skipSpace()
                if at < bytes.count, bytes[at] == UInt8(ascii: "}") { at += 1; return .object(members) }
                while true {
                    skipSpace()
                    guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { throw error("expected a key") }
                    let key = try string()
                    skipSpace()
                    guard at < bytes.count, bytes[at] == UInt8(ascii: ":") else { throw error("expected ':'") }
                    at += 1
                    members.append((key, try value(depth: depth + 1)))
                    if try !another(before: "}") { return .object(members) }
                }
            case UInt8(ascii: "["):
                at += 1
                var items: [JSONValue] = []
                skipSpace()
                if at < bytes.count, bytes[at] == UInt8(ascii: "]") { at += 1; return .array(items) }
                while true {
                    items.append(try value(depth: depth + 1))
                    if try !another(before: "]") { return .array(items) }
                }
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): return try literal("true", .bool(true))
            case UInt8(ascii: "f"): return try literal("false", .bool(false))
            case UInt8(ascii: "n"): return try literal("null", .null)
            default: return .number(try number())
            }
        }

        /// After an object's member or an array's item: true past a ',' (another
        /// follows), false past `close` (the list ended).
        mutating func another(before close: Unicode.Scalar) throws -> Bool {
            skipSpace()
            guard at < bytes.count else { throw error("the document ends early") }
            if bytes[at] == UInt8(ascii: ",") { at += 1; return true }
            guard bytes[at] == UInt8(ascii: close) else { throw error("expected ',' or '\(close)'") }
            at += 1
            return false
        }

        mutating func number() throws -> Double {
            let start = at
            while at < bytes.count, "+-0123456789.eE".utf8.contains(bytes[at]) { at += 1 }
            guard at > start, let v = Double(String(decoding: bytes[start..<at], as: UTF8.self)), v.isFinite else { throw error("not a number") }
            return v
        }

        mutating func string() throws -> String {
            at += 1
            var out: [UInt8] = []
            while at < bytes.count {
                let c = bytes[at]
                at += 1
                if c == UInt8(ascii: "\"") { return String(decoding: out, as: UTF8.self) }
                guard c >= 0x20 else { throw error("a control character in a string") }
                guard c == UInt8(ascii: "\\") else { out.append(c); continue }
                guard at < bytes.count else { break }
                let e = bytes[at]
                at += 1
                if let byte = JSONValue.escaped(e) { out.append(byte); continue }
                switch e {
                case UInt8(ascii: "u"):
                    guard at + 4 <= bytes.count, let u = UInt32(String(decoding: bytes[at..<at + 4], as: UTF8.self), radix: 16) else { throw error("a bad \\u escape") }
                    at += 4
                    out.append(contentsOf: Array(String(Unicode.Scalar(u).map(Character.init) ?? "\u{FFFD}").utf8))
                default: throw error("a bad escape")
                }
            }
            throw error("an unterminated string")
        }
    }
}
