/// Reads big-endian fields from `data` inside `end`, moving forward; a read past `end`
/// sets `overran` and gives 0, so a parser of hostile bytes checks once at the end
/// instead of at every field.
struct ByteCursor {
    let data: [UInt8]
    var at: Int
    let end: Int
    private(set) var overran = false

    init(_ data: [UInt8], _ range: Range<Int>) {
        self.data = data
        at = range.lowerBound
        end = min(range.upperBound, data.count)
    }

    /// An unsigned field of `bytes` bytes (0 to 8).
    mutating func uint(_ bytes: Int) -> UInt64 {
        guard bytes >= 0, bytes <= 8, end - at >= bytes else {
            overran = true
            at = end
            return 0
        }
        var v: UInt64 = 0
        for i in 0..<bytes { v = v << 8 | UInt64(data[at + i]) }
        at += bytes
        return v
    }

    mutating func u8() -> Int { Int(uint(1)) }
    mutating func u16() -> Int { Int(uint(2)) }
    mutating func u32() -> Int { Int(uint(4)) }

    mutating func fourCC() -> String {
        guard end - at >= 4 else {
            overran = true
            at = end
            return ""
        }
        defer { at += 4 }
        return String(decoding: data[at ..< at + 4], as: UTF8.self)
    }

    mutating func skip(_ bytes: Int) {
        if bytes < 0 || end - at < bytes { overran = true; at = end } else { at += bytes }
    }
}
