/// QOI files as a `RowDecoder`, in Swift: rows stream from the operations as they are
/// read, RGB or RGBA as the header's channels say (alpha a QOI of 3 channels codes
/// anyway is dropped, as qoi.h's reader drops it). Data that ends before the last pixel
/// is damage of kind truncated (refused by default, else the rest is black); a missing
/// end marker is a warning.
struct QOIDecoder: RowDecoder {
    let data: [UInt8]
    let info: ImageInfo
    let capabilities = DecoderCapabilities()

    private static let rowsPerChunk = 16

    init(_ data: [UInt8]) throws {
        self.data = data
        guard data.count >= QOIOps.headerBytes, data.starts(with: QOIOps.magic) else {
            throw DecodeError.invalid(.qoi, "the file ends inside its 14-byte header")
        }
        func be32(_ at: Int) -> Int { data[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        let (width, height, channels, space) = (be32(4), be32(8), Int(data[12]), data[13])
        guard width > 0, height > 0 else { throw DecodeError.badDimensions(Size(width: width, height: height)) }
        guard channels == 3 || channels == 4 else { throw DecodeError.invalid(.qoi, "\(channels) channels (QOI has 3 or 4)") }
        guard space <= 1 else { throw DecodeError.invalid(.qoi, "colour space \(space) (QOI has 0, sRGB, and 1, linear)") }
        info = ImageInfo(format: .qoi, size: Size(width: width, height: height), channels: channels, bitDepth: 8,
                         colorModel: channels == 4 ? .rgba : .rgb, orientation: .up, interlaced: false,
                         iccProfile: nil, exif: nil, xmp: nil, workingBytes: QOIDecoder.rowsPerChunk * width * channels)
    }

    func decode(region: Rect?, shrink: Int, options: DecodeOptions,
                begin: (DecodedRegion) throws -> Void, rows: (RowChunk) throws -> Void) throws -> ImageInfo {
        var info = self.info
        try options.check(info.size)
        let (width, height, channels) = (info.size.width, info.size.height, info.channels)
        let rowBytes = width * channels
        try begin(DecodedRegion(rect: Rect(size: info.size), channels: channels))
        var chunk = PixelBuffer.samples(count: rowBytes * min(QOIDecoder.rowsPerChunk, height))
        var table = [UInt32](repeating: 0, count: 64)
        var pixel: UInt32 = 0xFF00_0000
        var run = 0, at = QOIOps.headerBytes
        var truncatedAt: Int? = nil
        let end = data.count
        var y = 0
        try data.withUnsafeBufferPointer { bytes in
            while y < height {
                let count = min(QOIDecoder.rowsPerChunk, height - y)
                try chunk.withUnsafeMutableBufferPointer { out in
                    var o = 0
                    for i in 0..<(count * width) {
                        if run > 0 {
                            run -= 1
                        } else if truncatedAt == nil {
                            if let next = QOIDecoder.step(bytes, at, &pixel, &run, &table) {
                                at = next
                            } else {
                                truncatedAt = y * width + i
                            }
                        }
                        if truncatedAt != nil { pixel = 0 }
                        out[o] = UInt8(pixel & 0xFF)
                        out[o + 1] = UInt8(pixel >> 8 & 0xFF)
                        out[o + 2] = UInt8(pixel >> 16 & 0xFF)
                        if channels == 4 { out[o + 3] = truncatedAt == nil ? UInt8(pixel >> 24) : 0 }
                        o += channels
                    }
                    if let stop = truncatedAt, !options.failOn.tolerates(.truncated) {
                        throw DecodeError.refusing(.invalid(.qoi, "the data ends at pixel \(stop) of \(width * height)"), damage: .truncated)
                    }
                    try rows(RowChunk(firstRow: y, count: count, bytesPerRow: rowBytes, pixels: UnsafePointer(out.baseAddress!)))
                }
                y += count
            }
        }
        if let stop = truncatedAt {
            info.warnings.append("damaged QOI decoded anyway (fail-on \(options.failOn.rawValue)): the data ends at pixel \(stop) of \(width * height); \(stop / width) of \(height) rows decoded, the rest left black")
        } else if !(at + QOIOps.end.count <= end && Array(data[at..<at + QOIOps.end.count]) == QOIOps.end) {
            guard options.failOn.tolerates(.warning) else {
                throw DecodeError.refusing(.invalid(.qoi, "no end marker after the last pixel"), damage: .warning)
            }
            info.warnings.append("damaged QOI decoded anyway (fail-on \(options.failOn.rawValue)): no end marker after the last pixel")
        }
        return info
    }

    /// Reads the operation at `at` into `pixel` (and `run`, `table`); the offset after it,
    /// or nil where the data ends first.
    @inline(__always)
    private static func step(_ bytes: UnsafeBufferPointer<UInt8>, _ at: Int, _ pixel: inout UInt32, _ run: inout Int,
                             _ table: inout [UInt32]) -> Int? {
        let end = bytes.count
        guard at < end else { return nil }
        let tag = bytes[at]
        var next = at + 1
        if tag == QOIOps.rgb || tag == QOIOps.rgba {
            let n = tag == QOIOps.rgb ? 3 : 4
            guard next + n <= end else { return nil }
            pixel = UInt32(bytes[next]) | UInt32(bytes[next + 1]) << 8 | UInt32(bytes[next + 2]) << 16
                | (n == 4 ? UInt32(bytes[next + 3]) << 24 : pixel & 0xFF00_0000)
            next += n
        } else {
            switch tag & QOIOps.mask {
            case QOIOps.index:
                pixel = table[Int(tag)]
            case QOIOps.diff:
                pixel = add(pixel, Int(tag >> 4 & 3) - 2, Int(tag >> 2 & 3) - 2, Int(tag & 3) - 2)
            case QOIOps.luma:
                guard next < end else { return nil }
                let second = bytes[next]
                next += 1
                let green = Int(tag & 0x3F) - 32
                pixel = add(pixel, green - 8 + Int(second >> 4), green, green - 8 + Int(second & 0x0F))
            default:
                run = Int(tag & 0x3F)
            }
        }
        table[QOIOps.slot(pixel)] = pixel
        return next
    }

    /// `pixel` with each colour channel moved by its difference, wrapping as bytes do.
    @inline(__always)
    private static func add(_ pixel: UInt32, _ dr: Int, _ dg: Int, _ db: Int) -> UInt32 {
        let r = UInt32(UInt8(truncatingIfNeeded: Int(pixel & 0xFF) + dr))
        let g = UInt32(UInt8(truncatingIfNeeded: Int(pixel >> 8 & 0xFF) + dg))
        let b = UInt32(UInt8(truncatingIfNeeded: Int(pixel >> 16 & 0xFF) + db))
        return r | g << 8 | b << 16 | pixel & 0xFF00_0000
    }
}
