import ImageScaler

/// A JSON object written by hand: imgscale avoids Foundation so it starts in
/// milliseconds. Keys keep the order they were added in.
struct JSON {
    private var fields: [String] = []

    mutating func add(_ key: String, _ value: String?) {
        fields.append("\(JSON.quote(key)):\(value.map(JSON.quote) ?? "null")")
    }

    mutating func add(_ key: String, _ value: Int?) {
        fields.append("\(JSON.quote(key)):\(value.map(String.init) ?? "null")")
    }

    /// The field only when there is a value; nil leaves it out.
    mutating func add(_ key: String, ifAny value: Int?) {
        if let value { add(key, value) }
    }

    mutating func add(_ key: String, _ value: Bool) {
        fields.append("\(JSON.quote(key)):\(value)")
    }

    /// A file name: as text, with U+FFFD for each byte that is not UTF-8 so every JSON
    /// parser reads it; such a name also gets `KEY_hex`, its exact bytes in hex
    /// (Python: `bytes.fromhex(...)`), so it can still be opened.
    mutating func add(path key: String, _ path: String) {
        add(key, path)
        let bytes = FileName.bytes(path)
        if String(validatingCString: bytes.map { CChar(bitPattern: $0) } + [0]) == nil {
            add(key + "_hex", bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined())
        }
    }

    mutating func add(_ key: String, raw: String) {
        fields.append("\(JSON.quote(key)):\(raw)")
    }

    var text: String { "{" + fields.joined(separator: ",") + "}" }

    static func quote(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where FileName.escapedByte(u) != nil:
                // A file name's byte that is not UTF-8 (see `add(path:_:)`).
                out += "\u{FFFD}"
            case _ where u.value < 0x20 || FileName.reordersText(u) || u.value == 0xFFFE || u.value == 0xFFFF:
                let hex = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }
}
