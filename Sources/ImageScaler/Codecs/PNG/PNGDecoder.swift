/// PNG as a `RowDecoder`: the whole image at full size, rows in order (Adam7 files are
/// decoded whole first, then handed over).
struct PNGDecoder: RowDecoder {
    let data: [UInt8]
    let info: ImageInfo
    let capabilities = DecoderCapabilities()

    init(_ data: [UInt8]) throws {
        self.data = data
        info = try PNGCodec.info(data)
    }

    func decode(region: Rect?, shrink: Int, options: DecodeOptions,
                begin: (DecodedRegion) throws -> Void, rows: (RowChunk) throws -> Void) throws -> ImageInfo {
        try PNGCodec.decodeRows(data, options: options, begin: begin, rows: rows)
    }

    /// A 16-bit PNG at 16 bits; nil for one of 8 bits or fewer.
    func decodeWide(options: DecodeOptions) throws -> (WideImage, ImageInfo)? {
        try PNGCodec.decodeWide(data, options: options)
    }

    /// Inflating runs on the lent thread while this one unfilters, where the fast path
    /// takes the file.
    func decode(region: Rect?, shrink: Int, options: DecodeOptions, lending thread: LentThread,
                begin: (DecodedRegion) throws -> Void, rows: (RowChunk) throws -> Void) throws -> ImageInfo {
        try PNGCodec.decodeRows(data, options: options, thread: thread, begin: begin, rows: rows)
    }
}
