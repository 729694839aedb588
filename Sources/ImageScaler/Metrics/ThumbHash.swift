#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Evan Wallace's ThumbHash of a picture of at most 100x100 pixels, computed as PyPI
/// `thumbhash` 0.1.2 computes it, so the bytes are its bytes: in doubles, in its order of
/// operations, with Python's rounding (half to even; JavaScript's original rounds half
/// up, so where a value lies exactly on a half the two differ and this is Python's).
/// Where the Python port crashes (any pixel not opaque: it unpacks the alpha channel's
/// result from a tuple it never built) the alpha channel is encoded as the JavaScript
/// original encodes it, 5x5 components after the colour's. Gray pictures count as RGB
/// with three equal channels, as Pillow's `convert("RGBA")` makes them.
public enum ThumbHash {
    /// The hash's bytes; nil when the picture is larger than 100 on a side.
    public static func hash(_ image: PixelBuffer) -> [UInt8]? {
        let w = image.width, h = image.height
        guard w <= 100 && h <= 100 && w > 0 && h > 0 else { return nil }
        let rgba = image.rgba()
        var avgR = 0.0, avgG = 0.0, avgB = 0.0, avgA = 0.0
        for i in 0..<w * h {
            let j = i * 4
            let alpha = Double(rgba[j + 3]) / 255
            avgR += alpha / 255 * Double(rgba[j])
            avgG += alpha / 255 * Double(rgba[j + 1])
            avgB += alpha / 255 * Double(rgba[j + 2])
            avgA += alpha
        }
        if avgA != 0 {
            avgR /= avgA
            avgG /= avgA
            avgB /= avgA
        }
        let hasAlpha = avgA < Double(w * h)
        let limit = hasAlpha ? 5 : 7
        let lx = max(1, round(Double(limit * w) / Double(max(w, h))))
        let ly = max(1, round(Double(limit * h) / Double(max(w, h))))
        var l = [Double](), p = [Double](), q = [Double](), a = [Double]()
        l.reserveCapacity(w * h); p.reserveCapacity(w * h); q.reserveCapacity(w * h); a.reserveCapacity(w * h)
        for i in 0..<w * h {
            let j = i * 4
            let alpha = Double(rgba[j + 3]) / 255
            let r = avgR * (1 - alpha) + alpha / 255 * Double(rgba[j])
            let g = avgG * (1 - alpha) + alpha / 255 * Double(rgba[j + 1])
            let b = avgB * (1 - alpha) + alpha / 255 * Double(rgba[j + 2])
            l.append((r + g + b) / 3)
            p.append((r + g) / 2 - b)
            q.append(r - g)
            a.append(alpha)
        }
        let (lDC, lAC, lScale) = channel(l, w: w, h: h, nx: max(3, lx), ny: max(3, ly))
        let (pDC, pAC, pScale) = channel(p, w: w, h: h, nx: 3, ny: 3)
        let (qDC, qAC, qScale) = channel(q, w: w, h: h, nx: 3, ny: 3)
        let (aDC, aAC, aScale) = hasAlpha ? channel(a, w: w, h: h, nx: 5, ny: 5) : (1, [], 1)
        let landscape = w > h
        let header24 = round(63 * lDC) | round(31.5 + 31.5 * pDC) << 6 | round(31.5 + 31.5 * qDC) << 12
            | round(31 * lScale) << 18 | (hasAlpha ? 1 << 23 : 0)
        let header16 = (landscape ? ly : lx) | round(63 * pScale) << 3 | round(63 * qScale) << 9 | (landscape ? 1 << 15 : 0)
        var bytes: [UInt8] = [UInt8(header24 & 255), UInt8(header24 >> 8 & 255), UInt8(header24 >> 16),
                              UInt8(header16 & 255), UInt8(header16 >> 8)]
        if hasAlpha { bytes.append(UInt8(round(15 * aDC) | round(15 * aScale) << 4)) }
        var odd = false
        for f in lAC + pAC + qAC + aAC {
            let u = UInt8(round(15 * f))
            if odd { bytes[bytes.count - 1] |= u << 4 } else { bytes.append(u) }
            odd.toggle()
        }
        return bytes
    }

    /// Python's `round` of a float to an int: half to even.
    private static func round(_ v: Double) -> Int { Int(v.rounded(.toNearestOrEven)) }

    /// The DC, the AC scaled into 0...1 around 0.5, and their largest magnitude, over the
    /// triangle of cosines `cx * ny < nx * (ny - cy)`, summed as the reference sums.
    private static func channel(_ c: [Double], w: Int, h: Int, nx: Int, ny: Int) -> (Double, [Double], Double) {
        var dc = 0.0, ac: [Double] = [], scale = 0.0
        var fx = [Double](repeating: 0, count: w)
        for cy in 0..<ny {
            var cx = 0
            while cx * ny < nx * (ny - cy) {
                var f = 0.0
                for x in 0..<w { fx[x] = cos(Double.pi / Double(w) * Double(cx) * (Double(x) + 0.5)) }
                for y in 0..<h {
                    let fy = cos(Double.pi / Double(h) * Double(cy) * (Double(y) + 0.5))
                    for x in 0..<w { f += c[x + y * w] * fx[x] * fy }
                }
                f /= Double(w * h)
                if cx > 0 || cy > 0 {
                    ac.append(f)
                    scale = max(scale, abs(f))
                } else {
                    dc = f
                }
                cx += 1
            }
        }
        if scale != 0 {
            for i in ac.indices { ac[i] = 0.5 + 0.5 / scale * ac[i] }
        }
        return (dc, ac, scale)
    }
}
