import ImageScaler

/// mapbox/pixelmatch's perceptual colour distance and anti-aliasing detector, in its
/// own arithmetic (doubles, the same order of operations and neighbour order), so the
/// counts are pixelmatch's. Pixels are RGBA bytes, `k`/`m` byte offsets; alpha below
/// 255 is blended onto white.
enum Pixelmatch {
    /// YIQ distance of two pixels (Kotsarenko and Ramos); with `yOnly`, the signed
    /// brightness difference.
    static func colorDelta(_ img1: UnsafePointer<UInt8>, _ img2: UnsafePointer<UInt8>, _ k: Int, _ m: Int, yOnly: Bool) -> Double {
        var r1 = Double(img1[k]), g1 = Double(img1[k + 1]), b1 = Double(img1[k + 2])
        var r2 = Double(img2[m]), g2 = Double(img2[m + 1]), b2 = Double(img2[m + 2])
        let a1 = img1[k + 3], a2 = img2[m + 3]
        if a1 == a2 && img1[k] == img2[m] && img1[k + 1] == img2[m + 1] && img1[k + 2] == img2[m + 2] { return 0 }
        if a1 < 255 {
            let a = Double(a1) / 255
            r1 = blend(r1, a); g1 = blend(g1, a); b1 = blend(b1, a)
        }
        if a2 < 255 {
            let a = Double(a2) / 255
            r2 = blend(r2, a); g2 = blend(g2, a); b2 = blend(b2, a)
        }
        let y = rgb2y(r1, g1, b1) - rgb2y(r2, g2, b2)
        if yOnly { return y }
        let i = rgb2i(r1, g1, b1) - rgb2i(r2, g2, b2)
        let q = rgb2q(r1, g1, b1) - rgb2q(r2, g2, b2)
        return 0.5053 * y * y + 0.299 * i * i + 0.1957 * q * q
    }

    private static func rgb2y(_ r: Double, _ g: Double, _ b: Double) -> Double { r * 0.29889531 + g * 0.58662247 + b * 0.11448223 }
    private static func rgb2i(_ r: Double, _ g: Double, _ b: Double) -> Double { r * 0.59597799 - g * 0.27417610 - b * 0.32180189 }
    private static func rgb2q(_ r: Double, _ g: Double, _ b: Double) -> Double { r * 0.21147017 - g * 0.52261711 + b * 0.31114694 }
    private static func blend(_ c: Double, _ a: Double) -> Double { 255 + (c - 255) * a }

    /// Whether pixel (x1, y1) of `img` is likely anti-aliasing (Vysniauskas 2009): it
    /// has both a darker and a brighter neighbour, at most two equal ones, and the
    /// darkest or the brightest neighbour sits in a flat area in both images.
    static func antialiased(_ img: UnsafePointer<UInt8>, _ x1: Int, _ y1: Int, _ width: Int, _ height: Int,
                            _ img2: UnsafePointer<UInt8>) -> Bool {
        let x0 = max(x1 - 1, 0), y0 = max(y1 - 1, 0), x2 = min(x1 + 1, width - 1), y2 = min(y1 + 1, height - 1)
        let pos = (y1 * width + x1) * 4
        var zeroes = x1 == x0 || x1 == x2 || y1 == y0 || y1 == y2 ? 1 : 0
        var minDelta = 0.0, maxDelta = 0.0
        var minX = 0, minY = 0, maxX = 0, maxY = 0
        for x in x0...x2 {
            for y in y0...y2 where !(x == x1 && y == y1) {
                let delta = colorDelta(img, img, pos, (y * width + x) * 4, yOnly: true)
                if delta == 0 {
                    zeroes += 1
                    if zeroes > 2 { return false }
                } else if delta < minDelta {
                    minDelta = delta; minX = x; minY = y
                } else if delta > maxDelta {
                    maxDelta = delta; maxX = x; maxY = y
                }
            }
        }
        if minDelta == 0 || maxDelta == 0 { return false }
        return (hasManySiblings(img, minX, minY, width, height) && hasManySiblings(img2, minX, minY, width, height))
            || (hasManySiblings(img, maxX, maxY, width, height) && hasManySiblings(img2, maxX, maxY, width, height))
    }

    /// Whether the pixel has three or more neighbours of exactly its RGBA (the image's
    /// edge counting as one).
    private static func hasManySiblings(_ img: UnsafePointer<UInt8>, _ x1: Int, _ y1: Int, _ width: Int, _ height: Int) -> Bool {
        let x0 = max(x1 - 1, 0), y0 = max(y1 - 1, 0), x2 = min(x1 + 1, width - 1), y2 = min(y1 + 1, height - 1)
        let pos = (y1 * width + x1) * 4
        var zeroes = x1 == x0 || x1 == x2 || y1 == y0 || y1 == y2 ? 1 : 0
        for x in x0...x2 {
            for y in y0...y2 where !(x == x1 && y == y1) {
                let p = (y * width + x) * 4
                if img[pos] == img[p] && img[pos + 1] == img[p + 1] && img[pos + 2] == img[p + 2] && img[pos + 3] == img[p + 3] {
                    zeroes += 1
                }
                if zeroes > 2 { return true }
            }
        }
        return false
    }
}
