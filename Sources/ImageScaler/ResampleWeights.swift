/// Fixed-point triangle-filter weights for one axis, computed once and shared by every
/// row (or column) of a pass, with Pillow's `BILINEAR` semantics:
/// output pixel i is centred on `start + (i + 0.5) * scale` in source pixel units, the
/// filter's support (1 source pixel) is widened by `scale` when shrinking so every
/// source pixel contributes (antialiasing), the window is clamped at the image edges and
/// its weights renormalised to sum to one.
///
/// Invariant: for output i, the source indices `first[i] ..< first[i] + count[i]` lie
/// inside `0 ..< inSize`, and `coefficients[i * taps ..< i * taps + count[i]]` hold their
/// weights scaled by 2^`precisionBits`, each rounded to nearest.
struct ResampleWeights {
    /// 32 bits less 8 for the 8-bit sample and 2 of headroom: a weighted sum of 255s
    /// whose rounded weights add up to slightly over one still fits an Int32.
    static let precisionBits = 22

    let outSize: Int
    let taps: Int
    let first: [Int32]
    let count: [Int32]
    let coefficients: [Int32]

    init(inSize: Int, start: Double, length: Double, outSize: Int) {
        let scale = length / Double(outSize)
        let filterScale = max(scale, 1)
        let support = 1.0 * filterScale
        let taps = Int(support.rounded(.up)) * 2 + 1
        var first = [Int32](repeating: 0, count: outSize)
        var count = [Int32](repeating: 0, count: outSize)
        var coefficients = [Int32](repeating: 0, count: outSize * taps)
        var weights = [Double](repeating: 0, count: taps)
        let one = Double(1 << ResampleWeights.precisionBits)
        // Multiplying by the reciprocal, as Pillow does, keeps the weights bit-identical.
        let inverseScale = 1.0 / filterScale
        for i in 0..<outSize {
            let center = start + (Double(i) + 0.5) * scale
            // Int() truncates toward zero like C's (int); +0.5 rounds the window ends.
            let lo = max(Int(center - support + 0.5), 0)
            let hi = min(Int(center + support + 0.5), inSize)
            let n = max(hi - lo, 0)
            var total = 0.0
            for k in 0..<n {
                let d = abs((Double(k + lo) - center + 0.5) * inverseScale)
                let w = d < 1 ? 1 - d : 0
                weights[k] = w
                total += w
            }
            for k in 0..<n {
                let w = total != 0 ? weights[k] / total : weights[k]
                // Triangle weights are never negative, so +0.5 then truncation rounds.
                coefficients[i * taps + k] = Int32(w * one + 0.5)
            }
            first[i] = Int32(lo)
            count[i] = Int32(n)
        }
        self.outSize = outSize
        self.taps = taps
        self.first = first
        self.count = count
        self.coefficients = coefficients
    }

    /// First source index any output reads, and one past the last.
    var span: Range<Int> {
        guard outSize > 0 else { return 0..<0 }
        return Int(first[0])..<Int(first[outSize - 1] + count[outSize - 1])
    }
}
