/// Separable triangle-filter (antialiased bilinear) resampling with Pillow's `BILINEAR`
/// semantics, in fixed point so the bytes are the same on every machine and run.
///
/// Input and output are straight-alpha `PixelBuffer`s; images with alpha are resampled
/// premultiplied so hidden colour under transparent pixels never bleeds into edges.
/// The horizontal pass runs first over only the rows the vertical pass reads; a pass
/// that changes nothing is skipped, and a full-image 1:1 resample is the identity.
public enum Resampler {
    public static func resample(_ image: PixelBuffer, from rect: SamplingRect, to size: Size) -> PixelBuffer {
        precondition(size.width > 0 && size.height > 0, "empty target")
        precondition(rect.width > 0 && rect.height > 0, "empty source rect")
        let needH = size.width != image.width || rect.x != 0 || rect.width != Double(image.width)
        let needV = size.height != image.height || rect.y != 0 || rect.height != Double(image.height)
        if !needH && !needV { return image }

        let ch = image.channels
        let vertical = ResampleWeights(inSize: image.height, start: rect.y, length: rect.height, outSize: size.height)
        let rows = needV ? vertical.span : 0..<image.height
        let tempWidth = needH ? size.width : image.width

        // Stage 1: the rows the vertical pass needs, premultiplied and horizontally resampled.
        var temp: [UInt8]
        if needH || image.hasAlpha {
            temp = PixelBuffer.samples(count: rows.count * tempWidth * ch)
            let horizontal = needH
                ? ResampleWeights(inSize: image.width, start: rect.x, length: rect.width, outSize: size.width) : nil
            var scratch = [UInt8](repeating: 0, count: image.bytesPerRow)
            image.pixels.withUnsafeBufferPointer { src in
                temp.withUnsafeMutableBufferPointer { dst in
                    scratch.withUnsafeMutableBufferPointer { row in
                        for (i, y) in rows.enumerated() {
                            var line = src.baseAddress! + y * image.bytesPerRow
                            if image.hasAlpha {
                                row.baseAddress!.update(from: line, count: image.bytesPerRow)
                                AlphaPremultiplier.premultiply(row.baseAddress!, pixels: image.width, channels: ch)
                                line = UnsafePointer(row.baseAddress!)
                            }
                            let out = dst.baseAddress! + i * tempWidth * ch
                            if let horizontal {
                                convolveRow(line, into: out, channels: ch, weights: horizontal)
                            } else {
                                out.update(from: line, count: image.bytesPerRow)
                            }
                        }
                    }
                }
            }
        } else {
            temp = image.pixels
        }

        // Stage 2: the vertical pass, reading temp rows relative to its first row.
        var result: [UInt8]
        if needV {
            let base = (needH || image.hasAlpha) ? rows.lowerBound : 0
            result = PixelBuffer.samples(count: size.width * size.height * ch)
            temp.withUnsafeBufferPointer { src in
                result.withUnsafeMutableBufferPointer { dst in
                    convolveColumns(src.baseAddress!, rowBytes: tempWidth * ch, firstRow: base,
                                    into: dst.baseAddress!, weights: vertical)
                }
            }
        } else {
            result = temp
        }

        if image.hasAlpha {
            result.withUnsafeMutableBufferPointer {
                AlphaPremultiplier.unpremultiply($0.baseAddress!, pixels: size.width * size.height, channels: ch)
            }
        }
        return PixelBuffer(width: size.width, height: size.height, channels: ch, pixels: result)
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

    static func convolveColumns(_ src: UnsafePointer<UInt8>, rowBytes: Int, firstRow: Int,
                                into dst: UnsafeMutablePointer<UInt8>, weights w: ResampleWeights) {
        var acc = [Int32](repeating: 0, count: rowBytes)
        acc.withUnsafeMutableBufferPointer { accBuf in
            let sum = accBuf.baseAddress!
            for y in 0..<w.outSize {
                for i in 0..<rowBytes { sum[i] = half }
                let first = Int(w.first[y]) - firstRow
                for t in 0..<Int(w.count[y]) {
                    let k = w.coefficients[y * w.taps + t]
                    let row = src + (first + t) * rowBytes
                    for i in 0..<rowBytes { sum[i] &+= Int32(row[i]) &* k }
                }
                let out = dst + y * rowBytes
                for i in 0..<rowBytes { out[i] = clip8(sum[i]) }
            }
        }
    }
}
