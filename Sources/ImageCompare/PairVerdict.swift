import ImageScaler

/// The one verdict on a pair of images: `imgscale compare` and ImageScalerTesting's
/// golden check both judge through it, so a test's assertion and the CLI cannot disagree
/// on a pair. Images of different sizes differ, compared on a canvas holding both (as
/// Playwright shows them). Of one size, the limits decide on their difference under the
/// comparison: at 16 bits when both files hold more than 8 and the rule is a tolerance
/// (a difference an 8-bit reduction would round away still counts), and with their SSIM
/// when the limits ask for one or the caller does.
package struct PairVerdict: Sendable {
    /// The two images as compared: padded with transparency onto one canvas when their
    /// sizes differ.
    package let expected: PixelBuffer
    package let actual: PixelBuffer
    package let sameSize: Bool
    package let difference: ImageDifference
    /// 16 when the pair was compared at 16 bits, else 8.
    package let bitDepth: Int
    package let ssim: StructuralSimilarity?
    package let matches: Bool

    /// `files` are the pair's bytes, for the 16-bit comparison, decoded with `decode`
    /// (whose memory budget SSIM's working memory is held to too: over it, a
    /// `DecodeError.overBudget`); `scoreSSIM` asks for SSIM though no limit needs it.
    package init(expected: PixelBuffer, actual: PixelBuffer, files: (expected: [UInt8], actual: [UInt8])? = nil,
                 decode: DecodeOptions = DecodeOptions(), autoOrient: Bool = true, comparison: ImageComparison,
                 limits: CompareLimits, scoreSSIM: Bool = false, keepClasses: Bool = false) throws {
        sameSize = expected.size == actual.size
        var (e, a) = (expected, actual)
        if !sameSize {
            let canvas = Size(width: max(e.width, a.width), height: max(e.height, a.height))
            (e, a) = (DiffImage.canvas(e, size: canvas), DiffImage.canvas(a, size: canvas))
        }
        (self.expected, self.actual) = (e, a)
        var d = try ImageDifference(expected: e, actual: a, comparison: comparison, keepClasses: keepClasses)
        var depth = 8
        if sameSize, case .tolerance = comparison.rule, let files,
           let (_, e16) = try? ImageFile.decodeRGBA16(files.expected, options: decode, autoOrient: autoOrient),
           let (_, a16) = try? ImageFile.decodeRGBA16(files.actual, options: decode, autoOrient: autoOrient),
           let d16 = try? ImageDifference(expected16: e16, actual16: a16, size: e.size,
                                          withAlpha: [expected, actual].contains { $0.channels == 2 || $0.channels == 4 },
                                          comparison: comparison, keepClasses: keepClasses) {
            d = d16
            depth = 16
        }
        (difference, bitDepth) = (d, depth)
        var score: StructuralSimilarity? = nil
        if sameSize && (scoreSSIM || limits.minSSIM != nil) {
            // Its working memory is held to the budget as the decodes are.
            let bytes = e.width.multipliedReportingOverflow(by: e.height * StructuralSimilarity.bytesPerPixel)
            if bytes.overflow || bytes.partialValue > decode.maxMemory {
                throw DecodeError.overBudget(needed: bytes.overflow ? Int.max : bytes.partialValue, budget: decode.maxMemory)
            }
            score = try? StructuralSimilarity(expected: e, actual: a, comparison: comparison)
        }
        ssim = score
        matches = sameSize && limits.matches(d, ssim: score?.score)
    }
}
