import CJXLShim

/// JPEG XL through libjxl as a `RowDecoder`: the first frame (composited, for an
/// animation), 8-bit samples (deeper ones rounded by libjxl), gray or RGB with straight
/// alpha, stored orientation with the codestream's orientation in `info`; the ICC
/// profile describes the decoded pixels; EXIF and XMP from their boxes. libjxl decodes
/// the whole frame, so it is made whole first; every allocation of libjxl's is counted
/// against the memory budget.
struct JXLDecoder: RowDecoder {
    let data: [UInt8]
    let info: ImageInfo
    let capabilities = DecoderCapabilities()

    init(_ data: [UInt8], options: DecodeOptions) throws {
        self.data = data
        var raw = cjxl_info()
        var message = ShimMessage()
        let status = data.withUnsafeBufferPointer { d in
            message.with { cjxl_read_info(d.baseAddress, d.count, options.maxMemory, &raw, $0, $1) }
        }
        defer { cjxl_free_info(&raw) }
        guard status == 0 else { throw DecodeError.invalid(.jxl, message.text) }
        // Every coded frame and layer is decoded, shown or not, even for a still: they
        // count against the frame limit and the frames' pixel limit as shown frames do.
        let coded = Int(raw.coded_frames)
        if coded > options.maxFrames {
            throw DecodeError.invalid(.jxl, "\(coded) coded frames and layers (\(raw.frames) shown), over the limit of \(options.maxFrames) (raise it with --max-frames)")
        }
        if options.maxPixels > 0, raw.coded_area > UInt64(options.maxPixels * DecodeError.framePixelsFactor) {
            throw DecodeError.invalid(.jxl, "its \(coded) coded frames and layers hold \(raw.coded_area) pixels, over \(DecodeError.framePixelsFactor) times the limit of \(options.maxPixels) (raise it with --max-pixels)")
        }
        func bytes(_ p: UnsafeMutablePointer<UInt8>?, _ n: Int) -> [UInt8]? { p.map { Array(UnsafeBufferPointer(start: $0, count: n)) } }
        let size = Size(width: Int(raw.width), height: Int(raw.height))
        let alpha = raw.alpha != 0, gray = raw.color_channels == 1
        let channels = (gray ? 1 : 3) + (alpha ? 1 : 0)
        info = ImageInfo(format: .jxl, size: size, channels: channels, bitDepth: Int(raw.bits),
                         colorModel: gray ? (alpha ? .grayAlpha : .gray) : (alpha ? .rgba : .rgb),
                         orientation: Orientation(rawValue: Int(raw.orientation)) ?? .up, interlaced: false,
                         iccProfile: bytes(raw.icc, raw.icc_length), exif: bytes(raw.exif, raw.exif_length),
                         xmp: bytes(raw.xmp, raw.xmp_length), frames: Int(raw.frames),
                         // The frame handed over, and libjxl's own planes of it in 32-bit
                         // floats while it decodes (its allocations fail past the budget too).
                         workingBytes: .saturatingProduct(size.width, size.height, channels + 4 * (channels + 1)))
    }

    func frames(options: DecodeOptions) throws -> (any FrameReader)? {
        info.frames > 1 ? try JXLFrameReader(data, canvas: info.size, failOn: options.failOn) : nil
    }

    func decode(region: Rect?, shrink: Int, options: DecodeOptions,
                begin: (DecodedRegion) throws -> Void, rows: (RowChunk) throws -> Void) throws -> ImageInfo {
        try decode(threads: 1, options: options, begin: begin, rows: rows)
    }

    /// Lent a core, libjxl decodes on a pool of two while this thread waits (the
    /// executor's budget: the decode's thread and the lent one).
    func decode(region: Rect?, shrink: Int, options: DecodeOptions, lending thread: LentThread,
                begin: (DecodedRegion) throws -> Void, rows: (RowChunk) throws -> Void) throws -> ImageInfo {
        try decode(threads: 2, options: options, begin: begin, rows: rows)
    }

    /// A file of more than 8 bits a sample at 16 bits, as libjxl renders it (its pixels
    /// are floats inside: 16 bits hold what 8 would round away); nil for 8 bits.
    func decodeWide(options: DecodeOptions) throws -> (WideImage, ImageInfo)? {
        guard info.bitDepth > 8 else { return nil }
        try options.check(info.size)
        let (width, height, channels) = (info.size.width, info.size.height, info.channels)
        var samples = [UInt16](repeating: 0, count: width * height * channels)
        try samples.withUnsafeMutableBytes { try render(into: $0, sampleBytes: 2, threads: 1, options: options) }
        return (WideImage(width: width, height: height, channels: channels, samples: samples), info)
    }

    /// The first frame into `out`, rows of `sampleBytes` samples back to back; the
    /// warning when a truncated file was drawn as far as it goes (`--fail-on truncated`).
    @discardableResult
    private func render(into out: UnsafeMutableRawBufferPointer, sampleBytes: Int, threads: Int, options: DecodeOptions) throws -> String? {
        let (width, height, channels) = (info.size.width, info.size.height, info.channels)
        var message = ShimMessage()
        let partial: Int32 = options.failOn.tolerates(.truncated) ? 1 : 0
        let status = data.withUnsafeBufferPointer { d in
            message.with {
                cjxl_decode(d.baseAddress, d.count, options.maxMemory, UInt32(width), UInt32(height), Int32(channels), Int32(sampleBytes),
                            Int32(threads), partial, out.baseAddress?.assumingMemoryBound(to: UInt8.self), width * channels * sampleBytes, $0, $1)
            }
        }
        if status == 1 { return "damaged JPEG XL decoded anyway (fail-on \(options.failOn.rawValue)): \(message.text); what it holds drawn as libjxl previews it" }
        if status != 0 {
            throw status == -2 ? DecodeError.refusing(.invalid(.jxl, message.text), damage: .truncated) : DecodeError.invalid(.jxl, message.text)
        }
        return nil
    }

    private func decode(threads: Int, options: DecodeOptions,
                        begin: (DecodedRegion) throws -> Void, rows: (RowChunk) throws -> Void) throws -> ImageInfo {
        try options.check(info.size)
        let (width, height, channels) = (info.size.width, info.size.height, info.channels)
        let rowBytes = width * channels
        var pixels = PixelBuffer.samples(count: rowBytes * height)
        var info = self.info
        if let warning = try pixels.withUnsafeMutableBytes({ try render(into: $0, sampleBytes: 1, threads: threads, options: options) }) {
            info.warnings.append(warning)
        }
        try begin(DecodedRegion(rect: Rect(size: info.size), channels: channels))
        try pixels.withUnsafeBufferPointer { try RowChunk.handOver($0, height: height, bytesPerRow: rowBytes, to: rows) }
        return info
    }
}
