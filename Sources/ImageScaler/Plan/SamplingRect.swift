/// A possibly fractional region of a source image, in top-left-origin pixel units:
/// the edge of pixel column i is at x = i and its centre at i + 0.5. The resampler maps
/// it onto the whole output, so crop and scale share one sampling grid.
package struct SamplingRect: Equatable, Sendable, CustomStringConvertible {
    package var x: Double
    package var y: Double
    package var width: Double
    package var height: Double

    package init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    package init(_ rect: Rect) {
        self.init(x: Double(rect.x), y: Double(rect.y), width: Double(rect.width), height: Double(rect.height))
    }

    /// "x,y,w,h" with up to three decimals, as `plan` prints it.
    package var description: String {
        [x, y, width, height].map { v in
            let milli = (v * 1000).rounded()
            let whole = Int(milli / 1000), frac = Int(abs(milli).truncatingRemainder(dividingBy: 1000))
            guard frac != 0 else { return "\(whole)" }
            var digits = String(frac)
            digits = String(repeating: "0", count: 3 - digits.count) + digits
            while digits.hasSuffix("0") { digits.removeLast() }
            return (milli < 0 && whole == 0 ? "-" : "") + "\(whole).\(digits)"
        }.joined(separator: ",")
    }

    /// The same region in an image reduced by `factor` (shrink-on-load at 1/factor).
    func scaled(by factor: Double) -> SamplingRect {
        SamplingRect(x: x * factor, y: y * factor, width: width * factor, height: height * factor)
    }
}
