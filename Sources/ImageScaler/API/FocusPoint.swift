/// A point of interest in the upright image, as CMSs store one (Sanity's hotspot,
/// Cloudinary's `g_xy_center`, imgix's `fp-x`/`fp-y`): `fill --focus` centres the crop
/// on it as far as the image allows. Each coordinate is a pixel (the point is that
/// pixel's centre) or a share of the upright image's side in hundredths of a percent,
/// so every position is an exact fraction and the crop exact integer geometry.
public struct FocusPoint: Equatable, Hashable, Sendable {
    public enum Coordinate: Equatable, Hashable, Sendable {
        case pixel(Int)
        /// 0 ... 10000: 5000 is the middle.
        case basisPoints(Int)

        /// The position along a side of `extent` pixels, as numerator over denominator.
        func position(extent: Int) -> (num: Int, den: Int) {
            switch self {
            case .pixel(let p): return (2 * p + 1, 2)
            case .basisPoints(let b): return (b * extent, 10_000)  // at most 10^4 x 2^31
            }
        }

        /// "120" or "37.5%", as `--focus` takes it.
        public var text: String {
            switch self {
            case .pixel(let p): return String(p)
            case .basisPoints(let b):
                let whole = b / 100, frac = b % 100
                return frac == 0 ? "\(whole)%" : "\(whole)." + (frac % 10 == 0 ? String(frac / 10) : (frac < 10 ? "0" : "") + String(frac)) + "%"
            }
        }

        /// The coordinate scaled by num/den (a drawn picture's pixels); shares are unchanged.
        func scaled(_ num: Int, _ den: Int) -> Coordinate {
            guard case .pixel(let p) = self else { return self }
            return .pixel(AspectFill.floorDiv((2 * p + 1) * num, 2 * den))
        }
    }

    public let x: Coordinate
    public let y: Coordinate

    public init(x: Coordinate, y: Coordinate) {
        self.x = x
        self.y = y
    }

    public var text: String { x.text + "," + y.text }

    func scaled(_ num: Int, _ den: Int) -> FocusPoint { FocusPoint(x: x.scaled(num, den), y: y.scaled(num, den)) }
}
