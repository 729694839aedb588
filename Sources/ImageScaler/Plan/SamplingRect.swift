/// A possibly fractional region of a source image, in top-left-origin pixel units:
/// the edge of pixel column i is at x = i and its centre at i + 0.5. The resampler maps
/// it onto the whole output, so crop and scale share one sampling grid.
struct SamplingRect: Equatable, Sendable {
    var x: Double
    var y: Double
    var width: Double
    var height: Double

    init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    init(_ rect: Rect) {
        self.init(x: Double(rect.x), y: Double(rect.y), width: Double(rect.width), height: Double(rect.height))
    }

    /// The same region in an image reduced by `factor` (shrink-on-load at 1/factor).
    func scaled(by factor: Double) -> SamplingRect {
        SamplingRect(x: x * factor, y: y * factor, width: width * factor, height: height * factor)
    }
}
