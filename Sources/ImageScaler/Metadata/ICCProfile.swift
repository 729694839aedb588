/// Facts about an ICC profile read from its 128-byte header.
package enum ICCProfile {
    /// A profile only describes pixels of its own colour space (header bytes 16-19): a
    /// CMYK profile must not ride along on RGB output, nor an RGB one on gray.
    package static func fits(_ icc: [UInt8], channels: Int) -> Bool {
        guard icc.count >= 128 else { return false }
        let space = String(decoding: icc[16..<20], as: UTF8.self)
        return channels <= 2 ? space == "GRAY" : space == "RGB "
    }

    /// Why the bytes are not a well-formed profile, or nil: the header's own checks
    /// (the length it declares, the 'acsp' signature, a tag table inside it). A profile
    /// failing them is left out of every output format alike.
    package static func malformation(_ icc: [UInt8]) -> String? {
        guard icc.count >= 132 else { return "\(icc.count) bytes, shorter than a profile's header and tag count" }
        func be32(_ at: Int) -> Int { Int(icc[at]) << 24 | Int(icc[at + 1]) << 16 | Int(icc[at + 2]) << 8 | Int(icc[at + 3]) }
        if be32(0) != icc.count { return "its header says \(be32(0)) bytes, but it holds \(icc.count)" }
        if icc[36..<40].elementsEqual("acsp".utf8) == false { return "no 'acsp' signature" }
        if be32(128) > (icc.count - 132) / 12 { return "its tag table runs past its end" }
        return nil
    }
}
