import CHEIFShim

/// AVIF (AV1 through aom) or HEIC (HEVC through x265) from rows, through libheif:
/// 8-bit RGB or RGBA (gray becomes RGB) at `options.quality` (default 50, as sharp's
/// AVIF) and `options.effort` (0-9, mapped to the encoder's speed 9-0; default 4), ICC,
/// EXIF and XMP embedded. One encoder thread, so the bytes are deterministic. Rows are
/// gathered first: the encoders take whole pictures.
final class HEIFEncoder: RowEncoder {
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
        guard collector.isComplete else { throw EncodeError.incomplete(rows: collector.rows, of: collector.height) }
        var settings = cheif_encode_options(av1: format == .avif ? 1 : 0, quality: Int32(options.quality ?? 50),
                                            speed: Int32(9 - min(options.effort ?? 4, 9)))
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        var message = ShimMessage()
        let (width, height, channels) = (collector.width, collector.height, collector.channels)
        let status = collector.pixels.withUnsafeBufferPointer { p in
            options.withMetadata { i, e, x in
                message.with {
                    cheif_encode(p.baseAddress, UInt32(width), UInt32(height), Int32(channels), width * channels, &settings,
                                 i.baseAddress, i.count, e.baseAddress, e.count, x.baseAddress, x.count, &out, &size, $0, $1)
                }
            }
        }
        guard status == 0, let bytes = out else { throw EncodeError.failed(format, message.text) }
        defer { cheif_free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: size))
    }
}
