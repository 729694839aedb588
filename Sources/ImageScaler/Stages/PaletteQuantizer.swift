/// An image of any number of colours as at most `colors` palette entries (`--colors`):
/// a `VarianceCut` of its premultiplied RGBA histogram, refined by k-means rounds (each
/// colour to its nearest entry, each entry to the rounded mean of its colours), then
/// every pixel mapped to its nearest entry with Floyd-Steinberg error diffusion at
/// `dither` strength (0-1), rows alternating direction, as much as the pixel's
/// neighbourhood is flat (`ditherWeights`), as pngquant also spares edges and texture. Alpha is quantised with the
/// colour (premultiplied distance), so edges keep their coverage. Entries come out as
/// straight RGBA, translucent ones first (a shorter tRNS). Integer sums, distances and
/// errors (the cut compares its errors in double, in a fixed order): the same image and
/// options give the same palette and indices every run.
enum PaletteQuantizer {
    /// k-means rounds after the cut: the last rounds moved little on the test images.
    static let rounds = 3
    /// A pixel's activity (its summed absolute channel differences from its four
    /// neighbours) up to which it spreads its error in full, and from which none.
    /// Chosen against pngquant 2.17 on photos, icons and screenshots: with 16 and 64 the
    /// wide photo lost 1.9 dB to it; with 8 and 40 every image gains 0.3-1.7 dB.
    static let flatActivity: Int32 = 8, busyActivity: Int32 = 40
    /// The squared distance to its entry at or under which a pixel spreads no error.
    static let quietError: Int32 = 2
    /// The share of an error spread at `--dither 1`, in 1/256ths: 3/4. Spreading all of
    /// it made a screenshot's gradient bar 30% larger than pngquant's file, and cost
    /// the wide photo 0.65 dB against it; at 3/4 both are below pngquant's bytes.
    static let fullStrength: Int32 = 192

    static func quantize(_ image: PixelBuffer, colors limit: Int, dither: Double) -> (palette: [UInt8], indices: [UInt8]) {
        let pixels = ColorHistogram.packed(image)
        let histogram = ColorHistogram(pixels)
        var palette = VarianceCut(histogram, limit: limit).palette
        for _ in 0..<rounds {
            let nearest = NearestPaletteColor(palette)
            var sums = [Int](repeating: 0, count: palette.count * 5)
            for (c, k) in zip(histogram.colors, histogram.counts) {
                let (r, g, b, a) = (Int32(c & 255), Int32(c >> 8 & 255), Int32(c >> 16 & 255), Int32(c >> 24))
                let e = Int(nearest.nearest(r, g, b, a).index) * 5
                sums[e] += Int(r) * k; sums[e + 1] += Int(g) * k; sums[e + 2] += Int(b) * k; sums[e + 3] += Int(a) * k
                sums[e + 4] += k
            }
            for i in palette.indices where sums[i * 5 + 4] > 0 {
                let w = sums[i * 5 + 4]
                var c: UInt32 = 0
                for ch in 0..<4 { c |= UInt32((sums[i * 5 + ch] + w / 2) / w) << (8 * UInt32(ch)) }
                palette[i] = c
            }
        }
        // Translucent entries first, then by first appearance in the cut.
        let order = palette.indices.sorted { (palette[$0] >> 24 == 255 ? 1 : 0, $0) < (palette[$1] >> 24 == 255 ? 1 : 0, $1) }
        palette = order.map { palette[$0] }
        let indices = remap(pixels, width: image.width, height: image.height, palette: palette, dither: dither)
        var entries: [UInt8] = []
        entries.reserveCapacity(palette.count * 4)
        for c in palette {
            let a = c >> 24
            // Straight colour: the premultiplied mean divided by its alpha, rounded.
            func straight(_ v: UInt32) -> UInt8 { a == 0 ? 0 : UInt8(min(255, (v * 255 + a / 2) / a)) }
            entries += [straight(c & 255), straight(c >> 8 & 255), straight(c >> 16 & 255), UInt8(a)]
        }
        return (entries, indices)
    }

    /// How much of its error each pixel passes on, 0-256: all of it where the pixel and
    /// its four neighbours hardly differ (a gradient, whose bands dithering hides), none
    /// where they differ a lot (edges and texture, which hide the bands themselves and
    /// which diffused error would only roughen): the summed absolute differences over
    /// the channels, from `flat` down to 0 at `busy`.
    private static func ditherWeights(_ pixels: [UInt32], width: Int, height: Int, flat: Int32, busy: Int32) -> [UInt16] {
        var out = [UInt16](repeating: 256, count: pixels.count)
        func diff(_ p: UInt32, _ q: UInt32) -> Int32 {
            var t: Int32 = 0
            for ch in 0..<4 { t += abs(Int32(p >> (8 * UInt32(ch)) & 255) - Int32(q >> (8 * UInt32(ch)) & 255)) }
            return t
        }
        for y in 0..<height {
            for x in 0..<width {
                let i = y * width + x, p = pixels[i]
                var act: Int32 = 0
                if x > 0 { act += diff(p, pixels[i - 1]) }
                if x + 1 < width { act += diff(p, pixels[i + 1]) }
                if y > 0 { act += diff(p, pixels[i - width]) }
                if y + 1 < height { act += diff(p, pixels[i + width]) }
                out[i] = act <= flat ? 256 : act >= busy ? 0 : UInt16((busy - act) * 256 / (busy - flat))
            }
        }
        return out
    }

    /// Each pixel's entry, with error diffusion: 7/16 ahead, 3/16 behind below, 5/16
    /// below, 1/16 ahead below, scaled by `dither`, the pixel's weight and
    /// `fullStrength` (each in 1/256ths) and carried in 1/4096ths of a level.
    private static func remap(_ pixels: [UInt32], width: Int, height: Int, palette: [UInt32], dither: Double) -> [UInt8] {
        let nearest = NearestPaletteColor(palette)
        let strength = Int32((min(max(dither, 0), 1) * 256).rounded())
        var indices = [UInt8](repeating: 0, count: width * height)
        let pal = palette.flatMap { c in [Int32(c & 255), Int32(c >> 8 & 255), Int32(c >> 16 & 255), Int32(c >> 24)] }
        // Without diffusion no error moves: each pixel maps alone, through the memo.
        let weights = strength == 0 ? [] : ditherWeights(pixels, width: width, height: height, flat: flatActivity, busy: busyActivity)
        var memoKeys = [UInt32](repeating: UInt32.max, count: 1 << 14)
        var memoIndex = [UInt8](repeating: 0, count: 1 << 14), memoDistance = [Int32](repeating: 0, count: 1 << 14)
        // Errors of this row and the next, in 1/4096ths, with a pixel of margin each side.
        var current = [Int32](repeating: 0, count: (width + 2) * 4)
        var next = current
        for y in 0..<height {
            let forward = y % 2 == 0
            for i in next.indices { next[i] = 0 }
            for step in 0..<width {
                let x = forward ? step : width - 1 - step
                let c = pixels[y * width + x]
                let e = (x + 1) * 4
                // The colour plus the error carried to it, rounded from 1/4096ths, and kept
                // within a channel's range so a run of errors cannot swing wide.
                let r = min(max(Int32(c & 255) + (current[e] + 2048) >> 12, 0), 255)
                let g = min(max(Int32(c >> 8 & 255) + (current[e + 1] + 2048) >> 12, 0), 255)
                let b = min(max(Int32(c >> 16 & 255) + (current[e + 2] + 2048) >> 12, 0), 255)
                let a = min(max(Int32(c >> 24) + (current[e + 3] + 2048) >> 12, 0), 255)
                // Flat areas meet the same colours again and again: a direct-mapped memo
                // of the (pure) search, keyed by the colour itself.
                let key = UInt32(r) | UInt32(g) << 8 | UInt32(b) << 16 | UInt32(a) << 24
                let slot = Int((key &* 0x9E37_79B1) >> 18)
                let k8: UInt8, d: Int32
                if memoKeys[slot] == key && key != UInt32.max {
                    (k8, d) = (memoIndex[slot], memoDistance[slot])
                } else {
                    (k8, d) = nearest.nearest(r, g, b, a)
                    (memoKeys[slot], memoIndex[slot], memoDistance[slot]) = (key, k8, d)
                }
                let k = Int(k8)
                indices[y * width + x] = k8
                // An error of about a level shows no band to hide: kept, not spread.
                let w = strength == 0 || d <= quietError ? 0 : (((strength * Int32(weights[y * width + x])) >> 8) * fullStrength) >> 8
                let ahead = forward ? 4 : -4
                func spread(_ ch: Int, _ v: Int32) {
                    let err = (v - pal[k * 4 + ch]) * w
                    current[e + ahead + ch] += err * 7
                    next[e - ahead + ch] += err * 3
                    next[e + ch] += err * 5
                    next[e + ahead + ch] += err
                }
                spread(0, r); spread(1, g); spread(2, b); spread(3, a)
            }
            swap(&current, &next)
        }
        return indices
    }
}
