import XCTest
import ImageScaler
import CResample

final class ResamplerTests: XCTestCase {
    func testTwoColourShrinkHandComputed() throws {
        // Columns 0-3 are 0, 4-7 are 200. Halving: output i is centred on source 2i+1 with
        // a triangle 2 pixels wide each way. Output 1 weighs source 1..4 as 1/8 3/8 3/8 1/8,
        // so 200/8 = 25; output 2 likewise 7/8 of 200 = 175; the edges renormalise to 0 and 200.
        let image = try Fixtures.image("two-colour-8x8.png")
        let out = Resampler.resample(image, from: SamplingRect(Rect(size: image.size)), to: Size(width: 4, height: 4))
        XCTAssertEqual(out.pixels, Array(repeating: [0, 25, 175, 200], count: 4).flatMap { $0 })
    }

    func testEnlargeIsBilinearInterpolation() {
        // 2 pixels to 4: centres at 0.25, 0.75, 1.25, 1.75 source pixels; weights 1-|d|.
        let image = try! PixelBuffer(width: 2, height: 1, channels: 1, pixels: [0, 100])
        let out = Resampler.resample(image, from: SamplingRect(Rect(size: image.size)), to: Size(width: 4, height: 1))
        // Outputs 1 and 2 mix both pixels 3:1 and 1:3; outputs 0 and 3 sit within half a
        // pixel of the edge, where the window holds one pixel and renormalises to it.
        XCTAssertEqual(out.pixels, [0, 25, 75, 100])
    }

    func testIdentityIsExact() throws {
        for name in ["scene-640x427.png", "alpha-disc-100x100.png", "gray-alpha-31x29.png", "checker-1px-64x64.png"] {
            let image = try Fixtures.image(name)
            XCTAssertEqual(Resampler.resample(image, from: SamplingRect(Rect(size: image.size)), to: image.size), image, name)
            // A 1:1 crop through the filter copies pixels exactly too.
            let part = Rect(x: 3, y: 2, width: image.width - 5, height: image.height - 4)
            let opaque = image.hasAlpha ? Flattener.flatten(image, onto: .white) : image
            XCTAssertEqual(Resampler.resample(opaque, from: SamplingRect(part), to: part.size),
                           try Scaling.crop(opaque, to: part), name)
        }
    }

    func testCheckerboardShrinksToFlatGrey() throws {
        let image = try Fixtures.image("checker-1px-64x64.png")
        let out = Resampler.resample(image, from: SamplingRect(Rect(size: image.size)), to: Size(width: 16, height: 16))
        for v in out.pixels {
            XCTAssertLessThanOrEqual(abs(Int(v) - 128), 4, "moire: \(v)")
        }
    }

    func testAlphaHaloHasNoHiddenGreen() throws {
        let image = try Fixtures.image("alpha-disc-100x100.png")
        for size in [Size(width: 20, height: 20), Size(width: 33, height: 17), Size(width: 7, height: 7)] {
            let out = Resampler.resample(image, from: SamplingRect(Rect(size: image.size)), to: size)
            var partial = 0
            for i in 0..<(size.pixelCount) {
                let px = Array(out.pixels[i * 4..<i * 4 + 4])
                XCTAssertEqual(px[1], 0, "green leaked at \(i): \(px)")
                XCTAssertEqual(px[2], 0)
                if px[3] > 0 && px[3] < 255 {
                    partial += 1
                    XCTAssertGreaterThanOrEqual(px[0], 250, "edge darkened: \(px)")
                }
            }
            XCTAssertGreaterThan(partial, 0, "the edge is antialiased")
        }
    }

    func testEveryTargetSizeKeepsExactDimensionsAndConstantsStayConstant() {
        for channels in 1...4 {
            let value: UInt8 = channels == 2 || channels == 4 ? 255 : 173
            let constant = try! PixelBuffer(width: 37, height: 23, channels: channels, value: value)
            for w in 1...45 {
                for h in stride(from: 1, through: 45, by: 4) {
                    let out = Resampler.resample(constant, from: SamplingRect(Rect(size: constant.size)), to: Size(width: w, height: h))
                    XCTAssertEqual(out.size, Size(width: w, height: h))
                    XCTAssertTrue(out.pixels.allSatisfy { $0 == value }, "\(channels)ch \(w)x\(h)")
                }
            }
        }
        let semi = try! PixelBuffer(width: 9, height: 9, channels: 4, pixels: Array(repeating: [200, 100, 50, 128], count: 81).flatMap { $0 })
        let out = Resampler.resample(semi, from: SamplingRect(Rect(size: semi.size)), to: Size(width: 4, height: 5))
        XCTAssertTrue(stride(from: 0, to: out.pixels.count, by: 4).allSatisfy { out.pixels[$0 + 3] == 128 })
    }

    func testMeanStaysWithinOneWhenShrinking() throws {
        let image = try Fixtures.image("scene-640x427.png")
        func mean(_ p: PixelBuffer) -> [Double] {
            (0..<3).map { c in Double(stride(from: c, to: p.pixels.count, by: 3).reduce(0) { $0 + Int(p.pixels[$1]) }) / Double(p.size.pixelCount) }
        }
        let before = mean(image)
        for size in [Size(width: 320, height: 213), Size(width: 64, height: 43), Size(width: 17, height: 11), Size(width: 640, height: 100)] {
            let after = mean(Resampler.resample(image, from: SamplingRect(Rect(size: image.size)), to: size))
            for c in 0..<3 { XCTAssertLessThanOrEqual(abs(before[c] - after[c]), 1, "\(size) channel \(c)") }
        }
    }

    func testFractionalRectSharesTheGrid() {
        // Sampling [1.5, 3.5) of a ramp at 1:1 lands exactly between pixels.
        let ramp = try! PixelBuffer(width: 6, height: 1, channels: 1, pixels: [0, 10, 20, 30, 40, 50])
        let out = Resampler.resample(ramp, from: SamplingRect(x: 1.5, y: 0, width: 2, height: 1), to: Size(width: 2, height: 1))
        XCTAssertEqual(out.pixels, [15, 25])
    }

    /// The executor's split decode: a top band fed the rows above a split and a lower
    /// band (over the same region) fed from the first row its windows read give the rows
    /// of one resampler, bit for bit, for every filter, shrinking and enlarging, regions
    /// at an offset, alpha or not, and every split row.
    func testBandsSplitAnywhereEqualOneResampler() {
        var seed: UInt32 = 5
        for filter in ResampleFilter.allCases {
            for (height, outHeight, channels) in [(40, 9, 3), (37, 37, 4), (23, 61, 3), (100, 7, 2), (64, 64, 1)] {
                let width = 13
                let region = Rect(x: 0, y: 11, width: width, height: height)
                let rect = SamplingRect(x: 1.5, y: 11.25, width: 11, height: Double(height) - 0.5)
                let target = Size(width: 5, height: outHeight)
                let pixels = Self.noise(width * height * channels, seed: &seed)
                let whole = Self.resampled(pixels, region: region, channels: channels, rect: rect, target: target, filter: filter)
                for split in 1..<height {
                    let (first, from) = RowResampler.split(region: region, rect: rect, target: target, filter: filter, at: split)
                    guard first > 0, first < outHeight else { continue }
                    let top = RowResampler(region: region, channels: channels, rect: rect, target: target, filter: filter, band: 0..<first)
                    let lower = RowResampler(region: region, channels: channels, rect: rect, target: target, filter: filter,
                                             band: first..<outHeight)
                    pixels.withUnsafeBufferPointer { p in
                        for y in 0..<split { top.add(row: y, p.baseAddress! + y * width * channels) }
                        // Nearest's windows skip rows: the lower band may start below the split.
                        let start = min(from, split)
                        lower.add(rows: start, count: height - start, p.baseAddress! + start * width * channels, bytesPerRow: width * channels)
                    }
                    XCTAssertEqual(top.rowsDone, first)
                    XCTAssertEqual(lower.rowsDone, outHeight)
                    XCTAssertEqual(top.finish(below: lower), whole, "\(filter) \(height)->\(outHeight) x\(channels) split \(split)")
                }
            }
        }
    }

    /// A streamed resampler keeps only a ring of output rows; taking each row as it is
    /// made, after every `feedRows` source rows or fewer (added as pieces, so made in
    /// pairs), gives one resampler's rows (added one by one), bit for bit, for every
    /// filter, shrinking (up to 40 times, a ring of a row or two) and enlarging (a ring of
    /// many), whole and as the top band of a split.
    func testStreamedRingGivesEveryRowOnce() {
        var seed: UInt32 = 9
        for filter in ResampleFilter.allCases {
            for (height, outHeight, channels) in [(400, 10, 3), (97, 13, 4), (23, 200, 3), (64, 64, 1), (50, 49, 2), (16, 3, 3)] {
                let width = 11
                let region = Rect(x: 0, y: 0, width: width, height: height)
                let rect = SamplingRect(x: 0.5, y: 0.75, width: 10, height: Double(height) - 1)
                let target = Size(width: 4, height: outHeight)
                let pixels = Self.noise(width * height * channels, seed: &seed)
                let whole = Self.resampled(pixels, region: region, channels: channels, rect: rect, target: target, filter: filter)
                let rowBytes = target.width * channels
                for band in [0..<outHeight, 0..<max(1, outHeight / 2)] {
                    let ring = RowResampler(region: region, channels: channels, rect: rect, target: target, filter: filter,
                                            band: band, streamed: true)
                    XCTAssertLessThanOrEqual(ring.storedRows, band.count)
                    var taken: [UInt8] = []
                    var next = band.lowerBound
                    var y = 0, step = 1
                    pixels.withUnsafeBufferPointer { p in
                        while y < height {
                            // Pieces of every size up to feedRows.
                            let count = min(step, height - y, RowResampler.feedRows)
                            // Added as pieces (made two rows at a time), against `whole`'s rows one by one.
                            ring.add(rows: y, count: count, p.baseAddress! + y * width * channels, bytesPerRow: width * channels)
                            y += count
                            step = step % RowResampler.feedRows + 1
                            while next < ring.rowsDone {
                                let run = ring.contiguousRows(from: next)
                                XCTAssertGreaterThan(run, 0)
                                taken += UnsafeBufferPointer(start: ring.outputRow(next), count: run * rowBytes)
                                next += run
                            }
                        }
                    }
                    XCTAssertEqual(next, band.upperBound)
                    XCTAssertEqual(taken, Array(whole.pixels[band.lowerBound * rowBytes ..< band.upperBound * rowBytes]),
                                   "\(filter) \(height)->\(outHeight) x\(channels) band \(band)")
                }
            }
        }
    }

    /// `count` bytes of a linear congruential sequence, carried on in `seed`.
    static func noise(_ count: Int, seed: inout UInt32) -> [UInt8] {
        (0..<count).map { _ -> UInt8 in seed = seed &* 1664525 &+ 1013904223; return UInt8(seed >> 24) }
    }

    /// One whole `RowResampler` fed every row of `pixels` (`region`'s rows, top first).
    static func resampled(_ pixels: [UInt8], region: Rect, channels: Int, rect: SamplingRect, target: Size,
                          filter: ResampleFilter) -> PixelBuffer {
        let one = RowResampler(region: region, channels: channels, rect: rect, target: target, filter: filter)
        pixels.withUnsafeBufferPointer { p in
            for y in 0..<region.height { one.add(row: y, p.baseAddress! + y * region.width * channels) }
        }
        return one.finish()
    }

    func testFillOutputIsExactlyTheTarget() throws {
        let image = try Fixtures.image("gradient-rgb-odd-37x23.png")
        for w in 1...30 {
            for h in [1, 5, 23, 40] {
                let out = try Scaling.scaleToFill(image, in: Size(width: w, height: h))
                XCTAssertEqual(out.size, Size(width: w, height: h))
            }
        }
    }
}

/// The AVX2 kernels (when this CPU has AVX2) against the portable ones every other CPU
/// runs: the same integers for every channel count, scale and row length.
final class ResampleKernelTests: XCTestCase {
    func testSIMDKernelsEqualPortableOnes() {
        var seed: UInt64 = 0x9E3779B97F4A7C15
        func next() -> UInt8 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: seed >> 56)
        }
        let bits = Int32(ResampleWeights.precisionBits)
        for channels in 1...4 {
            for inWidth in [1, 2, 3, 5, 8, 17, 64, 333] {
                for outWidth in [1, 2, 7, 16, 31, 100, 700] {
                    let w = ResampleWeights(inSize: inWidth, start: 0, length: Double(inWidth), outSize: outWidth)
                    let src = (0..<(inWidth * channels)).map { _ in next() }
                    var simd = [UInt8](repeating: 0, count: outWidth * channels)
                    var portable = simd
                    src.withUnsafeBufferPointer { s in
                        w.first.withUnsafeBufferPointer { f in
                            w.count.withUnsafeBufferPointer { c in
                                w.coefficients.withUnsafeBufferPointer { k in
                                    resample_row(s.baseAddress, s.count, &simd, Int32(channels), f.baseAddress, c.baseAddress,
                                                 k.baseAddress, Int32(w.taps), Int32(w.outSize), bits)
                                    resample_row_portable(s.baseAddress, &portable, Int32(channels), f.baseAddress, c.baseAddress,
                                                          k.baseAddress, Int32(w.taps), Int32(w.outSize), bits)
                                }
                            }
                        }
                    }
                    XCTAssertEqual(simd, portable, "row: \(channels) channels, \(inWidth) -> \(outWidth)")
                }
            }
        }
        // One and two rows weigh a half or more each (the 32-bit kernel); more rows go four
        // at a time in bytes up to 64 of them (past that, the 32-bit kernel again).
        for rowBytes in [1, 15, 16, 17, 48, 64, 100, 771] {
            for rows in [1, 2, 3, 5, 13, 37, 64, 65, 100] {
                let src = (0..<(rowBytes * rows)).map { _ in next() }
                let w = ResampleWeights(inSize: rows, start: 0, length: Double(rows), outSize: 1)
                var simd = [UInt8](repeating: 0, count: rowBytes)
                var portable = simd
                src.withUnsafeBufferPointer { s in
                    // Rows in reverse order in memory: the kernels follow the pointers.
                    let pointers: [UnsafePointer<UInt8>?] = (0..<rows).map { s.baseAddress! + (rows - 1 - $0) * rowBytes }
                    w.coefficients.withUnsafeBufferPointer { k in
                        resample_column(pointers, rowBytes, Int32(w.count[0]), k.baseAddress!, &simd, bits)
                        resample_column_portable(pointers, rowBytes, Int32(w.count[0]), k.baseAddress!, &portable, bits)
                    }
                }
                XCTAssertEqual(simd, portable, "column: \(rowBytes) bytes, \(rows) rows")
            }
        }
    }

    /// `pixels` pixels whose first 65536 hold every colour value with every alpha: pixel i
    /// has colour i % 256 (its other channels moved from it) and alpha (i / 256) ^ (i * mix).
    static func everyColourWithEveryAlpha(channels: Int, pixels: Int, mix: Int) -> [UInt8] {
        var src = [UInt8](repeating: 0, count: pixels * channels)
        for i in 0..<pixels {
            let v = UInt8(truncatingIfNeeded: i), a = UInt8(truncatingIfNeeded: i >> 8 ^ i * mix)
            for c in 0..<channels - 1 { src[i * channels + c] = c == 1 ? 255 - v : v &+ UInt8(c * 40) }
            src[i * channels + channels - 1] = a
        }
        return src
    }

    /// Premultiplying, SIMD and portable, against round(v * a / 255) worked out here (an odd
    /// denominator never leaves a half, so it is (v * a + 127) / 255): every colour with every
    /// alpha, for LA and RGBA, over row lengths that end inside a vector and past one (59 and
    /// 27: a 64-byte step, then a 32-byte one, then single pixels).
    func testPremultiplyIsRoundedProductEverywhere() {
        for channels in [2, 4] {
            for pixels in [65536, 65536 + 7, 59, 27, 15, 1] {
                let src = Self.everyColourWithEveryAlpha(channels: channels, pixels: pixels, mix: 7)
                let expected = (0..<src.count).map { j -> UInt8 in
                    let alpha = UInt32(src[j / channels * channels + channels - 1])
                    return j % channels == channels - 1 ? src[j] : UInt8((UInt32(src[j]) * alpha + 127) / 255)
                }
                var simd = [UInt8](repeating: 1, count: src.count), portable = simd
                resample_premultiply(src, &simd, pixels, Int32(channels))
                resample_premultiply_portable(src, &portable, pixels, Int32(channels))
                XCTAssertEqual(simd, expected, "\(channels) channels, \(pixels) pixels")
                XCTAssertEqual(portable, expected, "\(channels) channels, \(pixels) pixels")
            }
        }
    }

    /// Unpremultiplying, SIMD and portable, against min(255, v * 255 / a) truncated worked
    /// out here, alpha 0 and 255 untouched: every colour with every alpha, for LA and RGBA,
    /// over row lengths that end inside a vector and past one.
    func testUnpremultiplyIsTruncatedQuotientEverywhere() {
        for channels in [2, 4] {
            for pixels in [65536, 65536 + 5, 7, 1] {
                let src = Self.everyColourWithEveryAlpha(channels: channels, pixels: pixels, mix: 3)
                let expected = (0..<src.count).map { j -> UInt8 in
                    let alpha = UInt32(src[j / channels * channels + channels - 1])
                    if j % channels == channels - 1 || alpha == 0 || alpha == 255 { return src[j] }
                    return UInt8(min(255, UInt32(src[j]) * 255 / alpha))
                }
                var simd = src, portable = src
                resample_unpremultiply(&simd, pixels, Int32(channels))
                resample_unpremultiply_portable(&portable, pixels, Int32(channels))
                XCTAssertEqual(simd, expected, "\(channels) channels, \(pixels) pixels")
                XCTAssertEqual(portable, expected, "\(channels) channels, \(pixels) pixels")
            }
        }
    }

    /// A row is opaque only when every alpha is 255: one 254 anywhere (the first pixel, the
    /// last, inside the vectors, in the tail after them) makes it not; colour never does.
    func testOpaqueRowsAreEveryAlpha255() {
        for channels in [2, 4] {
            for pixels in [1, 7, 8, 64, 1001, 4928] {
                var row = [UInt8](repeating: 0, count: pixels * channels)
                for i in 0..<pixels { row[i * channels + channels - 1] = 255 }
                XCTAssertEqual(resample_opaque(row, pixels, Int32(channels)), 1, "\(channels) x \(pixels): all 255")
                for at in Set([0, pixels / 2, pixels - 1, max(0, pixels - 3)]) {
                    var one = row
                    one[at * channels + channels - 1] = 254
                    XCTAssertEqual(resample_opaque(one, pixels, Int32(channels)), 0, "\(channels) x \(pixels): 254 at \(at)")
                }
            }
        }
    }

    /// The packed kernel's bytes for `row`, then for `row` and its reverse made as a pair
    /// (each in its own allocation, so a read past either's end shows under ASan), beside
    /// the portable kernel's for the same three.
    static func packedAndPortable(_ row: [UInt8], _ w: ResampleWeights, _ packed: UnsafePointer<Int32>,
                                  channels: Int) -> (packed: [UInt8], portable: [UInt8]) {
        let bits = Int32(ResampleWeights.precisionBits)
        let reversed = Array(row.reversed())
        let bytes = w.outSize * channels
        var fast = [UInt8](repeating: 0, count: bytes), portable = fast, pair = fast, pair2 = fast, portable2 = fast
        row.withUnsafeBufferPointer { s in
            reversed.withUnsafeBufferPointer { r in
                w.first.withUnsafeBufferPointer { f in
                    w.count.withUnsafeBufferPointer { c in
                        w.coefficients.withUnsafeBufferPointer { k in
                            resample_row_packed(s.baseAddress, s.count, &fast, Int32(channels), f.baseAddress, c.baseAddress,
                                                k.baseAddress, packed, Int32(w.taps), Int32(w.outSize), bits)
                            resample_rows_packed(s.baseAddress, r.baseAddress, s.count, &pair, &pair2, Int32(channels), f.baseAddress,
                                                 c.baseAddress, k.baseAddress, packed, Int32(w.taps), Int32(w.outSize), bits, s.baseAddress, s.count)
                            resample_row_portable(s.baseAddress, &portable, Int32(channels), f.baseAddress, c.baseAddress,
                                                  k.baseAddress, Int32(w.taps), Int32(w.outSize), bits)
                            resample_row_portable(r.baseAddress, &portable2, Int32(channels), f.baseAddress, c.baseAddress,
                                                  k.baseAddress, Int32(w.taps), Int32(w.outSize), bits)
                        }
                    }
                }
            }
        }
        return (fast + pair + pair2, portable + portable + portable2)
    }

    /// The multiply-add kernels, with their weights split into 16-bit halves, against the
    /// portable one: every filter (negative lobes too), shrinking and enlarging, windows
    /// that end at the row's end, RGB and RGBA, partial last groups of four, and shrinks
    /// around the most a group of four's 64-byte window allows (about 6x for RGB, 4.6x for
    /// RGBA), then its two windows of 32 (RGB to about 6.6x, RGBA to 4x), its 128-byte one
    /// (about 13x and 10x) and past that a 16-byte lane per pixel; one row at a time and two.
    func testPackedWeightsKernelEqualsPortable() {
        var seed: UInt32 = 11
        for filter in ResampleFilter.allCases where filter != .nearest {
            for (inWidth, outWidth, start, length) in [(1, 1, 0.0, 1.0), (5, 2, 0.0, 5.0), (17, 3, 1.5, 14.0), (333, 100, 0.0, 333.0),
                                                       (64, 200, 0.0, 64.0), (4032, 256, 504.0, 3024.0), (3000, 800, 0.0, 3000.0),
                                                       (100, 99, 0.25, 99.5), (3750, 800, 0.0, 3750.0), (1200, 203, 0.0, 1200.0),
                                                       (1200, 250, 3.0, 1195.0), (1001, 999, 0.0, 1001.0), (3000, 801, 0.0, 3000.0),
                                                       (4928, 852, 0.0, 4928.0), (6000, 701, 0.5, 5999.0), (9000, 800, 0.0, 9000.0)] {
                let w = ResampleWeights(inSize: inWidth, start: start, length: length, outSize: outWidth, filter: filter)
                for channels in 3...4 {
                    guard let packed = Resampler.packWeights(w, channels: channels) else { return XCTFail("no packed weights") }
                    defer { packed.deallocate() }
                    let src = (0..<inWidth * channels).map { _ -> UInt8 in seed = seed &* 1664525 &+ 1013904223; return UInt8(seed >> 24) }
                    // Extremes too: a row of 255s next to 0s is where rounding and clamping show.
                    for row in [src, src.map { $0 > 127 ? 255 : 0 }] {
                        let (fast, portable) = Self.packedAndPortable(row, w, packed, channels: channels)
                        XCTAssertEqual(fast, portable, "\(filter) \(inWidth) -> \(outWidth) x\(channels)")
                    }
                }
            }
        }
    }

    /// A sweep over random sizes, crops and filters: whichever kernel the packed weights
    /// choose (groups of four, pairs, or none), the bytes are the portable code's.
    func testPackedKernelsEqualPortableOverRandomSizes() {
        var seed: UInt64 = 0x9E3779B97F4A7C15
        func next(_ n: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int(seed >> 33) % n
        }
        let filters = ResampleFilter.allCases.filter { $0 != .nearest }
        for _ in 0..<300 {
            let inWidth = 1 + next(900), outWidth = 1 + next(300), channels = 3 + next(2)
            let start = Double(next(max(1, inWidth / 4))) + Double(next(4)) / 4
            let length = max(0.25, Double(inWidth) - start - Double(next(max(1, inWidth / 4))))
            let filter = filters[next(filters.count)]
            let w = ResampleWeights(inSize: inWidth, start: start, length: length, outSize: outWidth, filter: filter)
            guard w.isTabled, let packed = Resampler.packWeights(w, channels: channels) else { continue }
            defer { packed.deallocate() }
            let row = (0..<inWidth * channels).map { _ in UInt8(next(256)) }
            let (fast, portable) = Self.packedAndPortable(row, w, packed, channels: channels)
            XCTAssertEqual(fast, portable, "\(filter) \(inWidth) from \(start) for \(length) -> \(outWidth) x\(channels)")
        }
    }

    /// Weights worked out per output (for axes shrunk by huge factors) are the table's,
    /// and a row convolved with them is the same bytes.
    func testUntabledWeightsEqualTheTable() {
        var seed: UInt32 = 7
        for (inSize, outSize, start, length) in [(1000, 3, 0.0, 1000.0), (997, 256, 10.5, 900.25), (64, 200, 0.0, 64.0),
                                                 (5000, 1, 0.0, 5000.0), (3001, 17, 1.0, 2999.0)] {
            let tabled = ResampleWeights(inSize: inSize, start: start, length: length, outSize: outSize)
            let lazy = ResampleWeights(inSize: inSize, start: start, length: length, outSize: outSize, tableLimit: 0)
            XCTAssertTrue(tabled.isTabled)
            XCTAssertFalse(lazy.isTabled)
            XCTAssertEqual(tabled.first, lazy.first)
            XCTAssertEqual(tabled.count, lazy.count)
            var scratch = [Double](repeating: 0, count: lazy.taps)
            var k = [Int32](repeating: 0, count: lazy.taps)
            for i in 0..<outSize {
                k.withUnsafeMutableBufferPointer { out in scratch.withUnsafeMutableBufferPointer { lazy.weights(i, scratch: $0.baseAddress!, into: out.baseAddress!) } }
                let n = Int(lazy.count[i])
                XCTAssertEqual(Array(k[0..<n]), Array(tabled.coefficients[i * tabled.taps ..< i * tabled.taps + n]))
            }
            for channels in 1...4 {
                let src = (0..<inSize * channels).map { _ -> UInt8 in seed = seed &* 1664525 &+ 1013904223; return UInt8(seed >> 24) }
                var a = [UInt8](repeating: 0, count: outSize * channels), b = a
                src.withUnsafeBufferPointer { s in
                    Resampler.convolveRow(s.baseAddress!, bytes: s.count, into: &a, channels: channels, weights: tabled)
                    Resampler.convolveRow(s.baseAddress!, bytes: s.count, into: &b, channels: channels, weights: lazy)
                }
                XCTAssertEqual(a, b, "\(inSize)->\(outSize) x\(channels)")
            }
        }
    }
}
