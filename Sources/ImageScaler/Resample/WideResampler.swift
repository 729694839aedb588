/// Resampling of 16-bit images: Pillow's filters and windows (`ResampleWeights`, as the
/// 8-bit path), in integer fixed point wide enough that the result is within one level
/// (of 65535) of the same filter computed in double precision.
///
/// The precision: weights are fixed point at 2^29 (29 bits: a normalised weight of up to
/// 4 still fits an Int32); samples enter at 12 fraction bits (`s << 12`, or for alpha
/// `round(c * a * 2^12 / 65535)`, premultiplied exactly enough that a colour under 1/256
/// alpha comes back within a level); the horizontal pass keeps those 12 fraction bits
/// between passes, so only the last rounding, half a level, remains. Sums are Int64
/// (2^28 x 2^31 per tap); wrapping arithmetic keeps a pathological window from trapping.
/// Input and output are straight alpha; a resample that changes nothing is the identity.
package enum WideResampler {
    static let weightBits = 29
    static let fractionBits = 12

    package static func resample(_ image: WideImage, from rect: SamplingRect, to size: Size, filter: ResampleFilter) -> WideImage {
        let region = Rect(size: image.size)
        let (needH, needV) = RowResampler.passes(region: region, rect: rect, target: size)
        if !needH && !needV { return image }
        let ch = image.channels
        let premultiplies = image.hasAlpha && filter.premultiplies
        let vertical = needV ? ResampleWeights(inSize: image.height, start: rect.y, length: rect.height, outSize: size.height,
                                               filter: filter, bits: weightBits) : nil
        let horizontal = needH ? ResampleWeights(inSize: image.width, start: rect.x, length: rect.width, outSize: size.width,
                                                 filter: filter, bits: weightBits) : nil
        // Only the rows the vertical windows read are resampled across.
        let rows = vertical.map { $0.span } ?? 0..<image.height
        let tempWidth = horizontal?.outSize ?? image.width
        var temp = [Int32](repeating: 0, count: max(1, rows.count * tempWidth * ch))
        var line = [Int64](repeating: 0, count: image.width * ch)
        let f = Int64(fractionBits)
        image.samples.withUnsafeBufferPointer { src in
            for (r, y) in rows.enumerated() {
                let row = src.baseAddress! + y * image.width * ch
                for x in 0..<image.width {
                    let p = x * ch
                    if premultiplies {
                        let a = Int64(row[p + ch - 1])
                        for c in 0..<(ch - 1) { line[p + c] = ((Int64(row[p + c]) * a) << f + 32767) / 65535 }
                        line[p + ch - 1] = a << f
                    } else {
                        for c in 0..<ch { line[p + c] = Int64(row[p + c]) << f }
                    }
                }
                let out = r * tempWidth * ch
                if let h = horizontal {
                    convolve(h, tempWidth, channels: ch) { i, c in line[i * ch + c] } store: { x, c, v in temp[out + x * ch + c] = v }
                } else {
                    for i in 0..<(image.width * ch) { temp[out + i] = Int32(truncatingIfNeeded: line[i]) }
                }
            }
        }
        var finished = [Int64](repeating: 0, count: size.width * size.height * ch)
        if let v = vertical {
            for x in 0..<size.width {
                convolve(v, size.height, channels: ch) { i, c in Int64(temp[(i - rows.lowerBound) * tempWidth * ch + x * ch + c]) }
                    store: { y, c, value in finished[(y * size.width + x) * ch + c] = Int64(value) }
            }
        } else {
            for i in 0..<finished.count { finished[i] = Int64(temp[i]) }
        }
        var out = [UInt16](repeating: 0, count: finished.count)
        let half = Int64(1) << (f - 1)
        for p in stride(from: 0, to: finished.count, by: ch) {
            if premultiplies {
                let a = finished[p + ch - 1]
                for c in 0..<(ch - 1) {
                    // Both in the same fixed point, which cancels in the ratio.
                    out[p + c] = a > 0 ? clamp((finished[p + c] &* 65535 &+ a / 2) / a) : 0
                }
                out[p + ch - 1] = clamp((a &+ half) >> f)
            } else {
                for c in 0..<ch { out[p + c] = clamp((finished[p + c] &+ half) >> f) }
            }
        }
        return WideImage(width: size.width, height: size.height, channels: ch, samples: out)
    }

    /// One axis: output i of `count` is the weighted sum of `sample(j, c)` over its
    /// window, rounded to the samples' fixed point.
    private static func convolve(_ w: ResampleWeights, _ count: Int, channels ch: Int, sample: (Int, Int) -> Int64,
                                 store: (Int, Int, Int32) -> Void) {
        let half = Int64(1) << (weightBits - 1)
        var weights = [Int32](repeating: 0, count: w.taps)
        var scratch = [Double](repeating: 0, count: w.taps)
        for i in 0..<count {
            let n = Int(w.count[i]), first = Int(w.first[i])
            if w.isTabled {
                for k in 0..<n { weights[k] = w.coefficients[i * w.taps + k] }
            } else {
                scratch.withUnsafeMutableBufferPointer { s in
                    weights.withUnsafeMutableBufferPointer { w.weights(i, scratch: s.baseAddress!, into: $0.baseAddress!) }
                }
            }
            for c in 0..<ch {
                var sum: Int64 = 0
                for k in 0..<n { sum = sum &+ sample(first + k, c) &* Int64(weights[k]) }
                store(i, c, Int32(truncatingIfNeeded: (sum &+ half) >> Int64(weightBits)))
            }
        }
    }

    private static func clamp(_ v: Int64) -> UInt16 { UInt16(min(max(v, 0), 65535)) }
}
