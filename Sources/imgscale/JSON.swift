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

    mutating func add(_ key: String, _ value: Bool) {
        fields.append("\(JSON.quote(key)):\(value)")
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
            case _ where u.value < 0x20:
                let hex = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }
}
