/// How two same-sized images differ, compared as RGBA (gray replicated, missing alpha
/// 255). Pixels fully transparent in both count as equal whatever their hidden colour.
/// PSNR is the textbook one over the colour channels of 8-bit samples:
/// `10 * log10(255^2 / MSE)`, infinite for identical colour.
public struct ImageDifference: Equatable, Sendable {
    /// Pixels with any channel differing by more than the tolerance.
    public var differingPixels: Int
    /// The largest difference of any channel of any pixel.
    public var maxDifference: Int
    /// Mean absolute difference over all RGBA samples, in 0...255.
    public var meanDifference: Double
    /// Mean squared error over the R, G and B samples.
    public var mse: Double
    public var pixelCount: Int

    public var psnr: Double {
        mse == 0 ? .infinity : 10 * log10(255.0 * 255.0 / mse)
    }

    public init(_ a: PixelBuffer, _ b: PixelBuffer, tolerance: Int = 0) {
        precondition(a.size == b.size, "compare same-sized images")
        let pa = a.rgba(), pb = b.rgba()
        var differing = 0, maxDiff = 0
        var absSum = 0, sqSum = 0
        for i in stride(from: 0, to: pa.count, by: 4) {
            if pa[i + 3] == 0 && pb[i + 3] == 0 { continue }
            var pixelMax = 0
            for c in 0..<4 {
                let d = abs(Int(pa[i + c]) - Int(pb[i + c]))
                pixelMax = max(pixelMax, d)
                absSum += d
                if c < 3 { sqSum += d * d }
            }
            maxDiff = max(maxDiff, pixelMax)
            if pixelMax > tolerance { differing += 1 }
        }
        let n = a.width * a.height
        differingPixels = differing
        maxDifference = maxDiff
        meanDifference = Double(absSum) / Double(n * 4)
        mse = Double(sqSum) / Double(n * 3)
        pixelCount = n
    }
}

#if canImport(Glibc)
import Glibc
#endif
