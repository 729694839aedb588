import CWebPShim

/// WebP from rows through libwebp: lossy at `options.quality` (default 80) or lossless,
/// at effort `options.effort` (libwebp's method 0-6, default 4), alpha kept (gray
/// becomes RGB: WebP has no gray), ICC/EXIF/XMP added as RIFF chunks. libwebp encodes
/// a whole picture, so rows are gathered first. Single-threaded, so deterministic.
final class WebPEncoder: RowEncoder {
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
        guard collector.isComplete else { throw EncodeError.incomplete(rows: collector.rows, of: collector.height) }
        var settings = cwebp_encode_options(quality: Int32(options.quality ?? 80), method: Int32(min(options.effort ?? 4, 6)),
                                            lossless: options.lossless ? 1 : 0)
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        var message = ShimMessage()
        let (width, height, channels) = (collector.width, collector.height, collector.channels)
        let status = collector.pixels.withUnsafeBufferPointer { p in
            options.withMetadata { i, e, x in
                message.with {
                    cwebp_encode(p.baseAddress, UInt32(width), UInt32(height), Int32(channels), width * channels, &settings,
                                 i.baseAddress, i.count, e.baseAddress, e.count, x.baseAddress, x.count, &out, &size, $0, $1)
                }
            }
        }
        guard status == 0, let bytes = out else { throw EncodeError.failed(.webp, message.text) }
        defer { cwebp_free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: size))
    }
}
