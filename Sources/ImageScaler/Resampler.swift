/// Separable triangle-filter (antialiased bilinear) resampling with Pillow's `BILINEAR`
/// semantics, in fixed point so the bytes are the same on every machine and run.
///
/// Input and output are straight-alpha `PixelBuffer`s; images with alpha are resampled
/// premultiplied so hidden colour under transparent pixels never bleeds into edges.
/// The horizontal pass runs first over only the rows the vertical pass reads; a pass
/// that changes nothing is skipped, and a full-image 1:1 resample is the identity.
/// `RowResampler` holds the passes; this is its whole-image front.
public enum Resampler {
    public static func resample(_ image: PixelBuffer, from rect: SamplingRect, to size: Size) -> PixelBuffer {
        let needH = size.width != image.width || rect.x != 0 || rect.width != Double(image.width)
        let needV = size.height != image.height || rect.y != 0 || rect.height != Double(image.height)
        if !needH && !needV { return image }
        let resampler = RowResampler(source: image.size, channels: image.channels, rect: rect, target: size)
        image.pixels.withUnsafeBufferPointer { src in
            for y in resampler.rows {
                resampler.add(row: y, src.baseAddress! + y * image.bytesPerRow)
            }
        }
        return resampler.finish()
    }

    /// Rounds a fixed-point sum to an 8-bit sample: the accumulator starts at half a unit,
    /// so the shift rounds to nearest; clamping catches weights summing slightly over one.
    @inline(__always)
    static func clip8(_ sum: Int32) -> UInt8 {
        let v = sum >> Int32(ResampleWeights.precisionBits)
        return v < 0 ? 0 : v > 255 ? 255 : UInt8(v)
    }

    static let half = Int32(1) << Int32(ResampleWeights.precisionBits - 1)

    static func convolveRow(_ src: UnsafePointer<UInt8>, into dst: UnsafeMutablePointer<UInt8>,
                            channels ch: Int, weights w: ResampleWeights) {
        w.first.withUnsafeBufferPointer { first in
            w.count.withUnsafeBufferPointer { count in
                w.coefficients.withUnsafeBufferPointer { coeffs in
                    let table = WeightTable(first: first.baseAddress!, count: count.baseAddress!,
                                            coefficients: coeffs.baseAddress!, taps: w.taps, outSize: w.outSize)
                    // One specialised loop per layout: the channel count becomes a constant,
                    // so the per-tap work unrolls and stays in registers.
                    switch ch {
                    case 1: convolveRow(src, dst, table, Gray.self)
                    case 2: convolveRow(src, dst, table, GrayAlpha.self)
                    case 3: convolveRow(src, dst, table, RGB.self)
                    default: convolveRow(src, dst, table, RGBA.self)
                    }
                }
            }
        }
    }

    @inline(__always)
    private static func convolveRow<L: Layout>(_ src: UnsafePointer<UInt8>, _ dst: UnsafeMutablePointer<UInt8>,
                                               _ w: WeightTable, _: L.Type) {
        let n = L.channels
        for x in 0..<w.outSize {
            let p = src + Int(w.first[x]) * n
            let k = w.coefficients + x * w.taps
            var s0 = half, s1 = half, s2 = half, s3 = half
            for t in 0..<Int(w.count[x]) {
                let weight = k[t], q = p + t * n
                s0 &+= Int32(q[0]) &* weight
                if n > 1 { s1 &+= Int32(q[1]) &* weight }
                if n > 2 { s2 &+= Int32(q[2]) &* weight }
                if n > 3 { s3 &+= Int32(q[3]) &* weight }
            }
            let o = dst + x * n
            o[0] = clip8(s0)
            if n > 1 { o[1] = clip8(s1) }
            if n > 2 { o[2] = clip8(s2) }
            if n > 3 { o[3] = clip8(s3) }
        }
    }

    /// One output row of the vertical pass: `count` rows of `src` from row `first`,
    /// weighted by `weights[at ..< at + count]`.
    static func convolveColumn(_ src: UnsafePointer<UInt8>, rowBytes: Int, first: Int, count: Int,
                               weights: [Int32], at offset: Int, accumulator sum: UnsafeMutablePointer<Int32>,
                               into out: UnsafeMutablePointer<UInt8>) {
        for i in 0..<rowBytes { sum[i] = half }
        weights.withUnsafeBufferPointer { k in
            for t in 0..<count {
                let w = k[offset + t]
                let row = src + (first + t) * rowBytes
                // Contiguous multiply-adds over the row: the loop the compiler vectorises.
                for i in 0..<rowBytes { sum[i] &+= Int32(row[i]) &* w }
            }
        }
        for i in 0..<rowBytes { out[i] = clip8(sum[i]) }
    }
}
