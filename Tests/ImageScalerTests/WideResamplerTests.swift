import XCTest
import ImageScaler

/// The 16-bit resampler against the same filters computed in double precision with no
/// rounding between the passes (weights from `Filter.weight`, normalised per window as
/// Pillow's `precompute_coeffs`; alpha premultiplied and divided back in double).
final class WideResamplerTests: XCTestCase {
    /// Rows of `outSize` weights over `inSize` source pixels, in double.
    private func weights(_ inSize: Int, start: Double, length: Double, outSize: Int, filter: ResampleFilter) -> [[(Int, Double)]] {
        let scale = length / Double(outSize), filterScale = max(scale, 1)
        if filter == .nearest {
            // One tap, the pixel under the centre, stepped as Pillow's affine nearest.
            var centre = start + scale * 0.5
            return (0..<outSize).map { _ in
                defer { centre += scale }
                return [(min(max(centre < 0 ? 0 : Int(centre), 0), inSize - 1), 1)]
            }
        }
        return (0..<outSize).map { i in
            let centre = start + (Double(i) + 0.5) * scale
            let support = filter.support * filterScale
            let lo = max(Int(centre - support + 0.5), 0), hi = min(Int(centre + support + 0.5), inSize)
            let raw = (lo..<hi).map { filter.weight((Double($0) - centre + 0.5) / filterScale) }
            let total = raw.reduce(0, +)
            return zip(lo..<hi, raw).map { ($0, total != 0 ? $1 / total : $1) }
        }
    }

    private func reference(_ image: WideImage, rect: SamplingRect, to size: Size, filter: ResampleFilter) -> [Double] {
        let ch = image.channels, alpha = image.hasAlpha && filter.premultiplies
        let h = weights(image.width, start: rect.x, length: rect.width, outSize: size.width, filter: filter)
        let v = weights(image.height, start: rect.y, length: rect.height, outSize: size.height, filter: filter)
        func sample(_ x: Int, _ y: Int, _ c: Int) -> Double {
            let p = (y * image.width + x) * ch
            let s = Double(image.samples[p + c])
            return alpha && c < ch - 1 ? s * Double(image.samples[p + ch - 1]) / 65535 : s
        }
        var across = [Double](repeating: 0, count: image.height * size.width * ch)
        for y in 0..<image.height {
            for x in 0..<size.width {
                for c in 0..<ch { across[(y * size.width + x) * ch + c] = h[x].reduce(0) { $0 + $1.1 * sample($1.0, y, c) } }
            }
        }
        var out = [Double](repeating: 0, count: size.width * size.height * ch)
        for y in 0..<size.height {
            for x in 0..<size.width {
                for c in 0..<ch { out[(y * size.width + x) * ch + c] = v[y].reduce(0) { $0 + $1.1 * across[($1.0 * size.width + x) * ch + c] } }
                if alpha {
                    let p = (y * size.width + x) * ch, a = out[p + ch - 1]
                    for c in 0..<(ch - 1) { out[p + c] = a > 0 ? out[p + c] * 65535 / a : 0 }
                }
            }
        }
        return out
    }

    /// Smooth areas, hard edges (where bicubic and lanczos ring past the range) and
    /// noise, in every channel layout, with alpha from opaque down to 1/256.
    private func image(_ width: Int, _ height: Int, channels: Int, seed: UInt64) -> WideImage {
        var state = seed
        func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 48)
        }
        var samples = [UInt16](repeating: 0, count: width * height * channels)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<channels {
                    let p = (y * width + x) * channels + c
                    let isAlpha = (channels == 2 || channels == 4) && c == channels - 1
                    if isAlpha {
                        samples[p] = UInt16(256 + (x * 65279) / max(1, width - 1))
                    } else {
                        switch (x / 4 + y / 4 + c) % 3 {
                        case 0: samples[p] = UInt16(x * 65535 / max(1, width - 1))
                        case 1: samples[p] = (x + y) % 2 == 0 ? 0 : 65535
                        default: samples[p] = UInt16(next())
                        }
                    }
                }
            }
        }
        return WideImage(width: width, height: height, channels: channels, samples: samples)
    }

    func testEveryFilterIsWithinOneLevelOfDoublePrecision() {
        let cases: [(Size, Size)] = [((37, 23), (11, 7)), ((37, 23), (80, 50)), ((64, 64), (63, 17)), ((9, 40), (9, 13)),
                                     ((50, 3), (7, 3)), ((120, 90), (16, 12)), ((5, 5), (23, 2))]
            .map { (Size(width: $0.0.0, height: $0.0.1), Size(width: $0.1.0, height: $0.1.1)) }
        var worst = 0.0
        for filter in ResampleFilter.allCases {
            for (n, (source, target)) in cases.enumerated() {
                for channels in 1...4 {
                    let img = image(source.width, source.height, channels: channels, seed: UInt64(n * 10 + channels))
                    // The whole image, and a fractional from-rect as a fill's crop gives it.
                    for rect in [SamplingRect(Rect(size: source)),
                                 SamplingRect(x: 1.25, y: 0.5, width: Double(source.width) - 2.5, height: Double(source.height) - 1)] {
                        let got = WideResampler.resample(img, from: rect, to: target, filter: filter)
                        let want = reference(img, rect: rect, to: target, filter: filter)
                        XCTAssertEqual(got.size, target)
                        for (i, w) in want.enumerated() {
                            let diff = abs(Double(got.samples[i]) - min(max(w, 0), 65535))
                            worst = max(worst, diff)
                            if diff > 1 {
                                XCTFail("\(filter) \(source) -> \(target) \(channels) channels, sample \(i): \(got.samples[i]) against \(w)")
                                return
                            }
                        }
                    }
                }
            }
        }
        print("16-bit resampler: at most \(worst) levels from double precision")
    }

    /// 2 pixels to 4, by hand: centres at 0.25, 0.75, 1.25 and 1.75 source pixels; the
    /// middle two mix the pixels 3:1 and 1:3 (16383.75 and 49151.25, rounded), the outer
    /// two sit within half a pixel of the edge, where the window renormalises to one pixel.
    func testEnlargeIsBilinearInterpolationByHand() {
        let img = WideImage(width: 2, height: 1, channels: 1, samples: [0, 65535])
        let out = WideResampler.resample(img, from: SamplingRect(Rect(size: img.size)), to: Size(width: 4, height: 1), filter: .bilinear)
        XCTAssertEqual(out.samples, [0, 16384, 49151, 65535])
    }

    /// A 1:1 resample of the whole image is the image, bit for bit.
    func testIdentityIsExact() {
        let img = image(31, 17, channels: 4, seed: 3)
        XCTAssertEqual(WideResampler.resample(img, from: SamplingRect(Rect(size: img.size)), to: img.size, filter: .lanczos), img)
    }

    /// Flat colour stays that colour exactly under every filter.
    func testFlatStaysFlat() {
        let img = WideImage(width: 40, height: 30, channels: 3, samples: Array(repeating: [12345, 0, 65535], count: 1200).flatMap { $0 })
        for filter in ResampleFilter.allCases {
            for target in [Size(width: 7, height: 5), Size(width: 97, height: 61)] {
                let out = WideResampler.resample(img, from: SamplingRect(Rect(size: img.size)), to: target, filter: filter)
                XCTAssertEqual(Set(stride(from: 0, to: out.samples.count, by: 3).map { out.samples[$0] }), [12345], "\(filter)")
            }
        }
    }
}
