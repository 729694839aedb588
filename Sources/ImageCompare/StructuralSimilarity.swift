import ImageScaler

/// The structural similarity of two images of one size (`--metric ssim`): Wang et al.
/// 2004 as the encoders' quality search computes it (`SSIM`: Gaussian σ 1.5 over 11x11,
/// K1 0.01, K2 0.03, on the BT.601 luma of premultiplied RGB laid on white, equal to
/// scikit-image's), and where it got worse: the smallest rect holding every pixel whose
/// local SSIM is below `worseBelow`, with their mean. Both are taken over the map less
/// its 5-pixel border, as the score is. Pixels not compared (masked or ignored) are the
/// expected image's in both, so they score as equal.
public struct StructuralSimilarity: Sendable, Equatable {
    public static let worseBelow = 0.95
    /// About the most bytes a pixel costs at once: two luma planes and the map's planes
    /// of doubles with the blur's temporaries (a 3000x3000 pair measured about 70).
    public static let bytesPerPixel = 96

    public let score: Double
    /// Top-left origin, in the images' pixels; nil when no local score is below `worseBelow`.
    public let worse: Rect?
    public let worseMean: Double?

    public init(expected: PixelBuffer, actual: PixelBuffer, comparison: ImageComparison = ImageComparison()) throws {
        guard expected.size == actual.size else {
            throw CompareError.sizeMismatch("\(expected.size) and \(actual.size) are not one size")
        }
        let width = expected.width, height = expected.height
        let x = SSIM.luma(expected)
        var y = SSIM.luma(actual)
        if comparison.mask != nil || !comparison.ignore.isEmpty {
            let compared = ImageDifference.comparedMask(size: expected.size, comparison: comparison)
            for i in y.indices where !compared[i] { y[i] = x[i] }
        }
        let map = SSIM.map(x, y, width: width, height: height)
        score = SSIM.mean(map, width: width, height: height)
        let r = SSIM.radius, inside = width > 2 * r && height > 2 * r
        let xs = inside ? r..<(width - r) : 0..<width, ys = inside ? r..<(height - r) : 0..<height
        var x0 = Int.max, y0 = Int.max, x1 = -1, y1 = -1, sum = 0.0, count = 0
        for py in ys {
            for px in xs where map[py * width + px] < StructuralSimilarity.worseBelow {
                x0 = min(x0, px); y0 = min(y0, py); x1 = max(x1, px); y1 = max(y1, py)
                sum += map[py * width + px]
                count += 1
            }
        }
        worse = count == 0 ? nil : Rect(x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1)
        worseMean = count == 0 ? nil : sum / Double(count)
    }
}
