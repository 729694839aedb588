/// Which HEIF a file is, from its `ftyp` box: an AV1 brand (major or compatible) makes
/// AVIF, an HEVC or generic image brand HEIC; anything else is not an image file.
enum HEIFBrand {
    case heic
    case avif

    private static let heicBrands: Set<String> = ["heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs", "mif1",
                                                  "msf1", "miaf"]

    /// From the first bytes of a file (the whole `ftyp` box fits in 64 for real files).
    static func of(_ head: ArraySlice<UInt8>) -> HEIFBrand? {
        let h = Array(head)
        guard h.count >= 12, h[4..<8].elementsEqual("ftyp".utf8) else { return nil }
        let brand = { (at: Int) in String(decoding: h[at..<at + 4], as: UTF8.self) }
        let major = brand(8)
        if major == "avif" || major == "avis" { return .avif }
        guard heicBrands.contains(major) else { return nil }
        // Compatible brands follow the minor version.
        let boxSize = Int(h[0]) << 24 | Int(h[1]) << 16 | Int(h[2]) << 8 | Int(h[3])
        var at = 16
        while at + 4 <= min(boxSize, h.count) {
            if ["avif", "avis"].contains(brand(at)) { return .avif }
            at += 4
        }
        return .heic
    }
}
