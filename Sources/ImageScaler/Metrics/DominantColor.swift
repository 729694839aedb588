/// The colour most of a picture is: its pixels binned by the top 4 bits of each channel
/// (4,096 bins, gray as three equal channels), each pixel weighing its alpha (a
/// transparent pixel none), the heaviest bin chosen (the lowest-numbered on a tie, its
/// number being R, G, B in that order of significance), and the alpha-weighted mean of
/// that bin's pixels given, each channel rounded half up. A bin rather than the mean of
/// the picture: a red shoe on white is white, not pink. Integer sums: the same colour on
/// any machine. nil when every pixel is transparent.
public enum DominantColor {
    public static func of(_ image: PixelBuffer) -> RGBColor? {
        let c = image.channels, alpha = image.hasAlpha
        var weight = [Int](repeating: 0, count: 4096)
        var sums = [Int](repeating: 0, count: 4096 * 3)
        image.pixels.withUnsafeBufferPointer { p in
            for i in 0..<image.width * image.height {
                let s = i * c
                let (r, g, b) = c >= 3 ? (Int(p[s]), Int(p[s + 1]), Int(p[s + 2])) : (Int(p[s]), Int(p[s]), Int(p[s]))
                let a = alpha ? Int(p[s + c - 1]) : 255
                let bin = (r >> 4) << 8 | (g >> 4) << 4 | b >> 4
                weight[bin] += a
                sums[3 * bin] += r * a; sums[3 * bin + 1] += g * a; sums[3 * bin + 2] += b * a
            }
        }
        var best = 0
        for bin in 1..<4096 where weight[bin] > weight[best] { best = bin }
        let w = weight[best]
        guard w > 0 else { return nil }
        func mean(_ k: Int) -> UInt8 { UInt8((2 * sums[3 * best + k] + w) / (2 * w)) }
        return RGBColor(red: mean(0), green: mean(1), blue: mean(2))
    }
}
