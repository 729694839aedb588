/// Rows gathered into one RGB or RGBA picture for encoders that take whole pictures
/// (WebP, HEIF): gray becomes RGB and gray+alpha RGBA, since neither format stores gray
/// through these libraries. Rows past `height` are ignored.
final class RGBRows {
    let width: Int
    let height: Int
    /// 3 or 4.
    let channels: Int
    private let inputChannels: Int
    private(set) var pixels: [UInt8]
    private(set) var rows = 0

    init(width: Int, height: Int, channels: Int) {
        self.width = width
        self.height = height
        inputChannels = channels
        self.channels = channels == 2 || channels == 4 ? 4 : 3
        pixels = PixelBuffer.samples(count: width * height * self.channels)
    }

    var isComplete: Bool { rows == height }

    func add(_ source: UnsafePointer<UInt8>, count: Int, bytesPerRow: Int) {
        let n = min(count, height - rows)
        let (width, channels, inputChannels, first) = (self.width, self.channels, self.inputChannels, rows)
        pixels.withUnsafeMutableBufferPointer { out in
            for r in 0..<n {
                let src = source + r * bytesPerRow
                let dst = out.baseAddress! + (first + r) * width * channels
                guard inputChannels <= 2 else {
                    dst.update(from: src, count: width * channels)
                    continue
                }
                for x in 0..<width {
                    let g = src[x * inputChannels]
                    dst[x * channels] = g
                    dst[x * channels + 1] = g
                    dst[x * channels + 2] = g
                    if inputChannels == 2 { dst[x * channels + 3] = src[x * 2 + 1] }
                }
            }
        }
        rows += n
    }

    /// The picture through a whole-picture C encoder (`call`, given the pixels, their
    /// size, channels and stride, `options`' ICC, EXIF and XMP, where to put its malloc'd
    /// output and room for its message), the output copied out and released by `free`.
    /// A failure is `format`'s, in the library's words. Every row must have been added.
    func encode(as format: ImageFormat, metadata options: EncodeOptions,
                _ call: (UnsafePointer<UInt8>?, UInt32, UInt32, Int32, Int,
                         UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>,
                         UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, UnsafeMutablePointer<Int>,
                         UnsafeMutablePointer<CChar>, Int) -> Int32,
                free: (UnsafeMutablePointer<UInt8>) -> Void) throws -> [UInt8] {
        guard isComplete else { throw EncodeError.incomplete(rows: rows, of: height) }
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        var message = ShimMessage()
        let (width, height, channels) = (self.width, self.height, self.channels)
        let status = pixels.withUnsafeBufferPointer { p in
            options.withMetadata { i, e, x in
                message.with { call(p.baseAddress, UInt32(width), UInt32(height), Int32(channels), width * channels, i, e, x, &out, &size, $0, $1) }
            }
        }
        guard status == 0, let bytes = out else { throw EncodeError.failed(format, message.text) }
        defer { free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: size))
    }
}
