import ImageScaler

/// How two images are compared, for `ImageDifference`: which pixels count as differing
/// and which are not compared at all. Geometry is top-left, in the images' pixels.
public struct ImageComparison: Sendable {
    /// How a pixel is judged.
    public enum Rule: Sendable, Equatable {
        /// Differs when any RGBA channel differs by more than this many levels.
        case tolerance(Int)
        /// mapbox/pixelmatch's perceptual rule: differs when the YIQ colour distance
        /// exceeds `35215 * threshold²`; pixels its detector finds to be anti-aliasing
        /// (in either image) are counted apart, and as differing only with
        /// `countAntialiased`. Semi-transparent pixels are blended onto white first, as
        /// the PyPI port does (pixelmatch 7's JavaScript blends onto a checkerboard).
        case perceptual(threshold: Double, countAntialiased: Bool)
        /// Differs when the CIEDE2000 difference of the two colours, laid on white by
        /// their alpha and taken from sRGB to L*a*b* under D65, exceeds this (`DeltaE2000`).
        case deltaE(Double)
    }

    public var rule: Rule
    /// Rects left out of the comparison (a clock, a cursor).
    public var ignore: [Rect]
    /// Same size as the images: its black or fully transparent pixels are not compared.
    public var mask: PixelBuffer?

    public init(rule: Rule = .tolerance(0), ignore: [Rect] = [], mask: PixelBuffer? = nil) {
        self.rule = rule
        self.ignore = ignore
        self.mask = mask
    }
}
