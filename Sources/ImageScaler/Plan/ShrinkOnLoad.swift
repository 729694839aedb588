/// JPEG shrink-on-load policy, after libvips' `find_jpegshrink`: libjpeg can decode at
/// 1/2, 1/4 or 1/8 size for a fraction of the work, but its DCT scaling is a box
/// filter and aliases. So the largest factor is taken that still leaves the triangle
/// filter at least a 2x reduction on both axes to smooth it out.
package enum ShrinkOnLoad {
    /// A filter of wider `support` (bicubic 2, lanczos 3) needs that much more room.
    package static func factor(sampling region: Size, into target: Size, allowed: [Int] = [1, 2, 4, 8], support: Double = 1) -> Int {
        for factor in allowed.sorted(by: >) where factor > 1
            && Double(region.width) >= 2 * support * Double(factor * target.width)
            && Double(region.height) >= 2 * support * Double(factor * target.height) {
            return factor
        }
        return 1
    }

    /// Pixels at the edge of a cropped decode that may differ from a whole decode:
    /// libjpeg's fancy upsampling has no neighbour beyond the crop edge there.
    package static let cropSlack = 2

    /// The integral rows and columns of an image of size `image` to decode for
    /// resampling `rect` to `target`: the rect widened by the filter's reach (its support,
    /// `max(scale, 1)` source pixels, plus one for the window's rounding) and by
    /// `cropSlack`, clipped to the image. Decoding only this gives the same output as
    /// decoding everything.
    static func window(of rect: SamplingRect, into target: Size, within image: Size, support: Double = 1) -> Rect {
        let reachX = (support * max(rect.width / Double(target.width), 1)).rounded(.up) + 1 + Double(cropSlack)
        let reachY = (support * max(rect.height / Double(target.height), 1)).rounded(.up) + 1 + Double(cropSlack)
        let x0 = max(0, Int((rect.x - reachX).rounded(.down)))
        let y0 = max(0, Int((rect.y - reachY).rounded(.down)))
        let x1 = min(image.width, Int((rect.x + rect.width + reachX).rounded(.up)))
        let y1 = min(image.height, Int((rect.y + rect.height + reachY).rounded(.up)))
        return Rect(x: x0, y: y0, width: max(1, x1 - x0), height: max(1, y1 - y0))
    }
}
