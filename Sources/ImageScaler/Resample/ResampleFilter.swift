#if canImport(Glibc)
import Glibc
#endif

extension ImageOperation {
    /// Pillow's resampling filters, with Pillow's supports and weight functions (its
    /// `Resample.c`), so every output is byte-identical to `Image.resize(size, FILTER, box)`.
    /// When shrinking, a filter's support is widened by the scale (antialiasing).
    public enum Filter: String, Sendable, CaseIterable {
        /// The source pixel whose centre is nearest: pixel art stays blocky. No antialiasing
        /// and no premultiplication, as in Pillow.
        case nearest
        /// Every source pixel under the output pixel, equally weighted (support 0.5).
        case box
        /// Triangle (support 1): imgscale's default and its goldens.
        case bilinear
        /// Hamming-windowed sinc (support 1): a little sharper than bilinear.
        case hamming
        /// Keys cubic with a = -0.5 (support 2): sharper; its negative lobes can ring.
        case bicubic
        /// Lanczos-windowed sinc (support 3): the sharpest, what vipsthumbnail uses.
        case lanczos

        /// How far the filter reaches, in source pixels at scale 1.
        package var support: Double {
            switch self {
            case .nearest, .box: return 0.5
            case .bilinear, .hamming: return 1
            case .bicubic: return 2
            case .lanczos: return 3
            }
        }

        /// Whether colour is weighted by alpha while resampling (Pillow premultiplies for
        /// every filter but nearest, which only copies pixels).
        package var premultiplies: Bool { self != .nearest }

        /// The filter's weight at distance `x` (in source pixels, scaled), Pillow's formulas.
        package func weight(_ x: Double) -> Double {
            switch self {
            case .nearest, .box:
                return x > -0.5 && x <= 0.5 ? 1 : 0
            case .bilinear:
                let d = abs(x)
                return d < 1 ? 1 - d : 0
            case .hamming:
                let d = abs(x)
                if d == 0 { return 1 }
                if d >= 1 { return 0 }
                let p = d * Double.pi
                // Pillow writes 0.54f and 0.46f: float constants, widened to double. With
                // double 0.54 and 0.46, about 0.1% of fixed-point weights differ by one.
                return sin(p) / p * (Double(Float(0.54)) + Double(Float(0.46)) * cos(p))
            case .bicubic:
                let a = -0.5, d = abs(x)
                if d < 1 { return ((a + 2) * d - (a + 3)) * d * d + 1 }
                if d < 2 { return (((d - 5) * d + 8) * d - 4) * a }
                return 0
            case .lanczos:
                guard x >= -3, x < 3 else { return 0 }
                return ResampleFilter.sinc(x) * ResampleFilter.sinc(x / 3)
            }
        }

        private static func sinc(_ x: Double) -> Double {
            if x == 0 { return 1 }
            let p = x * Double.pi
            return sin(p) / p
        }
    }
}

/// The name the package's own code uses.
package typealias ResampleFilter = ImageOperation.Filter
