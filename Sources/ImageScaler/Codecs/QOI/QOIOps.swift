/// QOI's constants and its one hash, shared by the decoder and the encoder so that both
/// index colours alike (qoi.h, the format's reference: a 64-entry table of the colours
/// seen, each at (r * 3 + g * 5 + b * 7 + a * 11) % 64).
enum QOIOps {
    static let magic: [UInt8] = Array("qoif".utf8)
    static let headerBytes = 14
    /// Seven zero bytes and a one end every file.
    static let end: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 1]
    static let rgb: UInt8 = 0xFE
    static let rgba: UInt8 = 0xFF
    static let index: UInt8 = 0x00
    static let diff: UInt8 = 0x40
    static let luma: UInt8 = 0x80
    static let run: UInt8 = 0xC0
    /// The top two bits that tell the short operations apart.
    static let mask: UInt8 = 0xC0
    /// The longest run one operation holds (62: 63 and 64 would be RGB's and RGBA's tags).
    static let longestRun = 62

    /// The table slot of a colour packed as r | g << 8 | b << 16 | a << 24.
    @inline(__always)
    static func slot(_ p: UInt32) -> Int {
        let r: UInt32 = p & 0xFF, g: UInt32 = (p >> 8) & 0xFF
        let b: UInt32 = (p >> 16) & 0xFF, a: UInt32 = p >> 24
        let sum: UInt32 = r &* 3 &+ g &* 5 &+ b &* 7 &+ a &* 11
        return Int(sum % 64)
    }
}
