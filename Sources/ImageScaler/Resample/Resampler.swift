import CResample

/// Separable triangle-filter (antialiased bilinear) resampling with Pillow's `BILINEAR`
/// semantics, in fixed point so the bytes are the same on every machine and run.
///
/// Input and output are straight-alpha `PixelBuffer`s; images with alpha are resampled
/// premultiplied so hidden colour under transparent pixels never bleeds into edges.
/// The horizontal pass runs first over only the rows the vertical pass reads; a pass
/// that changes nothing is skipped, and a full-image 1:1 resample is the identity.
/// `RowResampler` holds the passes; this is its whole-image front.
package enum Resampler {
    package static func resample(_ image: PixelBuffer, from rect: SamplingRect, to size: Size, filter: ResampleFilter = .bilinear) -> PixelBuffer {
        if RowResampler.passes(region: Rect(size: image.size), rect: rect, target: size) == (false, false) { return image }
        let resampler = RowResampler(source: image.size, channels: image.channels, rect: rect, target: size, filter: filter)
        image.pixels.withUnsafeBufferPointer { src in
            let rows = resampler.rows
            resampler.add(rows: rows.lowerBound, count: rows.count, src.baseAddress! + rows.lowerBound * image.bytesPerRow,
                          bytesPerRow: image.bytesPerRow)
        }
        return resampler.finish()
    }

    /// `packed`: `w`'s table as `packWeights` makes it, for the faster kernel.
    package static func convolveRow(_ src: UnsafePointer<UInt8>, bytes: Int, into dst: UnsafeMutablePointer<UInt8>,
                            channels: Int, weights w: ResampleWeights, packed: UnsafePointer<Int32>? = nil) {
        w.first.withUnsafeBufferPointer { first in
            w.count.withUnsafeBufferPointer { count in
                guard w.isTabled else {
                    // One output pixel at a time, each with its weights made just before.
                    var scratch = [Double](repeating: 0, count: w.taps)
                    var k = [Int32](repeating: 0, count: w.taps)
                    k.withUnsafeMutableBufferPointer { k in
                        for x in 0..<w.outSize {
                            scratch.withUnsafeMutableBufferPointer { w.weights(x, scratch: $0.baseAddress!, into: k.baseAddress!) }
                            resample_row(src, bytes, dst + x * channels, Int32(channels), first.baseAddress! + x, count.baseAddress! + x,
                                         k.baseAddress, Int32(w.taps), 1, Int32(ResampleWeights.precisionBits))
                        }
                    }
                    return
                }
                w.coefficients.withUnsafeBufferPointer { coeffs in
                    resample_row_packed(src, bytes, dst, Int32(channels), first.baseAddress, count.baseAddress, coeffs.baseAddress,
                                        packed, Int32(w.taps), Int32(w.outSize), Int32(ResampleWeights.precisionBits))
                }
            }
        }
    }

    /// `convolveRow` of two rows of the same width, `src` into `dst` and `src2` into `dst2`,
    /// asking the cache meanwhile for the `aheadBytes` at `ahead` (only prefetched, never read).
    package static func convolveRows(_ src: UnsafePointer<UInt8>, _ src2: UnsafePointer<UInt8>, bytes: Int,
                                     into dst: UnsafeMutablePointer<UInt8>, _ dst2: UnsafeMutablePointer<UInt8>,
                                     channels: Int, weights w: ResampleWeights, packed: UnsafePointer<Int32>?,
                                     ahead: UnsafePointer<UInt8>? = nil, aheadBytes: Int = 0) {
        guard w.isTabled, let packed else {
            convolveRow(src, bytes: bytes, into: dst, channels: channels, weights: w, packed: packed)
            convolveRow(src2, bytes: bytes, into: dst2, channels: channels, weights: w, packed: packed)
            return
        }
        w.first.withUnsafeBufferPointer { first in
            w.count.withUnsafeBufferPointer { count in
                w.coefficients.withUnsafeBufferPointer { coeffs in
                    resample_rows_packed(src, src2, bytes, dst, dst2, Int32(channels), first.baseAddress, count.baseAddress,
                                         coeffs.baseAddress, packed, Int32(w.taps), Int32(w.outSize), Int32(ResampleWeights.precisionBits),
                                         ahead, aheadBytes)
                }
            }
        }
    }

    /// A tabled axis's weights as 16-bit pairs for the multiply-add kernel of RGB and
    /// RGBA rows (nil where it does not apply); the caller deallocates.
    package static func packWeights(_ w: ResampleWeights, channels: Int) -> UnsafeMutablePointer<Int32>? {
        guard w.isTabled, channels >= 3 else { return nil }
        let packed = UnsafeMutablePointer<Int32>.allocate(capacity: resample_packed_count(Int32(w.taps), Int32(w.outSize)))
        let status = w.first.withUnsafeBufferPointer { first in
            w.count.withUnsafeBufferPointer { count in
                w.coefficients.withUnsafeBufferPointer {
                    resample_pack_row_weights(first.baseAddress, count.baseAddress, $0.baseAddress, Int32(w.taps), Int32(w.outSize),
                                              Int32(channels), packed)
                }
            }
        }
        guard status == 0 else {
            packed.deallocate()
            return nil
        }
        return packed
    }

    /// One output row of the vertical pass: the `count` rows `rows` points to,
    /// weighted by `weights[at ..< at + count]`.
    static func convolveColumn(_ rows: UnsafePointer<UnsafePointer<UInt8>?>, rowBytes: Int, count: Int,
                               weights: UnsafePointer<Int32>, into out: UnsafeMutablePointer<UInt8>) {
        resample_column(rows, rowBytes, Int32(count), weights, out, Int32(ResampleWeights.precisionBits))
    }
}
