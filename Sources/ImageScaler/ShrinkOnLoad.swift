/// JPEG shrink-on-load policy, after libvips' `find_jpegshrink`: libjpeg can decode at
/// 1/2, 1/4 or 1/8 size for a fraction of the work, but its DCT scaling is a box
/// filter and aliases. So the largest factor is taken that still leaves the triangle
/// filter at least a 2x reduction on both axes to smooth it out.
public enum ShrinkOnLoad {
    public static func factor(sampling region: Size, into target: Size) -> Int {
        for factor in [8, 4, 2] where region.width >= 2 * factor * target.width && region.height >= 2 * factor * target.height {
            return factor
        }
        return 1
    }

    /// `rect` (upright, full-resolution pixels) in the coordinates of the upright image
    /// decoded at 1/`factor`. libjpeg maps full-size x to x/factor, but rounds the
    /// reduced size up; where orientation reverses an axis, that partial last pixel moves
    /// to the start, so the rect shifts by the rounding to stay on the same content.
    static func samplingRect(_ rect: Rect, factor: Int, uprightFull: Size, uprightReduced: Size,
                             orientation: Orientation) -> SamplingRect {
        var r = SamplingRect(rect).scaled(by: 1 / Double(factor))
        let reversesX = [.upMirrored, .down, .right, .rightMirrored].contains(orientation)
        let reversesY = [.down, .downMirrored, .rightMirrored, .left].contains(orientation)
        if reversesX { r.x += Double(uprightReduced.width) - Double(uprightFull.width) / Double(factor) }
        if reversesY { r.y += Double(uprightReduced.height) - Double(uprightFull.height) / Double(factor) }
        return r
    }
}
