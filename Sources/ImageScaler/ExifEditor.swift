/// Rewrites an EXIF block (TIFF structure, no "Exif\0\0" prefix) for an output image
/// whose pixels are already upright: the orientation becomes 1, so viewers do not turn
/// it a second time, and the IFD1 thumbnail (the source's picture, now stale) is cut
/// off. Every offset is bounds-checked; a block it cannot parse is dropped (nil).
public enum ExifEditor {
    public static func forUprightOutput(_ exif: [UInt8]) -> [UInt8]? {
        guard exif.count >= 8 else { return nil }
        let bigEndian: Bool
        switch (exif[0], exif[1]) {
        case (0x49, 0x49): bigEndian = false
        case (0x4D, 0x4D): bigEndian = true
        default: return nil
        }
        var block = exif
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= block.count else { return nil }
            let a = Int(block[at]), b = Int(block[at + 1])
            return bigEndian ? a << 8 | b : b << 8 | a
        }
        func u32(_ at: Int) -> Int? {
            guard let hi = u16(bigEndian ? at : at + 2), let lo = u16(bigEndian ? at + 2 : at) else { return nil }
            return hi << 16 | lo
        }
        func put16(_ at: Int, _ v: Int) {
            block[at] = UInt8(bigEndian ? v >> 8 : v & 0xFF)
            block[at + 1] = UInt8(bigEndian ? v & 0xFF : v >> 8)
        }
        guard u16(2) == 42, let ifd0 = u32(4), ifd0 >= 8, let count = u16(ifd0) else { return nil }
        let linkAt = ifd0 + 2 + count * 12
        guard let ifd1 = u32(linkAt) else { return nil }
        for i in 0..<count {
            let entry = ifd0 + 2 + i * 12
            if u16(entry) == 0x0112, u16(entry + 2) == 3 { put16(entry + 8, 1) }
        }
        if ifd1 != 0 {
            var thumbStart = Int.max, thumbLength = 0
            if let n = u16(ifd1) {
                for i in 0..<n {
                    let entry = ifd1 + 2 + i * 12
                    if u16(entry) == 0x0201, let at = u32(entry + 8) { thumbStart = at }
                    if u16(entry) == 0x0202, let length = u32(entry + 8) { thumbLength = length }
                }
            }
            put16(linkAt, 0)
            put16(linkAt + 2, 0)
            // The thumbnail is nearly always the block's tail (camera writers may pad a few
            // bytes after it): drop its bytes too.
            let end = thumbStart + thumbLength
            if thumbStart != Int.max, thumbStart > linkAt, end <= block.count, end + 16 >= block.count {
                block.removeSubrange(thumbStart...)
            }
        }
        return block
    }

    /// XMP can state an orientation too (`tiff:Orientation`); it is set to 1 as well.
    public static func xmpForUprightOutput(_ xmp: [UInt8]) -> [UInt8] {
        var text = String(decoding: xmp, as: UTF8.self)
        for digit in 2...8 {
            text = text.replacing("tiff:Orientation=\"\(digit)\"", with: "tiff:Orientation=\"1\"")
            text = text.replacing("<tiff:Orientation>\(digit)</tiff:Orientation>", with: "<tiff:Orientation>1</tiff:Orientation>")
        }
        return Array(text.utf8)
    }
}
