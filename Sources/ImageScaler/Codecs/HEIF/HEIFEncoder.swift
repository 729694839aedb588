import CHEIFShim

/// AVIF (AV1 through aom) or HEIC (HEVC through x265) from rows, through libheif:
/// 8-bit RGB or RGBA (gray becomes RGB) at `options.quality` (default 50, as sharp's
/// AVIF) and `options.effort` (0-9, mapped to the encoder's speed 9-0; default 4), ICC,
/// EXIF and XMP embedded; for AVIF also `options.subsampling` (4:2:0, 4:2:2 or 4:4:4) or
/// `options.lossless` (4:4:4, RGB coded as GBR: the pixels come back exactly). The
/// encoders run on `options.threads` of their own (aom on at least 2), and give the same
/// bytes at any count. Rows are gathered first: the encoders take whole pictures.
final class HEIFEncoder: RowEncoder {
    /// sharp\'s AVIF defaults (effort 4 is aom\'s and x265\'s speed 5).
    static let defaultQuality = 50
    static let defaultEffort = 4

    /// The settings `plan` prints for these options, defaults resolved (HEIC and AVIF alike).
    static func settings(_ o: EncodeOptions) -> [String] {
        ["quality \(o.quality ?? defaultQuality)", "effort \(min(o.effort ?? defaultEffort, 9))", "8-bit", threads(max(1, o.threads))]
    }

    /// aom's single-thread path codes otherwise (no row-mt), so it never gets fewer than 2.
    private static func threads(_ n: Int) -> String { n == 1 ? "1 encoder thread" : "\(n) encoder threads" }

    /// AVIF's settings: HEIC's, and its chroma or lossless.
    static func avifSettings(_ o: EncodeOptions) -> [String] {
        let effort = "effort \(min(o.effort ?? defaultEffort, 9))"
        let threads = threads(max(2, o.threads))
        if o.lossless { return ["lossless (4:4:4, RGB as GBR)", effort, "8-bit", threads] }
        let chroma = o.subsampling.rawValue.map(String.init).joined(separator: ":")
        return ["quality \(o.quality ?? defaultQuality)", effort, chroma, "8-bit", threads]
    }
    private let format: ImageFormat
    private let collector: RGBRows
    private let options: EncodeOptions

    init(format: ImageFormat, width: Int, height: Int, channels: Int, options: EncodeOptions) {
        self.format = format
        self.options = options
        collector = RGBRows(width: width, height: height, channels: channels)
    }

    func write(_ rows: UnsafePointer<UInt8>, count: Int, bytesPerRow: Int) throws {
        collector.add(rows, count: count, bytesPerRow: bytesPerRow)
    }

    func finish() throws -> [UInt8] {
        var settings = cheif_encode_options(av1: format == .avif ? 1 : 0, quality: Int32(options.quality ?? HEIFEncoder.defaultQuality),
                                            speed: Int32(9 - min(options.effort ?? HEIFEncoder.defaultEffort, 9)),
                                            chroma: Int32(options.subsampling.rawValue) ?? 420, lossless: options.lossless ? 1 : 0, threads: Int32(clamping: options.threads))
        return try collector.encode(as: format, metadata: options, { p, w, h, c, stride, i, e, x, out, size, m, n in
            cheif_encode(p, w, h, c, stride, &settings, i.baseAddress, i.count, e.baseAddress, e.count, x.baseAddress, x.count, out, size, m, n)
        }, free: { cheif_free($0) })
    }
}
