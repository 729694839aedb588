/// Linux file names are bytes, not text. A `String` path in this library holds a name's
/// bytes losslessly: valid UTF-8 stays as it is, and every other byte b (always >= 0x80)
/// becomes the private-use scalar U+10FF00 + b, as Python's "surrogateescape" does with
/// lone surrogates (which a Swift `String` cannot hold). A real U+10FF80...U+10FFFF in a
/// name is escaped byte by byte too, so the mapping is one-to-one both ways.
package enum FileName {
    static let escapeBase: UInt32 = 0x10FF00

    /// The path a C API handed over (argv, a --files-from list), byte for byte.
    public static func decode<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        let raw = Array(bytes)
        // An ASCII name (most of them) is its own text; the scalar-by-scalar work below was
        // most of what an --if-changed rerun of 1,000 skipped files cost.
        if raw.allSatisfy({ $0 < 0x80 }) { return String(decoding: raw, as: UTF8.self) }
        var scalars = String.UnicodeScalarView()
        var i = 0
        while i < raw.count {
            if let (scalar, length) = utf8Scalar(raw, at: i), scalar.value < escapeBase + 0x80 {
                scalars.append(scalar)
                i += length
            } else {
                // Invariant: U+10FF00 + a byte is a valid scalar (up to U+10FFFF).
                scalars.append(Unicode.Scalar(escapeBase + UInt32(raw[i]))!)
                i += 1
            }
        }
        return String(scalars)
    }

    /// The bytes `decode` was given, for the system calls.
    public static func bytes(_ path: String) -> [UInt8] {
        if path.utf8.allSatisfy({ $0 < 0x80 }) { return Array(path.utf8) }
        var out: [UInt8] = []
        out.reserveCapacity(path.utf8.count)
        for s in path.unicodeScalars {
            if s.value >= escapeBase + 0x80 && s.value <= escapeBase + 0xFF {
                out.append(UInt8(s.value - escapeBase))
            } else {
                UTF8.encode(s) { out.append($0) }
            }
        }
        return out
    }

    /// Runs `body` with the path as the NUL-terminated bytes a system call wants.
    public static func withCString<T>(_ path: String, _ body: (UnsafePointer<CChar>) throws -> T) rethrows -> T {
        var c = bytes(path).map { CChar(bitPattern: $0) }
        c.append(0)
        return try c.withUnsafeBufferPointer { try body($0.baseAddress!) }
    }

    /// The path as one safe line of text: control characters, backslashes and bytes that
    /// are not UTF-8 are written as C escapes (`\n`, `\\`, `\xe9`), so a name can neither
    /// break a message into two lines nor drive a terminal; the rest is shown as is.
    public static func display(_ path: String) -> String {
        var out = ""
        for s in path.unicodeScalars {
            switch s {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case _ where s.value >= escapeBase + 0x80 && s.value <= escapeBase + 0xFF:
                out += "\\x" + hex2(s.value - escapeBase)
            case _ where s.value < 0x20 || (0x7F...0x9F).contains(s.value):
                out += "\\x" + hex2(s.value)
            case _ where reordersText(s) || s.value == 0xFFFE || s.value == 0xFFFF:
                out += "\\u{\(String(s.value, radix: 16))}"
            default:
                out.unicodeScalars.append(s)
            }
        }
        return out
    }

    /// Bidirectional controls and line or paragraph separators: invisible, yet they
    /// reorder or break the text around them (a name ending in U+202E "fdp.exe" shows
    /// as "exe.pdf"), so every message, JSON string and report escapes them as it does
    /// C0 controls.
    public static func reordersText(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    /// Whether the scalar stands for a raw byte (see the type's comment); JSON writes
    /// such a byte as the lone surrogate \udcXX, which Python's
    /// `os.fsencode(json.loads(...))` turns back into the same bytes.
    public static func escapedByte(_ s: Unicode.Scalar) -> UInt8? {
        s.value >= escapeBase + 0x80 && s.value <= escapeBase + 0xFF ? UInt8(s.value - escapeBase) : nil
    }

    private static func hex2(_ v: UInt32) -> String {
        let h = String(v, radix: 16)
        return h.count < 2 ? "0" + h : h
    }

    /// The scalar a well-formed, shortest-form UTF-8 sequence at `i` encodes, and its length.
    private static func utf8Scalar(_ b: [UInt8], at i: Int) -> (Unicode.Scalar, Int)? {
        let b0 = b[i]
        if b0 < 0x80 { return (Unicode.Scalar(b0), 1) }
        let length: Int, minimum: UInt32
        var value: UInt32
        switch b0 {
        case 0xC2...0xDF: length = 2; minimum = 0x80; value = UInt32(b0 & 0x1F)
        case 0xE0...0xEF: length = 3; minimum = 0x800; value = UInt32(b0 & 0x0F)
        case 0xF0...0xF4: length = 4; minimum = 0x10000; value = UInt32(b0 & 0x07)
        default: return nil
        }
        guard i + length <= b.count else { return nil }
        for k in 1..<length {
            let c = b[i + k]
            guard c & 0xC0 == 0x80 else { return nil }
            value = value << 6 | UInt32(c & 0x3F)
        }
        guard value >= minimum, let scalar = Unicode.Scalar(value) else { return nil }
        return (scalar, length)
    }
}
