/// Rewrites an EXIF block (TIFF structure, no "Exif\0\0" prefix) for an output image
/// whose pixels are already upright: the orientation becomes 1, so viewers do not turn
/// it a second time, and the IFD1 thumbnail (the source's picture, now stale) is cut
/// off. Every offset is bounds-checked; a block it cannot parse is dropped (nil).
package enum ExifEditor {
    /// With `size`, the Exif IFD's PixelXDimension and PixelYDimension become the
    /// output's own size (written as LONG when a side passes 65535).
    package static func forUprightOutput(_ exif: [UInt8], size: Size? = nil) -> [UInt8]? {
        guard var block = TIFFBlock(exif), let (ifd0, count) = block.ifd0 else { return nil }
        let linkAt = ifd0 + 2 + count * 12
        guard let ifd1 = block.u32(linkAt) else { return nil }
        for i in 0..<count {
            let entry = ifd0 + 2 + i * 12
            guard entry + 12 <= block.bytes.count, let tag = block.u16(entry) else { continue }
            if tag == 0x0112 {
                // Whatever type and count the writer chose (LONG 6 has been seen), the
                // entry becomes the standard SHORT 1, so no viewer turns the pixels again.
                setShort(&block, entry, 1)
            } else if tag == 0x8769, let size, let exifIFD = block.u32(entry + 8) {
                setPixelDimensions(&block, exifIFD, size)
            }
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

    private static func setShort(_ block: inout TIFFBlock, _ entry: Int, _ value: Int) {
        block.put16(entry + 2, 3)
        block.put32(entry + 4, 1)
        block.put32(entry + 8, 0)
        block.put16(entry + 8, value)
    }

    private static func setPixelDimensions(_ block: inout TIFFBlock, _ ifd: Int, _ size: Size) {
        guard let n = block.u16(ifd) else { return }
        for i in 0..<n {
            let entry = ifd + 2 + i * 12
            guard entry + 12 <= block.bytes.count, let tag = block.u16(entry), tag == 0xA002 || tag == 0xA003 else { continue }
            let value = tag == 0xA002 ? size.width : size.height
            if value <= 0xFFFF {
                setShort(&block, entry, value)
            } else {
                block.put16(entry + 2, 4)
                block.put32(entry + 4, 1)
                block.put32(entry + 8, value)
            }
        }
    }

    /// XMP can state an orientation too (`tiff:Orientation`); it is set to 1 as well.
    package static func xmpForUprightOutput(_ xmp: [UInt8]) -> [UInt8] {
        // One pass over the bytes, each digit rewritten in place: every other byte stays
        // exactly as it was (a multi-megabyte packet is not decoded as text).
        var out = xmp
        let name = Array("tiff:Orientation".utf8)
        var at = 0
        while let i = ExifReader.find(name, in: out, from: at) {
            var j = i + name.count
            if j + 1 < out.count, out[j] == UInt8(ascii: "="), out[j + 1] == UInt8(ascii: "\"") {
                j += 2
            } else if j < out.count, out[j] == UInt8(ascii: ">") {
                j += 1
            }
            if j < out.count, j > i + name.count, (UInt8(ascii: "2")...UInt8(ascii: "8")).contains(out[j]),
               j + 1 < out.count, out[j + 1] == UInt8(ascii: "\"") || out[j + 1] == UInt8(ascii: "<") {
                out[j] = UInt8(ascii: "1")
            }
            at = j
        }
        return out
    }
}
