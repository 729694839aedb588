/// Rewrites an EXIF block (TIFF structure, no "Exif\0\0" prefix) for an output image
/// whose pixels are already upright: the orientation becomes 1, so viewers do not turn
/// it a second time, and the IFD1 thumbnail (the source's picture, now stale) is cut
/// off. Every offset is bounds-checked; a block it cannot parse is dropped (nil).
public enum ExifEditor {
    public static func forUprightOutput(_ exif: [UInt8]) -> [UInt8]? {
        guard var block = TIFFBlock(exif), let (ifd0, count) = block.ifd0 else { return nil }
        let linkAt = ifd0 + 2 + count * 12
        guard let ifd1 = block.u32(linkAt) else { return nil }
        for i in 0..<count {
            let entry = ifd0 + 2 + i * 12
            if block.u16(entry) == 0x0112, block.u16(entry + 2) == 3 { block.put16(entry + 8, 1) }
        }
        if ifd1 != 0 {
            var thumbStart = Int.max, thumbLength = 0
            if let n = block.u16(ifd1) {
                for i in 0..<n {
                    let entry = ifd1 + 2 + i * 12
                    if block.u16(entry) == 0x0201, let at = block.u32(entry + 8) { thumbStart = at }
                    if block.u16(entry) == 0x0202, let length = block.u32(entry + 8) { thumbLength = length }
                }
            }
            block.put16(linkAt, 0)
            block.put16(linkAt + 2, 0)
            // The thumbnail is nearly always the block's tail (camera writers may pad a few
            // bytes after it): drop its bytes too.
            let end = thumbStart + thumbLength
            if thumbStart != Int.max, thumbStart > linkAt, end <= block.bytes.count, end + 16 >= block.bytes.count {
                block.bytes.removeSubrange(thumbStart...)
            }
        }
        return block.bytes
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
