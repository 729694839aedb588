/// `--trim`: the bounding box of what is not border, found as libvips's `find_trim`
/// finds it: alpha flattened onto the background colour, each band smoothed by a 3x3
/// median (edges repeated), and a pixel kept where any band's median differs from the
/// background's by more than the threshold. The background is the given colour, else
/// the top-left pixel (flattened onto white). A median of 9 exceeds a level exactly when
/// 5 of the 9 do, so the median is never sorted: per band, counts of the pixels above
/// and below the background's band over 3x3 windows, in integers.
package enum TrimFinder {
    package struct Options: Equatable, Sendable {
        /// Levels (0-255) a band may differ from the background's and still be border.
        package var threshold: Double = 10
        package var color: RGBColor? = nil

        package init(threshold: Double = 10, color: RGBColor? = nil) {
            self.threshold = threshold
            self.color = color
        }
    }

    /// The box in `image`'s coordinates, or nil when every pixel is border.
    package static func bounds(_ image: PixelBuffer, options: Options) -> Rect? {
        let (w, h, c) = (image.width, image.height, image.channels)
        guard w > 0, h > 0 else { return nil }
        let bands = c >= 3 ? 3 : 1, alpha = c == 2 || c == 4
        let p = image.pixels
        func flattened(_ i: Int, _ band: Int, onto bg: Int) -> Int {
            let v = Int(p[i * c + band])
            guard alpha else { return v }
            let a = Int(p[i * c + c - 1])
            return (v * a + bg * (255 - a) + 127) / 255
        }
        var background = [Int](repeating: 255, count: bands)
        if let color = options.color {
            background = bands == 3 ? [Int(color.red), Int(color.green), Int(color.blue)]
                : [(Int(color.red) * 19595 + Int(color.green) * 38470 + Int(color.blue) * 7471 + 0x8000) >> 16]
        } else {
            for b in 0..<bands { background[b] = flattened(0, b, onto: 255) }
        }
        // A band is over where it exceeds the background by more than the threshold,
        // and levels are whole: v - bg > t exactly when v >= bg + floor(t) + 1.
        let step = options.threshold >= 255 ? 256 : Int(options.threshold.rounded(.down)) + 1
        var object = [Bool](repeating: false, count: w * h)
        var band = [UInt8](repeating: 0, count: w * h)
        var over = [UInt8](repeating: 0, count: w * h), under = [UInt8](repeating: 0, count: w * h)
        var across = [UInt8](repeating: 0, count: w * h)
        for b in 0..<bands {
            let bg = background[b], high = bg + step, low = bg - step
            p.withUnsafeBufferPointer { src in
                band.withUnsafeMutableBufferPointer { out in
                    for i in 0..<(w * h) {
                        let v = Int(src[i * c + b])
                        if alpha {
                            let a = Int(src[i * c + c - 1])
                            out[i] = UInt8((v * a + bg * (255 - a) + 127) / 255)
                        } else {
                            out[i] = UInt8(v)
                        }
                    }
                }
            }
            band.withUnsafeBufferPointer { v in
                over.withUnsafeMutableBufferPointer { o in
                    under.withUnsafeMutableBufferPointer { u in
                        for i in 0..<(w * h) {
                            o[i] = Int(v[i]) >= high ? 1 : 0
                            u[i] = Int(v[i]) <= low ? 1 : 0
                        }
                    }
                }
            }
            for flags in [over, under] {
                // Counts over each row's 3 neighbours, then down 3 rows, edges repeated.
                flags.withUnsafeBufferPointer { f in
                    across.withUnsafeMutableBufferPointer { a in
                        for y in 0..<h {
                            let row = y * w
                            // Wrapping sums: each is at most 3 (and 9 below), and the
                            // checks would keep the loop from vectorising.
                            a[row] = f[row] &+ f[row] &+ f[row + min(w - 1, 1)]
                            if w > 2 { for x in 1..<(w - 1) { a[row + x] = f[row + x - 1] &+ f[row + x] &+ f[row + x + 1] } }
                            if w > 1 { a[row + w - 1] = f[row + w - 2] &+ f[row + w - 1] &+ f[row + w - 1] }
                        }
                    }
                }
                across.withUnsafeBufferPointer { a in
                    object.withUnsafeMutableBufferPointer { o in
                        for y in 0..<h {
                            let up = max(0, y - 1) * w, here = y * w, down = min(h - 1, y + 1) * w
                            for x in 0..<w where a[up + x] &+ a[here + x] &+ a[down + x] >= 5 {
                                o[here + x] = true
                            }
                        }
                    }
                }
            }
        }
        var (x0, y0, x1, y1) = (w, h, -1, -1)
        for y in 0..<h {
            let row = object[(y * w)..<(y * w + w)]
            guard let first = row.firstIndex(of: true), let last = row.lastIndex(of: true) else { continue }
            x0 = min(x0, first - y * w); x1 = max(x1, last - y * w); y0 = min(y0, y); y1 = max(y1, y)
        }
        return x1 < 0 ? nil : Rect(x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1)
    }
}
