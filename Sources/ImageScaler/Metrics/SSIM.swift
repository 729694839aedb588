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

    /// Row `row` of the picture's luma, one sample per pixel: 0.299 R + 0.587 G + 0.114 B
    /// of the pixel premultiplied and laid on white (gray is its own luma).
    package static func luma(_ image: PixelBuffer, row: Int, into out: UnsafeMutablePointer<Double>) {
        let c = image.channels, w = image.width
        image.pixels.withUnsafeBufferPointer { p in
            let line = p.baseAddress! + row * w * c
            for i in 0..<w {
                let s = line + i * c
                var y = c >= 3 ? 0.299 * Double(s[0]) + 0.587 * Double(s[1]) + 0.114 * Double(s[2]) : Double(s[0])
                if c == 2 || c == 4 {
                    let a = Double(s[c - 1]) / 255
                    y = y * a + 255 * (1 - a)
                }
                out[i] = y
            }
        }
    }

    /// The local SSIM row by row, top to bottom, from two pictures' luma rows, holding no
    /// more than the Gaussian's 11 rows of each: what a whole-plane computation gives,
    /// sample for sample (the same products summed in the same order: down the columns,
    /// tap by tap, then along the row), in a few rows' memory where the planes took about
    /// 90 bytes a pixel (a 3840x2880 quality search peaked at 1.2 GB). `x` and `y` write
    /// luma row `r` into the buffer given, each row asked for once; `body` gets each map
    /// row with its index, valid only during the call.
    package static func forEachMapRow(width: Int, height: Int, x: (Int, UnsafeMutablePointer<Double>) -> Void,
                                      y: (Int, UnsafeMutablePointer<Double>) -> Void,
                                      _ body: (Int, UnsafePointer<Double>) -> Void) {
        guard width > 0, height > 0 else { return }
        let r = radius, taps = 2 * radius + 1
        func mirror(_ i: Int, _ n: Int) -> Int {
            let period = 2 * n
            var k = i % period
            if k < 0 { k += period }
            return k < n ? k : period - 1 - k
        }
        // The rows an output row reads, mirrored at the edges, all lie within r of it, so a
        // ring of 2r + 1 rows holds them without two sharing a slot.
        var ringX = [Double](repeating: 0, count: taps * width), ringY = ringX
        var held = [Int](repeating: -1, count: taps)
        // The five quantities' columns summed (x, x², y, y², xy), then their rows.
        var down = [Double](repeating: 0, count: 5 * width)
        var blurred = down
        var line = [Double](repeating: 0, count: width + 2 * r)
        var map = [Double](repeating: 0, count: width)
        let c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255)
        weights.withUnsafeBufferPointer { w in
            ringX.withUnsafeMutableBufferPointer { rx in
            ringY.withUnsafeMutableBufferPointer { ry in
            down.withUnsafeMutableBufferPointer { d in
            blurred.withUnsafeMutableBufferPointer { b in
            line.withUnsafeMutableBufferPointer { l in
            map.withUnsafeMutableBufferPointer { m in
                let padded = l.baseAddress! + r
                for row in 0..<height {
                    for k in max(0, row - r)...min(height - 1, row + r) where held[k % taps] != k {
                        x(k, rx.baseAddress! + (k % taps) * width)
                        y(k, ry.baseAddress! + (k % taps) * width)
                        held[k % taps] = k
                    }
                    for i in 0..<(5 * width) { d[i] = 0 }
                    let dx = d.baseAddress!, dxx = dx + width, dy = dxx + width, dyy = dy + width, dxy = dyy + width
                    for t in 0..<taps {
                        let k = mirror(row + t - r, height) % taps, weight = w[t]
                        let sx = rx.baseAddress! + k * width, sy = ry.baseAddress! + k * width
                        for i in 0..<width {
                            let xv = sx[i], yv = sy[i]
                            dx[i] += weight * xv
                            dxx[i] += weight * (xv * xv)
                            dy[i] += weight * yv
                            dyy[i] += weight * (yv * yv)
                            dxy[i] += weight * (xv * yv)
                        }
                    }
                    for q in 0..<5 {
                        let source = d.baseAddress! + q * width, out = b.baseAddress! + q * width
                        for i in -r..<(width + r) { padded[i] = source[mirror(i, width)] }
                        for i in 0..<width { out[i] = 0 }
                        for t in 0..<taps {
                            let shifted = padded + (t - r), weight = w[t]
                            for i in 0..<width { out[i] += weight * shifted[i] }
                        }
                    }
                    let ux = b.baseAddress!, uxx = ux + width, uy = uxx + width, uyy = uy + width, uxy = uyy + width
                    for i in 0..<width {
                        let vx = uxx[i] - ux[i] * ux[i], vy = uyy[i] - uy[i] * uy[i], vxy = uxy[i] - ux[i] * uy[i]
                        let a1 = 2 * ux[i] * uy[i] + c1, a2 = 2 * vxy + c2
                        let b1 = ux[i] * ux[i] + uy[i] * uy[i] + c1, b2 = vx + vy + c2
                        m[i] = (a1 * a2) / (b1 * b2)
                    }
                    body(row, UnsafePointer(m.baseAddress!))
                }
            }
            }
            }
            }
            }
            }
        }
    }

    /// The columns and rows the mean is taken over: the map less its 5-pixel border, or
    /// the whole map when the picture is too small to have an inside.
    package static func inside(width: Int, height: Int) -> (xs: Range<Int>, ys: Range<Int>) {
        let inside = width > 2 * radius && height > 2 * radius
        return (inside ? radius..<(width - radius) : 0..<width, inside ? radius..<(height - radius) : 0..<height)
    }

    /// Two pixel buffers' score (their luma's), row by row.
    package static func score(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        precondition(a.width == b.width && a.height == b.height, "two pictures of one size")
        let width = a.width, height = a.height
        guard width > 0, height > 0 else { return 1 }
        let (xs, ys) = inside(width: width, height: height)
        var sum = 0.0
        forEachMapRow(width: width, height: height, x: { luma(a, row: $0, into: $1) }, y: { luma(b, row: $0, into: $1) }) { row, m in
            guard ys.contains(row) else { return }
            for x in xs { sum += m[x] }
        }
        return sum / Double(xs.count * ys.count)
    }
}
