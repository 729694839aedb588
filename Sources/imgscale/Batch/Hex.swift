/// Hexadecimal digits as bytes, either case: what `input_hex` fields and manifest names
/// hold. A digit that is not one, or an odd count, gives nil.
enum Hex {
    static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x41...0x46: return c - 0x37
        case 0x61...0x66: return c - 0x57
        default: return nil
        }
    }

    static func bytes<Digits: Collection<UInt8>>(_ digits: Digits) -> [UInt8]? {
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        var i = digits.startIndex
        while i != digits.endIndex {
            let j = digits.index(after: i)
            guard let high = nibble(digits[i]), let low = nibble(digits[j]) else { return nil }
            out.append(high << 4 | low)
            i = digits.index(after: j)
        }
        return out
    }
}
