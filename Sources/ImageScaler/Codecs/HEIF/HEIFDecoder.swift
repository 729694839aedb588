import CHEIFShim

/// HEIC and AVIF through libheif as a `RowDecoder`: the primary image, 8 to 12 bits
/// (reduced to 8 by libheif for rows, kept at 16 by `decodeWide`), alpha, grids of tiles, ICC, EXIF and XMP. The container's
/// `irot`, `imir` and `clap` are part of the image in HEIF, so libheif applies them and
/// the size given is already upright; the EXIF orientation a HEIF also carries (iPhones
/// write one matching `irot`) describes the stored tiles, so it is never applied a
/// second time: `orientation` is always 1, and the EXIF is kept only as metadata. The
/// image is decoded whole, then handed over in chunks: RGB, or RGBA with straight alpha.
struct HEIFDecoder: RowDecoder {
    let data: [UInt8]
    let info: ImageInfo
    let capabilities = DecoderCapabilities()
    /// A limited-range monochrome primary, which the shim stretches (HEIFGrayRange).
    private let limitedGray: Int32

    init(_ data: [UInt8], format: ImageFormat) throws {
        self.data = data
        // libheif 1.15 follows item references without limit (an iden of itself
        // overflows its stack) and allocates what a bitstream codes, whatever the
        // container claims: the structure is checked before libheif reads it.
        let graph = try HEIFItemGraph(data, format: format)
        try graph.validate(as: format)
        limitedGray = HEIFGrayRange.isLimitedMonochrome(graph) ? 1 : 0
        var raw = cheif_info()
        var message = ShimMessage()
        let reader = data.withUnsafeBufferPointer { d in
            message.with { cheif_open(d.baseAddress, d.count, Int32(format.maxSide), &raw, $0, $1) }
        }
        guard let reader else { throw DecodeError.invalid(format, message.text) }
        defer { cheif_close(reader) }
        func bytes(_ p: UnsafePointer<UInt8>?, _ n: Int) -> [UInt8]? {
            guard let p, n > 0 else { return nil }
            return Array(UnsafeBufferPointer(start: p, count: n))
        }
        let alpha = raw.has_alpha != 0
        let size = Size(width: Int(raw.width), height: Int(raw.height))
        // libheif holds the decoded planes (YCbCr at up to 16 bits, and alpha) besides
        // the interleaved result.
        // Past 8 bits libheif's planes are 16-bit and it converts through a 16-bit RGB
        // image before reducing to 8 (a 10-bit 7400x7400 HEIC peaked at 717 MiB).
        let working = size.width * size.height * (alpha ? 4 : 3) * (raw.bit_depth > 8 ? 5 : 3)
        var info = ImageInfo(format: format, size: size, channels: alpha ? 4 : 3, bitDepth: max(8, Int(raw.bit_depth)),
                             colorModel: alpha ? .rgba : .rgb, orientation: .up, interlaced: false,
                             iccProfile: bytes(raw.icc, raw.icc_length), exif: bytes(raw.exif, raw.exif_length),
                             xmp: bytes(raw.xmp, raw.xmp_length), workingBytes: working,
                             warnings: raw.premultiplied != 0 ? ["alpha is stored premultiplied; decoded as libheif gives it"] : [])
        info.images = max(1, Int(raw.images))
        info.primaryItem = Int(graph.primary)
        self.info = info
    }

    func decode(region: Rect?, shrink: Int, options: DecodeOptions,
                begin: (DecodedRegion) throws -> Void, rows: (RowChunk) throws -> Void) throws -> ImageInfo {
        try decode(threads: 1, options: options, begin: begin, rows: rows)
    }

    /// With a thread lent, libheif may decode grid tiles on two: this one and the lent
    /// core (libheif starts them itself; the executor's budget bounds how many).
    func decode(region: Rect?, shrink: Int, options: DecodeOptions, lending thread: LentThread,
                begin: (DecodedRegion) throws -> Void, rows: (RowChunk) throws -> Void) throws -> ImageInfo {
        try decode(threads: 2, options: options, begin: begin, rows: rows)
    }

    /// A source of 10 or 12 bits at 16, each of its levels spread over 0-65535 (what
    /// `avifdec -d 16` and `heif-convert` give, within a level of the source's depth);
    /// nil for 8 bits.
    func decodeWide(options: DecodeOptions) throws -> (WideImage, ImageInfo)? {
        guard info.bitDepth > 8 else { return nil }
        try options.check(info.size)
        let (width, height, channels) = (info.size.width, info.size.height, info.channels)
        var samples = [UInt16](repeating: 0, count: width * height * channels)
        try read { reader, message in
            samples.withUnsafeMutableBufferPointer { out in
                message.with { cheif_decode16(reader, Int32(channels), 1, limitedGray, out.baseAddress, width * channels, $0, $1) }
            }
        }
        return (WideImage(width: width, height: height, channels: channels, samples: samples), info)
    }

    /// Opens the file again for one decode by `body` (a status: 0 is success).
    private func read(_ body: (OpaquePointer, inout ShimMessage) -> Int32) throws {
        var message = ShimMessage()
        var raw = cheif_info()
        let status = data.withUnsafeBufferPointer { d -> Int32 in
            // Every item decoded (grid tiles, the alpha image) must be about the primary
            // image's size: a tile declaring 30000x30000 inside a 301x201 image (3 GB, 4 s
            // before) is refused before libheif allocates for it. Tiles may overhang the
            // image they are cropped to (heif-enc pads 321x241 into one 322x242 tile,
            // iPhones 4032x3024 into 4096x3072), hence the margin.
            let side = Int32(min(max(info.size.width, info.size.height) + 1024, info.format.maxSide))
            guard let reader = message.with({ cheif_open(d.baseAddress, d.count, side, &raw, $0, $1) }) else { return -1 }
            defer { cheif_close(reader) }
            return body(reader, &message)
        }
        // libheif decodes a whole image or fails: there is no partial result to keep.
        guard status == 0 else { throw DecodeError.invalid(info.format, message.text) }
    }

    private func decode(threads: Int, options: DecodeOptions,
                        begin: (DecodedRegion) throws -> Void, rows: (RowChunk) throws -> Void) throws -> ImageInfo {
        try options.check(info.size)
        let (width, height, channels) = (info.size.width, info.size.height, info.channels)
        let rowBytes = width * channels
        var pixels = PixelBuffer.samples(count: rowBytes * height)
        try read { reader, message in
            pixels.withUnsafeMutableBufferPointer { out in
                message.with { cheif_decode(reader, Int32(channels), Int32(threads), limitedGray, out.baseAddress, rowBytes, $0, $1) }
            }
        }
        try begin(DecodedRegion(rect: Rect(size: info.size), channels: channels))
        try pixels.withUnsafeBufferPointer { try RowChunk.handOver($0, height: height, bytesPerRow: rowBytes, to: rows) }
        return info
    }
}
