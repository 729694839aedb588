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
}
