/// Pure geometry, no pixels: which integral part of a source fills a target box with
/// the aspect ratio kept. `imgscale plan` prints exactly what `rect(in:filling:)` returns.
///
/// With `sa = w/h` and `ta = W/H`: when `sa > ta` the full height is kept and the width
/// cropped to `h * ta`, otherwise the full width is kept and the height cropped to `w / ta`.
/// The crop is placed by `Gravity` (centred by default) and made integral as
/// `CGRect.integral` does: origin floored, far edges ceiled, so it always covers the
/// exact crop and never leaves the region.
///
/// Choices `.integral` leaves open, and why:
/// - The exact crop is computed in integer rationals (`w*H` against `W*h`), never in
///   floating point, so an edge that is exactly integral is never pushed a pixel out by
///   rounding noise such as 99.99999.
/// - `sa == ta` takes the "keep the full width" branch; both give the whole region.
/// - The rect may be up to one pixel wider (or taller) on each side than the exact
///   crop. It is not shrunk back: covering every source pixel the exact crop touches
///   keeps the result centred and never stretches more than that fraction of a pixel,
///   where the recipe's fallback to the whole rect stretched the whole picture.
package enum AspectFill {
    /// The largest target side accepted (2^24): with image sides below 2^31, every
    /// product below stays far inside 64 bits.
    static let maxSide = 1 << 24

    static func valid(_ target: Size) -> Bool {
        target.width > 0 && target.height > 0 && target.width <= maxSide && target.height <= maxSide
    }

    static func rect(in region: Rect, filling target: Size, gravity: Gravity = .centre) throws -> Rect {
        guard valid(target) else { throw GeometryError.badTarget(target) }
        let (x, y, w, h) = (region.x, region.y, region.width, region.height)
        let (W, H) = (target.width, target.height)
        if w * H > W * h {
            // Crop width h*W/H; left edge x + g*(w - h*W/H), all over the common 2H.
            let den = 2 * H
            let x0 = 2 * x * H + gravity.horizontalHalves * (w * H - h * W)
            let x1 = x0 + 2 * h * W
            let left = floorDiv(x0, den), right = ceilDiv(x1, den)
            return Rect(x: left, y: y, width: right - left, height: h)
        } else {
            let den = 2 * W
            let y0 = 2 * y * W + gravity.verticalHalves * (h * W - w * H)
            let y1 = y0 + 2 * w * H
            let top = floorDiv(y0, den), bottom = ceilDiv(y1, den)
            return Rect(x: x, y: top, width: w, height: bottom - top)
        }
    }

    /// The crop of `region` at `target`'s aspect centred on `focus` (in the upright
    /// image of `image`), slid back inside the region where the point is too near its
    /// edge. The window's exact left (or top) edge is the point less half the window,
    /// kept between the region's edges, all over one common denominator; the rect is
    /// then rounded outwards as gravity's is, so the point at the image's centre gives
    /// the centre gravity's rect exactly.
    static func rect(in region: Rect, filling target: Size, focus: FocusPoint, image: Size) throws -> Rect {
        guard valid(target) else { throw GeometryError.badTarget(target) }
        // In 128 bits: a share of a 2^31-pixel side times a 2^24 target passes 64.
        let (x, y, w, h) = (Int128(region.x), Int128(region.y), Int128(region.width), Int128(region.height))
        let (W, H) = (Int128(target.width), Int128(target.height))
        func floorDiv(_ a: Int128, _ b: Int128) -> Int { Int(a >= 0 ? a / b : -((-a + b - 1) / b)) }
        func ceilDiv(_ a: Int128, _ b: Int128) -> Int { Int(a >= 0 ? (a + b - 1) / b : -((-a) / b)) }
        // Along the free axis (from `start`, `length` long; the window `across`
        // * `along` / `other` of it), in units of 1/(2 other d):
        // edge = 2 other p - across along d, kept between the region's edges.
        func window(_ c: FocusPoint.Coordinate, extent: Int, start: Int128, length: Int128, across: Int128,
                    along: Int128, other: Int128) -> (Int, Int) {
            let (p, d) = c.position(extent: extent)
            let (P, D) = (Int128(p), Int128(d))
            let den = 2 * other * D
            let lo = 2 * start * other * D, hi = (2 * start * other + 2 * (length * other - across * along)) * D
            let e0 = min(max(2 * other * P - across * along * D, lo), hi)
            return (floorDiv(e0, den), ceilDiv(e0 + 2 * across * along * D, den))
        }
        if w * H > W * h {
            let (left, right) = window(focus.x, extent: image.width, start: x, length: w, across: h, along: W, other: H)
            return Rect(x: left, y: region.y, width: right - left, height: region.height)
        } else {
            let (top, bottom) = window(focus.y, extent: image.height, start: y, length: h, across: w, along: H, other: W)
            return Rect(x: region.x, y: top, width: region.width, height: bottom - top)
        }
    }

    /// The from-rect clipped to the image, as `CGImage.cropping(to:)` does, after
    /// converting it from `origin` to top-left coordinates.
    package static func clip(_ rect: Rect, origin: CoordinateOrigin, to image: Size) throws -> Rect {
        let topLeft = rect.flipped(from: origin, imageHeight: image.height)
        guard let clipped = topLeft.intersection(Rect(size: image)) else {
            throw GeometryError.emptyIntersection(rect, origin, image)
        }
        return clipped
    }

    /// The size that fits inside `box` with `source`'s aspect ratio, one side exact and
    /// the other rounded to nearest (at least 1).
    package static func fitSize(_ source: Size, in box: Size) throws -> Size {
        guard valid(box) else { throw GeometryError.badTarget(box) }
        let (w, h, W, H) = (source.width, source.height, box.width, box.height)
        if w * H > W * h {
            return Size(width: W, height: max(1, (2 * W * h + w) / (2 * w)))
        } else {
            return Size(width: max(1, (2 * H * w + h) / (2 * h)), height: H)
        }
    }

    static func floorDiv(_ a: Int, _ b: Int) -> Int {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    static func ceilDiv(_ a: Int, _ b: Int) -> Int {
        -floorDiv(-a, b)
    }
}
