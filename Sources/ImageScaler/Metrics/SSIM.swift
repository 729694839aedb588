import Glibc

/// The structural similarity of two pictures of one size (Wang et al. 2004), as
/// scikit-image's `structural_similarity(gaussian_weights=True, sigma=1.5,
/// use_sample_covariance=False, data_range=255)` computes it: local means, variances and
/// covariance under an 11-tap Gaussian (σ 1.5, truncated at 3.5σ, edges mirrored through
/// the edge sample's outer side, as SciPy's `reflect`), K1 0.01 and K2 0.03, averaged over
/// the map less a 5-pixel border. Works on `luma` planes: BT.601 luma of the RGB
/// premultiplied by alpha and laid on white, so a transparent pixel compares as white.
/// Double precision in one fixed order: the same score on every run and machine.
package enum SSIM {
    /// The Gaussian window's half-width: int(3.5 · 1.5 + 0.5).
    package static let radius = 5

    /// The 11 weights, summing to 1.
    static let weights: [Double] = {
        let w = (-radius...radius).map { x in exp(-0.5 * Double(x * x) / (1.5 * 1.5)) }
        let sum = w.reduce(0, +)
        return w.map { $0 / sum }
    }()

    /// One sample per pixel, row by row: 0.299 R + 0.587 G + 0.114 B of the pixel
    /// premultiplied and laid on white (gray is its own luma).
    package static func luma(_ image: PixelBuffer) -> [Double] {
        let c = image.channels, n = image.width * image.height
        var out = [Double](repeating: 0, count: n)
        image.pixels.withUnsafeBufferPointer { p in
            for i in 0..<n {
                let s = p.baseAddress! + i * c
                var y = c >= 3 ? 0.299 * Double(s[0]) + 0.587 * Double(s[1]) + 0.114 * Double(s[2]) : Double(s[0])
                if c == 2 || c == 4 {
                    let a = Double(s[c - 1]) / 255
                    y = y * a + 255 * (1 - a)
                }
                out[i] = y
            }
        }
        return out
    }

    /// The local SSIM at every pixel.
    package static func map(_ x: [Double], _ y: [Double], width: Int, height: Int) -> [Double] {
        precondition(x.count == width * height && y.count == x.count, "two planes of one size")
        return map(x: x, ux: blur(x, width, height), uxx: blur(x.map { $0 * $0 }, width, height), y, width: width, height: height)
    }

    /// The map from `x`'s plane and its local means already made.
    static func map(x: [Double], ux: [Double], uxx: [Double], _ y: [Double], width: Int, height: Int) -> [Double] {
        let n = x.count
        var yy = [Double](repeating: 0, count: n), xy = yy
        for i in 0..<n {
            yy[i] = y[i] * y[i]
            xy[i] = x[i] * y[i]
        }
        let uy = blur(y, width, height), uyy = blur(yy, width, height), uxy = blur(xy, width, height)
        let c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255)
        var s = [Double](repeating: 0, count: n)
        for i in 0..<n {
            let vx = uxx[i] - ux[i] * ux[i], vy = uyy[i] - uy[i] * uy[i], vxy = uxy[i] - ux[i] * uy[i]
            let a1 = 2 * ux[i] * uy[i] + c1, a2 = 2 * vxy + c2
            let b1 = ux[i] * ux[i] + uy[i] * uy[i] + c1, b2 = vx + vy + c2
            s[i] = (a1 * a2) / (b1 * b2)
        }
        return s
    }

    /// The mean SSIM over the map less its 5-pixel border (the whole map when the picture
    /// is too small to have an inside).
    package static func score(_ x: [Double], _ y: [Double], width: Int, height: Int) -> Double {
        mean(map(x, y, width: width, height: height), width: width, height: height)
    }

    /// The mean of a map, less its border.
    package static func mean(_ map: [Double], width: Int, height: Int) -> Double {
        guard !map.isEmpty else { return 1 }
        let inside = width > 2 * radius && height > 2 * radius
        let xs = inside ? radius..<(width - radius) : 0..<width, ys = inside ? radius..<(height - radius) : 0..<height
        var sum = 0.0
        for y in ys { for x in xs { sum += map[y * width + x] } }
        return sum / Double(xs.count * ys.count)
    }

    /// One picture's luma and its local means, to score many others against (the
    /// quality search's candidates).
    package struct Reference {
        let width: Int
        let height: Int
        let x: [Double]
        let ux: [Double]
        let uxx: [Double]

        package init(_ image: PixelBuffer) {
            width = image.width
            height = image.height
            x = SSIM.luma(image)
            ux = SSIM.blur(x, width, height)
            uxx = SSIM.blur(x.map { $0 * $0 }, width, height)
        }

        /// The mean SSIM of `image` (of the reference's size) against the reference.
        package func score(_ image: PixelBuffer) -> Double {
            precondition(image.width == width && image.height == height, "two pictures of one size")
            let y = SSIM.luma(image)
            return SSIM.mean(SSIM.map(x: x, ux: ux, uxx: uxx, y, width: width, height: height), width: width, height: height)
        }
    }

    /// Two pixel buffers' score (their luma's).
    package static func score(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        precondition(a.width == b.width && a.height == b.height, "two pictures of one size")
        return score(luma(a), luma(b), width: a.width, height: a.height)
    }

    /// The plane under the Gaussian: down the columns, then along the rows (SciPy's axis
    /// order), each sample's neighbours past an edge mirrored (…c b a | a b c…, repeated
    /// for a window wider than the line, as SciPy's `reflect`).
    static func blur(_ plane: [Double], _ width: Int, _ height: Int) -> [Double] {
        let r = radius, taps = 2 * radius + 1
        func mirror(_ i: Int, _ n: Int) -> Int {
            let period = 2 * n
            var k = i % period
            if k < 0 { k += period }
            return k < n ? k : period - 1 - k
        }
        var down = [Double](repeating: 0, count: plane.count), out = down
        var line = [Double](repeating: 0, count: width + 2 * r)
        weights.withUnsafeBufferPointer { w in
            plane.withUnsafeBufferPointer { p in
                down.withUnsafeMutableBufferPointer { d in
                    for y in 0..<height {
                        let row = d.baseAddress! + y * width
                        for t in 0..<taps {
                            let source = p.baseAddress! + mirror(y + t - r, height) * width, weight = w[t]
                            for x in 0..<width { row[x] += weight * source[x] }
                        }
                    }
                }
            }
            down.withUnsafeBufferPointer { d in
                out.withUnsafeMutableBufferPointer { o in
                    line.withUnsafeMutableBufferPointer { l in
                        let padded = l.baseAddress! + r
                        for y in 0..<height {
                            let source = d.baseAddress! + y * width, row = o.baseAddress! + y * width
                            for x in -r..<(width + r) { padded[x] = source[mirror(x, width)] }
                            for t in 0..<taps {
                                let shifted = padded + (t - r), weight = w[t]
                                for x in 0..<width { row[x] += weight * shifted[x] }
                            }
                        }
                    }
                }
            }
        }
        return out
    }
}
