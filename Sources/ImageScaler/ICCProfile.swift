/// Facts about an ICC profile read from its 128-byte header.
enum ICCProfile {
    /// A profile only describes pixels of its own colour space (header bytes 16-19): a
    /// CMYK profile must not ride along on RGB output, nor an RGB one on gray.
    static func fits(_ icc: [UInt8], channels: Int) -> Bool {
        guard icc.count >= 128 else { return false }
        let space = String(decoding: icc[16..<20], as: UTF8.self)
        return channels <= 2 ? space == "GRAY" : space == "RGB "
    }
}
