#if canImport(Glibc)
import Glibc
#endif

/// CIEDE2000 colour difference (CIE 142-2001, as Sharma, Wu and Dalal 2005 state it, with
/// kL = kC = kH = 1) between two 8-bit sRGB colours, each taken to CIE L*a*b* through the
/// sRGB transfer curve and IEC 61966-2-1's matrix as the standard prints it (4 decimals),
/// relative to D65's white from its chromaticity (0.3127, 0.3290), as colour-science does.
/// Doubles in a fixed order: the same value on every run.
package enum DeltaE2000 {
    /// The 256 levels through sRGB's curve, to linear light 0...1.
    private static let linear: [Double] = (0..<256).map { v in
        let c = Double(v) / 255
        return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
    }

    /// D65's white, X and Z for Y = 1, from x 0.3127, y 0.3290.
    private static let whiteX = 0.3127 / 0.3290, whiteZ = (1 - 0.3127 - 0.3290) / 0.3290

    /// L*, a*, b* of an sRGB colour.
    static func lab(_ r: Int, _ g: Int, _ b: Int) -> (Double, Double, Double) {
        let (lr, lg, lb) = (linear[r], linear[g], linear[b])
        let x = (0.4124 * lr + 0.3576 * lg + 0.1805 * lb) / whiteX
        let y = 0.2126 * lr + 0.7152 * lg + 0.0722 * lb
        let z = (0.0193 * lr + 0.1192 * lg + 0.9505 * lb) / whiteZ
        func f(_ t: Double) -> Double { t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116 }
        let (fx, fy, fz) = (f(x), f(y), f(z))
        return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))
    }

    package static func difference(_ p: (Double, Double, Double), _ q: (Double, Double, Double)) -> Double {
        let (l1, a1, b1) = p, (l2, a2, b2) = q
        let c1 = (a1 * a1 + b1 * b1).squareRoot(), c2 = (a2 * a2 + b2 * b2).squareRoot()
        let cMean = (c1 + c2) / 2
        let c7 = pow(cMean, 7)
        let g = 0.5 * (1 - (c7 / (c7 + pow(25, 7))).squareRoot())
        let a1p = (1 + g) * a1, a2p = (1 + g) * a2
        let c1p = (a1p * a1p + b1 * b1).squareRoot(), c2p = (a2p * a2p + b2 * b2).squareRoot()
        func hue(_ b: Double, _ a: Double) -> Double {
            if a == 0 && b == 0 { return 0 }
            let h = atan2(b, a) * 180 / .pi
            return h < 0 ? h + 360 : h
        }
        let h1p = hue(b1, a1p), h2p = hue(b2, a2p)
        let dLp = l2 - l1, dCp = c2p - c1p
        var dhp = 0.0
        if c1p * c2p != 0 {
            dhp = h2p - h1p
            if dhp > 180 { dhp -= 360 } else if dhp < -180 { dhp += 360 }
        }
        let dHp = 2 * (c1p * c2p).squareRoot() * sin(dhp / 2 * .pi / 180)
        let lMean = (l1 + l2) / 2, cpMean = (c1p + c2p) / 2
        var hMean = h1p + h2p
        if c1p * c2p != 0 {
            if abs(h1p - h2p) <= 180 { hMean /= 2 } else if h1p + h2p < 360 { hMean = (hMean + 360) / 2 } else { hMean = (hMean - 360) / 2 }
        }
        let rad = Double.pi / 180
        let t = 1 - 0.17 * cos((hMean - 30) * rad) + 0.24 * cos(2 * hMean * rad) + 0.32 * cos((3 * hMean + 6) * rad)
            - 0.20 * cos((4 * hMean - 63) * rad)
        let dTheta = 30 * exp(-pow((hMean - 275) / 25, 2))
        let cp7 = pow(cpMean, 7)
        let rc = 2 * (cp7 / (cp7 + pow(25, 7))).squareRoot()
        let l50 = (lMean - 50) * (lMean - 50)
        let sl = 1 + 0.015 * l50 / (20 + l50).squareRoot()
        let sc = 1 + 0.045 * cpMean
        let sh = 1 + 0.015 * cpMean * t
        let rt = -sin(2 * dTheta * rad) * rc
        let (tl, tc, th) = (dLp / sl, dCp / sc, dHp / sh)
        return (tl * tl + tc * tc + th * th + rt * tc * th).squareRoot()
    }

    /// Between two RGBA pixels at `k`, each laid on white by its alpha first (as the
    /// perceptual rule and SSIM see translucent pixels).
    static func difference(_ p1: UnsafePointer<UInt8>, _ p2: UnsafePointer<UInt8>, _ k: Int) -> Double {
        func onWhite(_ p: UnsafePointer<UInt8>) -> (Int, Int, Int) {
            let a = Int(p[k + 3])
            if a == 255 { return (Int(p[k]), Int(p[k + 1]), Int(p[k + 2])) }
            func c(_ v: UInt8) -> Int { (Int(v) * a + 255 * (255 - a) + 127) / 255 }
            return (c(p[k]), c(p[k + 1]), c(p[k + 2]))
        }
        let (r1, g1, b1) = onWhite(p1), (r2, g2, b2) = onWhite(p2)
        if r1 == r2 && g1 == g2 && b1 == b2 { return 0 }
        return difference(lab(r1, g1, b1), lab(r2, g2, b2))
    }
}
