import CWebPShim

/// WebP from rows through libwebp: lossy at `options.quality` (default 80) or lossless,
/// at effort `options.effort` (libwebp's method 0-6, default 4), alpha kept (gray
/// becomes RGB: WebP has no gray), ICC/EXIF/XMP added as RIFF chunks. libwebp encodes
/// a whole picture, so rows are gathered first. Single-threaded, so deterministic.
final class WebPEncoder: RowEncoder {
    /// sharp's and libvips's defaults.
    static let defaultQuality = 80
    static let defaultEffort = 4
    private let collector: RGBRows
    private let options: EncodeOptions

    init(width: Int, height: Int, channels: Int, options: EncodeOptions) {
        collector = RGBRows(width: width, height: height, channels: channels)
        self.options = options
    }

    func write(_ rows: UnsafePointer<UInt8>, count: Int, bytesPerRow: Int) throws {
        collector.add(rows, count: count, bytesPerRow: bytesPerRow)
    }

    func finish() throws -> [UInt8] {
        var settings = cwebp_encode_options(quality: Int32(options.quality ?? WebPEncoder.defaultQuality), method: Int32(min(options.effort ?? WebPEncoder.defaultEffort, 6)),
                                            lossless: options.lossless ? 1 : 0)
        return try collector.encode(as: .webp, metadata: options, { p, w, h, c, stride, i, e, x, out, size, m, n in
            cwebp_encode(p, w, h, c, stride, &settings, i.baseAddress, i.count, e.baseAddress, e.count, x.baseAddress, x.count, out, size, m, n)
        }, free: { cwebp_free($0) })
    }
}
