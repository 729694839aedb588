extension ImageInfo {
    /// EXIF orientation (TIFF tag 0x0112): how the stored pixels must be turned to stand
    /// upright. Raw values 1-8 as in the EXIF specification; 1 means the stored row 0 is
    /// already the visual top.
    public enum Orientation: Int, Sendable, CaseIterable {
        case up = 1, upMirrored, down, downMirrored, leftMirrored, right, rightMirrored, left

        /// True for 5-8, where the upright image's width is the stored height.
        public var swapsAxes: Bool { rawValue >= 5 }
    }
}

/// The name the package's own code uses.
package typealias Orientation = ImageInfo.Orientation

extension Orientation {
    /// Where a region of the upright image lies in the stored pixels, for an image
    /// stored as `stored` (width x height before orientation). Continuous coordinates:
    /// a pixel's left edge is x, its right edge x + 1.
    package func storedRect(_ r: SamplingRect, stored: Size) -> SamplingRect {
        let (W, H) = (Double(stored.width), Double(stored.height))
        func map(_ x: Double, _ y: Double) -> (Double, Double) {
            switch self {
            case .up: return (x, y)
            case .upMirrored: return (W - x, y)
            case .down: return (W - x, H - y)
            case .downMirrored: return (x, H - y)
            case .leftMirrored: return (y, x)
            case .right: return (y, H - x)
            case .rightMirrored: return (W - y, H - x)
            case .left: return (W - y, x)
            }
        }
        let a = map(r.x, r.y), b = map(r.x + r.width, r.y + r.height)
        return SamplingRect(x: min(a.0, b.0), y: min(a.1, b.1), width: abs(a.0 - b.0), height: abs(a.1 - b.1))
    }
}
