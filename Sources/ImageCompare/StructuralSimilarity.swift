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
    /// About the most bytes a pixel costs at once beside the two images: the compared
    /// mask, when there is one (the map is made row by row).
    public static let bytesPerPixel = 1

    public let score: Double
    /// Top-left origin, in the images' pixels; nil when no local score is below `worseBelow`.
    public let worse: Rect?
    public let worseMean: Double?

    public init(expected: PixelBuffer, actual: PixelBuffer, comparison: ImageComparison = ImageComparison()) throws {
        guard expected.size == actual.size else {
            throw CompareError.sizeMismatch("\(expected.size) and \(actual.size) are not one size")
        }
        let width = expected.width, height = expected.height
        // Row by row (`SSIM.forEachMapRow`): a few rows of doubles, not planes of them.
        let compared = comparison.mask != nil || !comparison.ignore.isEmpty
            ? ImageDifference.comparedMask(size: expected.size, comparison: comparison) : nil
        var expectedRow = [Double](repeating: 0, count: width)
        let (xs, ys) = SSIM.inside(width: width, height: height)
        var x0 = Int.max, y0 = Int.max, x1 = -1, y1 = -1, sum = 0.0, count = 0, total = 0.0
        SSIM.forEachMapRow(width: width, height: height, x: { SSIM.luma(expected, row: $0, into: $1) }, y: { row, out in
            SSIM.luma(actual, row: row, into: out)
            guard let compared else { return }
            expectedRow.withUnsafeMutableBufferPointer { e in
                SSIM.luma(expected, row: row, into: e.baseAddress!)
                for i in 0..<width where !compared[row * width + i] { out[i] = e[i] }
            }
        }) { py, map in
            guard ys.contains(py) else { return }
            for px in xs { total += map[px] }
            for px in xs where map[px] < StructuralSimilarity.worseBelow {
                x0 = min(x0, px); y0 = min(y0, py); x1 = max(x1, px); y1 = max(y1, py)
                sum += map[px]
                count += 1
            }
        }
        score = width == 0 || height == 0 ? 1 : total / Double(xs.count * ys.count)
        worse = count == 0 ? nil : Rect(x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1)
        worseMean = count == 0 ? nil : sum / Double(count)
    }
}
