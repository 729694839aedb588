/// Fixed-point filter weights for one axis, shared by every row (or column) of a pass,
/// with Pillow's semantics (`precompute_coeffs`): output pixel i is centred on
/// `start + (i + 0.5) * scale` in source pixel units, the filter's support is widened
/// by `scale` when shrinking so every source pixel contributes (antialiasing), the
/// window is clamped at the image edges and its weights renormalised to sum to one.
/// `nearest` is one tap, the source pixel under the centre (Pillow's affine nearest).
///
/// Positions are the whole image's (`start` and the centres), and `offset` is where the
/// `inSize` pixels a decoder delivered begin in it: a window is clamped at the delivered
/// part's ends, which are the image's own wherever the filter reaches them, so any
/// window that covers the taps gives the full image's weights, bit for bit, whatever
/// its origin (a region decoded for one output or the union of several).
///
/// Invariant: for output i, the delivered indices `first[i] ..< first[i] + count[i]` lie
/// inside `0 ..< inSize`, and `weights(i, into:)` gives their weights scaled by
/// 2^`bits` (`precisionBits` for 8-bit samples), each rounded half away from zero (weights of bicubic and lanczos go negative). The table of every output's weights
/// (`coefficients`, `taps` apart) is kept when it is small; an axis shrunk by a huge
/// factor (a 67-megapixel-tall strip to 256 rows) would need about 8 bytes per source
/// pixel for it, so there the weights are worked out per output when needed instead,
/// by the same arithmetic: the same integers, in memory of one window.
package struct ResampleWeights {
    /// 32 bits less 8 for the 8-bit sample and 2 of headroom: a weighted sum of 255s
    /// whose rounded weights add up to slightly over one still fits an Int32.
    package static let precisionBits = 22
    /// The largest table kept whole: 4M weights, 16 MiB (a 12 MP photo's axes need
    /// well under 100K).
    static let maxTableEntries = 1 << 22

    package let outSize: Int
    package let taps: Int
    package let first: [Int32]
    package let count: [Int32]
    /// Every output's weights, `taps` apart; empty when `isTabled` is false.
    package let coefficients: [Int32]
    private let start: Double
    private let scale: Double
    private let inSize: Int
    private let offset: Int
    let filter: ResampleFilter
    /// The weights' fixed point: 2^bits is one.
    let bits: Int

    package var isTabled: Bool { !coefficients.isEmpty }

    package init(inSize: Int, offset: Int = 0, start: Double, length: Double, outSize: Int, filter: ResampleFilter = .bilinear,
         tableLimit: Int = ResampleWeights.maxTableEntries, bits: Int = ResampleWeights.precisionBits) {
        self.bits = bits
        let scale = length / Double(outSize)
        let support = filter == .nearest ? 0.5 : filter.support * max(scale, 1)
        let taps = Int(support.rounded(.up)) * 2 + 1
        self.filter = filter
        self.outSize = outSize
        self.taps = taps
        self.start = start
        self.scale = scale
        self.inSize = inSize
        self.offset = offset
        var first = [Int32](repeating: 0, count: outSize)
        var count = [Int32](repeating: 0, count: outSize)
        if filter == .nearest {
            // Pillow scales with nearest by stepping a double from the first centre
            // (ImagingScaleAffine): the same additions give the same floors.
            var center = start + scale * 0.5
            for i in 0..<outSize {
                first[i] = Int32(min(max(center < 0 ? 0 : Int(center), offset), offset + inSize - 1) - offset)
                count[i] = 1
                center += scale
            }
        } else {
            for i in 0..<outSize {
                let (lo, n) = ResampleWeights.window(i, start: start, scale: scale, inSize: inSize, offset: offset, filter: filter)
                first[i] = Int32(lo - offset)
                count[i] = Int32(n)
            }
        }
        self.first = first
        self.count = count
        let (entries, overflow) = outSize.multipliedReportingOverflow(by: taps)
        guard !overflow, entries <= tableLimit else {
            coefficients = []
            return
        }
        var table = [Int32](repeating: 0, count: entries)
        let scratch = UnsafeMutablePointer<Double>.allocate(capacity: taps)
        defer { scratch.deallocate() }
        table.withUnsafeMutableBufferPointer { t in
            for i in 0..<outSize {
                ResampleWeights.compute(i, start: start, scale: scale, inSize: inSize, offset: offset, filter: filter,
                                        bits: bits, scratch: scratch, into: t.baseAddress! + i * taps)
            }
        }
        coefficients = table
    }

    /// Output i's weights into `out` (`count[i]` of them); `scratch` holds `taps` doubles.
    package func weights(_ i: Int, scratch: UnsafeMutablePointer<Double>, into out: UnsafeMutablePointer<Int32>) {
        ResampleWeights.compute(i, start: start, scale: scale, inSize: inSize, offset: offset, filter: filter,
                                bits: bits, scratch: scratch, into: out)
    }

    /// The filter's window for output i: the first source index (the image's) and how
    /// many follow.
    private static func window(_ i: Int, start: Double, scale: Double, inSize: Int, offset: Int,
                               filter: ResampleFilter) -> (Int, Int) {
        let center = start + (Double(i) + 0.5) * scale
        let support = filter.support * max(scale, 1)
        // Int() truncates toward zero like C's (int); +0.5 rounds the window ends.
        let lo = max(Int(center - support + 0.5), offset)
        let hi = min(Int(center + support + 0.5), offset + inSize)
        return (lo, max(hi - lo, 0))
    }

    private static func compute(_ i: Int, start: Double, scale: Double, inSize: Int, offset: Int, filter: ResampleFilter,
                                bits: Int, scratch: UnsafeMutablePointer<Double>, into out: UnsafeMutablePointer<Int32>) {
        let one = Double(1 << bits)
        if filter == .nearest {
            out[0] = Int32(one)
            return
        }
        let (lo, n) = window(i, start: start, scale: scale, inSize: inSize, offset: offset, filter: filter)
        let filterScale = max(scale, 1)
        let center = start + (Double(i) + 0.5) * scale
        // Multiplying by the reciprocal, as Pillow does, keeps the weights bit-identical.
        let inverseScale = 1.0 / filterScale
        var total = 0.0
        for k in 0..<n {
            let w = filter.weight((Double(k + lo) - center + 0.5) * inverseScale)
            scratch[k] = w
            total += w
        }
        for k in 0..<n {
            let w = total != 0 ? scratch[k] / total : scratch[k]
            // Half away from zero, then truncation: Pillow's rounding of the fixed point.
            // Clamped, so a window whose weights nearly cancel cannot trap.
            out[k] = Int32(min(max(w < 0 ? w * one - 0.5 : w * one + 0.5, -2_147_483_648), 2_147_483_647))
        }
    }

    /// First delivered index any output reads, and one past the last.
    var span: Range<Int> {
        guard outSize > 0 else { return 0..<0 }
        return Int(first[0])..<Int(first[outSize - 1] + count[outSize - 1])
    }
}
