import CWebPShim

/// WebP from rows through libwebp: lossy at `options.quality` (default 80) or lossless,
/// at effort `options.effort` (libwebp's method, default 4), alpha kept (gray becomes
/// RGB: WebP has no gray), ICC/EXIF/XMP added as RIFF chunks. libwebp encodes a
/// whole picture, so rows are gathered first. Single-threaded, so deterministic.
final class WebPEncoder: RowEncoder {
    private let width: Int
    private let height: Int
    private let channels: Int
    private let options: EncodeOptions
    private var pixels: [UInt8]
    private var rowsWritten = 0

    init(width: Int, height: Int, channels: Int, options: EncodeOptions) {
        self.width = width
        self.height = height
        self.channels = channels == 2 || channels == 4 ? 4 : 3
        self.options = options
        pixels = PixelBuffer.samples(count: width * height * self.channels)
        inputChannels = channels
    }

    private let inputChannels: Int

    func write(_ rows: UnsafePointer<UInt8>, count: Int, bytesPerRow: Int) throws {
        let n = min(count, height - rowsWritten)
        pixels.withUnsafeMutableBufferPointer { out in
            for r in 0..<n {
                let src = rows + r * bytesPerRow
                let dst = out.baseAddress! + (rowsWritten + r) * width * channels
                switch inputChannels {
                case 1, 2:
                    for x in 0..<width {
                        let g = src[x * inputChannels]
                        dst[x * channels] = g
                        dst[x * channels + 1] = g
                        dst[x * channels + 2] = g
                        if inputChannels == 2 { dst[x * channels + 3] = src[x * 2 + 1] }
                    }
                default:
                    dst.update(from: src, count: width * channels)
                }
            }
        }
        rowsWritten += n
    }

    func finish() throws -> [UInt8] {
        guard rowsWritten == height else { throw EncodeError.incomplete(rows: rowsWritten, of: height) }
        var settings = cwebp_encode_options(quality: Int32(options.quality ?? 80), method: Int32(options.effort ?? 4),
                                            lossless: options.lossless ? 1 : 0)
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        var message = ShimMessage()
        let icc = options.iccProfile ?? [], exif = options.exif ?? [], xmp = options.xmp ?? []
        let status = pixels.withUnsafeBufferPointer { p in
            icc.withUnsafeBufferPointer { i in
                exif.withUnsafeBufferPointer { e in
                    xmp.withUnsafeBufferPointer { x in
                        message.with {
                            cwebp_encode(p.baseAddress, UInt32(width), UInt32(height), Int32(channels), width * channels, &settings,
                                         i.baseAddress, i.count, e.baseAddress, e.count, x.baseAddress, x.count, &out, &size, $0, $1)
                        }
                    }
                }
            }
        }
        guard status == 0, let bytes = out else { throw EncodeError.failed(.webp, message.text) }
        defer { cwebp_free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: size))
    }
}
