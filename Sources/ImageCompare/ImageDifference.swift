import ImageScaler

#if canImport(Glibc)
import Glibc
#endif

/// How two same-sized images differ, compared as RGBA (gray replicated, missing alpha
/// 255) under an `ImageComparison`. Colour is compared premultiplied by its alpha
/// (rounded to the nearest level), so what lies under transparency counts only as much
/// as it shows: `(255,0,0,1)` and `(0,0,255,1)` differ by 1, and pixels fully
/// transparent in both are equal; alpha itself is compared as is. Opaque pixels compare
/// their stored values. Masked and ignored pixels are not compared at all.
/// PSNR is `10 * log10(255^2 / MSE)` over the R, G and B samples of the compared pixels,
/// and over A too when either image has alpha (so an alpha-only regression shows);
/// infinite only when those samples are identical.
public struct ImageDifference: Equatable, Sendable {
    /// What became of each pixel, for the diff image.
    public enum PixelClass: UInt8, Sendable {
        case same = 0, differs, antialiased, notCompared
    }

    /// Pixels judged different by the rule.
    public var differingPixels: Int
    /// Pixels that differ but are anti-aliasing (perceptual rule); counted in
    /// `differingPixels` only when the rule counts them.
    public var antialiasedPixels: Int = 0
    /// The largest difference of any channel of any compared pixel.
    public var maxDifference: Int
    /// Mean absolute difference over all RGBA samples of the compared pixels, in 0...255.
    public var meanDifference: Double
    /// Mean squared error over the samples PSNR uses.
    public var mse: Double
    /// Every pixel of the images.
    public var pixelCount: Int
    /// The pixels compared (not masked or ignored).
    public var comparedPixels: Int
    /// The smallest rect holding every differing pixel, nil when there is none.
    public var bounds: Rect?
    /// Per pixel, row by row (kept when asked for, for the diff image; else empty).
    public var classes: [PixelClass] = []

    public var psnr: Double {
        mse == 0 ? .infinity : 10 * log10(255.0 * 255.0 / mse)
    }

    /// `differingPixels` as a fraction of the compared pixels.
    public var differingRatio: Double { comparedPixels == 0 ? 0 : Double(differingPixels) / Double(comparedPixels) }

    /// Two images of `size` as 16-bit RGBA samples (`ImageFile.decodeRGBA16`), under a
    /// tolerance rule given in 8-bit levels and scaled by 257; differences, the mean
    /// and the MSE are in 16-bit units and PSNR's peak is 65535. (The perceptual rule
    /// is 8-bit by definition; use the 8-bit images for it.)
    public init(expected16 pa: [UInt16], actual16 pb: [UInt16], size: Size, withAlpha: Bool, comparison: ImageComparison,
                keepClasses: Bool = false) throws {
        let width = size.width, n = size.width * size.height
        guard pa.count == n * 4 && pb.count == n * 4 else {
            throw CompareError.sizeMismatch("\(pa.count) and \(pb.count) samples are not 16-bit RGBA of \(size)")
        }
        let compared = ImageDifference.comparedMask(size: size, comparison: comparison)
        var classes = keepClasses ? [PixelClass](repeating: .same, count: n) : []
        let tolerance: Int
        if case .tolerance(let t) = comparison.rule { tolerance = t * 257 } else { tolerance = 0 }
        var differing = 0, maxDiff = 0, comparedCount = 0
        var absSum = 0.0, sqSum = 0.0
        var x0 = Int.max, y0 = Int.max, x1 = -1, y1 = -1
        for i in 0..<n {
            guard compared[i] else {
                if keepClasses { classes[i] = .notCompared }
                continue
            }
            comparedCount += 1
            let k = i * 4
            if pa[k + 3] == 0 && pb[k + 3] == 0 { continue }
            let alphaA = Int(pa[k + 3]), alphaB = Int(pb[k + 3]), opaque = alphaA & alphaB == 65535
            var pixelMax = 0
            for c in 0..<4 {
                let va = c == 3 || opaque ? Int(pa[k + c]) : (Int(pa[k + c]) * alphaA + 32767) / 65535
                let vb = c == 3 || opaque ? Int(pb[k + c]) : (Int(pb[k + c]) * alphaB + 32767) / 65535
                let d = abs(va - vb)
                pixelMax = max(pixelMax, d)
                absSum += Double(d)
                if c < 3 || withAlpha { sqSum += Double(d * d) }
            }
            maxDiff = max(maxDiff, pixelMax)
            guard pixelMax > tolerance else { continue }
            differing += 1
            if keepClasses { classes[i] = .differs }
            let x = i % width, y = i / width
            x0 = min(x0, x); y0 = min(y0, y); x1 = max(x1, x); y1 = max(y1, y)
        }
        differingPixels = differing
        maxDifference = maxDiff
        pixelCount = n
        comparedPixels = comparedCount
        meanDifference = comparedCount == 0 ? 0 : absSum / Double(comparedCount * 4)
        // Scaled to the 8-bit PSNR formula's peak: 10 log10(65535^2 / MSE16) = 10 log10(255^2 / (MSE16 / 257^2)).
        mse = comparedCount == 0 ? 0 : sqSum / Double(comparedCount * (withAlpha ? 4 : 3)) / (257.0 * 257.0)
        bounds = x1 < 0 ? nil : Rect(x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1)
        self.classes = classes
    }

    /// Which pixels are compared: not masked, not in an ignored rect.
    static func comparedMask(size: Size, comparison: ImageComparison) -> [Bool] {
        let width = size.width, n = size.width * size.height
        var compared = [Bool](repeating: true, count: n)
        if let mask = comparison.mask, mask.size == size {
            let m = mask.rgba()
            for i in 0..<n where m[i * 4 + 3] == 0 || (m[i * 4] == 0 && m[i * 4 + 1] == 0 && m[i * 4 + 2] == 0) { compared[i] = false }
        }
        for r in comparison.ignore {
            guard let inside = r.intersection(Rect(size: size)) else { continue }
            for y in inside.y..<inside.maxY { for x in inside.x..<inside.maxX { compared[y * width + x] = false } }
        }
        return compared
    }

    public init(_ a: PixelBuffer, _ b: PixelBuffer, tolerance: Int = 0) throws {
        try self.init(expected: a, actual: b, comparison: ImageComparison(rule: .tolerance(tolerance)))
    }

    public init(expected a: PixelBuffer, actual b: PixelBuffer, comparison: ImageComparison, keepClasses: Bool = false) throws {
        guard a.size == b.size else { throw CompareError.sizeMismatch("the images are \(a.size) and \(b.size)") }
        let width = a.width, height = a.height, n = width * height
        var perceptual = false
        if case .perceptual = comparison.rule { perceptual = true }
        // Rows stored equal byte for byte have nothing to count but their pixels, and are
        // not converted; the perceptual rule looks at neighbours, so it converts all.
        let everyPixel = comparison.ignore.isEmpty && comparison.mask == nil && !keepClasses && !perceptual && a.channels == b.channels
        var sameRow = [Bool](repeating: false, count: height)
        if everyPixel {
            let stride = width * a.channels
            a.pixels.withUnsafeBufferPointer { s1 in
                b.pixels.withUnsafeBufferPointer { s2 in
                    for y in 0..<height { sameRow[y] = memcmp(s1.baseAddress! + y * stride, s2.baseAddress! + y * stride, stride) == 0 }
                }
            }
        }
        let differingRows = everyPixel ? sameRow.map { !$0 } : nil
        let pa = a.rgba(rows: differingRows), pb = b.rgba(rows: differingRows)
        let withAlpha = a.channels == 2 || a.channels == 4 || b.channels == 2 || b.channels == 4
        let compared = ImageDifference.comparedMask(size: a.size, comparison: comparison)
        var classes = keepClasses ? [PixelClass](repeating: .same, count: n) : []
        var differing = 0, antialiased = 0, maxDiff = 0, absSum = 0, sqSum = 0, comparedCount = 0
        var x0 = Int.max, y0 = Int.max, x1 = -1, y1 = -1
        let maxDelta: Double
        let countAA: Bool
        switch comparison.rule {
        case .tolerance, .deltaE: (maxDelta, countAA) = (0, true)
        case .perceptual(let t, let count): (maxDelta, countAA) = (35215 * t * t, count)
        }
        pa.withUnsafeBufferPointer { p1 in
            pb.withUnsafeBufferPointer { p2 in
                let img1 = p1.baseAddress!, img2 = p2.baseAddress!
                for y in 0..<height {
                    if everyPixel, sameRow[y] {
                        comparedCount += width
                        continue
                    }
                    for x in 0..<width {
                        let i = y * width + x, k = i * 4
                        guard compared[i] else {
                            if keepClasses { classes[i] = .notCompared }
                            continue
                        }
                        comparedCount += 1
                        // Equal bytes are equal under every rule: most of a golden's pixels.
                        if UnsafeRawPointer(img1 + k).loadUnaligned(as: UInt32.self) == UnsafeRawPointer(img2 + k).loadUnaligned(as: UInt32.self) { continue }
                        if img1[k + 3] == 0 && img2[k + 3] == 0 { continue }
                        let alpha1 = Int(img1[k + 3]), alpha2 = Int(img2[k + 3]), opaque = alpha1 & alpha2 == 255
                        var pixelMax = 0
                        for c in 0..<4 {
                            let v1 = c == 3 || opaque ? Int(img1[k + c]) : (Int(img1[k + c]) * alpha1 + 127) / 255
                            let v2 = c == 3 || opaque ? Int(img2[k + c]) : (Int(img2[k + c]) * alpha2 + 127) / 255
                            let d = abs(v1 - v2)
                            pixelMax = max(pixelMax, d)
                            absSum += d
                            if c < 3 || withAlpha { sqSum += d * d }
                        }
                        // The perceptual rule blends straight colour itself (pixelmatch's
                        // semantics), so any stored difference goes on to it.
                        guard pixelMax > 0 || (perceptual && memcmp(img1 + k, img2 + k, 4) != 0) else { continue }
                        maxDiff = max(maxDiff, pixelMax)
                        var differs: Bool
                        switch comparison.rule {
                        case .tolerance(let t):
                            differs = pixelMax > t
                        case .deltaE(let e):
                            differs = DeltaE2000.difference(img1, img2, k) > e
                        case .perceptual:
                            differs = Pixelmatch.colorDelta(img1, img2, k, k, yOnly: false) > maxDelta
                            if differs, Pixelmatch.antialiased(img1, x, y, width, height, img2)
                                || Pixelmatch.antialiased(img2, x, y, width, height, img1) {
                                antialiased += 1
                                if keepClasses { classes[i] = .antialiased }
                                differs = countAA
                            }
                        }
                        guard differs else { continue }
                        differing += 1
                        if keepClasses { classes[i] = .differs }
                        x0 = min(x0, x); y0 = min(y0, y); x1 = max(x1, x); y1 = max(y1, y)
                    }
                }
            }
        }
        differingPixels = differing
        antialiasedPixels = antialiased
        maxDifference = maxDiff
        pixelCount = n
        comparedPixels = comparedCount
        meanDifference = comparedCount == 0 ? 0 : Double(absSum) / Double(comparedCount * 4)
        mse = comparedCount == 0 ? 0 : Double(sqSum) / Double(comparedCount * (withAlpha ? 4 : 3))
        bounds = x1 < 0 ? nil : Rect(x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1)
        self.classes = classes
    }
}
