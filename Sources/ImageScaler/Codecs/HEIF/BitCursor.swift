/// Reads bit fields, most significant bit first, from bytes of a video bitstream (with
/// HEVC's emulation prevention bytes already removed); reading past the end gives zeros
/// and sets `overran`.
struct BitCursor {
    private let bytes: [UInt8]
    private var bit = 0
    private(set) var overran = false

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// `count` bits (at most 64) as an unsigned number.
    mutating func bits(_ count: Int) -> UInt64 {
        var v: UInt64 = 0
        for _ in 0..<count {
            let byte = bit >> 3
            if byte >= bytes.count {
                overran = true
                v <<= 1
            } else {
                v = v << 1 | UInt64(bytes[byte] >> (7 - bit & 7) & 1)
            }
            bit += 1
        }
        return v
    }

    mutating func flag() -> Bool { bits(1) == 1 }

    /// HEVC's ue(v): leading zeros, a one, then as many bits; nil past 32 zeros.
    mutating func unsignedExpGolomb() -> UInt64? {
        var zeros = 0
        while !flag() {
            zeros += 1
            if zeros > 32 || overran { return nil }
        }
        return (UInt64(1) << zeros) - 1 + bits(zeros)
    }

    /// AV1's uvlc(): the same code; 2^32 - 1 from 32 leading zeros on.
    mutating func uvlc() -> UInt64 {
        var zeros = 0
        while !flag() {
            zeros += 1
            if overran { return 0 }
        }
        if zeros >= 32 { return (1 << 32) - 1 }
        return bits(zeros) + (UInt64(1) << zeros) - 1
    }
}
