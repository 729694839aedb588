/// A TIFF-structured block (EXIF without its "Exif\0\0" prefix) with bounds-checked
/// reads in its own byte order: every read past the end is nil, never a trap.
struct TIFFBlock {
    var bytes: [UInt8]
    let bigEndian: Bool

    /// nil unless the block starts with a TIFF byte-order mark ("II" or "MM").
    init?(_ bytes: [UInt8]) {
        guard bytes.count >= 8 else { return nil }
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): bigEndian = false
        case (0x4D, 0x4D): bigEndian = true
        default: return nil
        }
        self.bytes = bytes
    }

    func u16(_ at: Int) -> Int? {
        guard at >= 0, at + 2 <= bytes.count else { return nil }
        let a = Int(bytes[at]), b = Int(bytes[at + 1])
        return bigEndian ? a << 8 | b : b << 8 | a
    }

    func u32(_ at: Int) -> Int? {
        guard let hi = u16(bigEndian ? at : at + 2), let lo = u16(bigEndian ? at + 2 : at) else { return nil }
        return hi << 16 | lo
    }

    /// Writes a 16-bit value; `at` must be in bounds (callers read it first).
    mutating func put16(_ at: Int, _ v: Int) {
        bytes[at] = UInt8(bigEndian ? v >> 8 : v & 0xFF)
        bytes[at + 1] = UInt8(bigEndian ? v & 0xFF : v >> 8)
    }

    /// Writes a 32-bit value; `at` must be in bounds (callers read it first).
    mutating func put32(_ at: Int, _ v: Int) {
        put16(bigEndian ? at : at + 2, v >> 16 & 0xFFFF)
        put16(bigEndian ? at + 2 : at, v & 0xFFFF)
    }

    /// The magic 42 is present and IFD0's offset and entry count are readable.
    var ifd0: (offset: Int, count: Int)? {
        guard u16(2) == 42, let offset = u32(4), offset >= 8, let count = u16(offset) else { return nil }
        return (offset, count)
    }
}
