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
        // A band is over where it exceeds the background by more than the threshold:
        // v > bg + t, and under where v < bg - t (levels are whole, t need not be).
        var object = [Bool](repeating: false, count: w * h)
        var over = [UInt8](repeating: 0, count: w * h), under = [UInt8](repeating: 0, count: w * h)
        for b in 0..<bands {
            let bg = Double(background[b])
            for i in 0..<(w * h) {
                let v = Double(flattened(i, b, onto: background[b]))
                over[i] = v - bg > options.threshold ? 1 : 0
                under[i] = bg - v > options.threshold ? 1 : 0
            }
            for flags in [over, under] {
                // Counts over each row's 3 neighbours, then down 3 rows, edges repeated.
                var across = [UInt8](repeating: 0, count: w * h)
                for y in 0..<h {
                    let row = y * w
                    for x in 0..<w {
                        across[row + x] = flags[row + max(0, x - 1)] + flags[row + x] + flags[row + min(w - 1, x + 1)]
                    }
                }
                for y in 0..<h {
                    let up = max(0, y - 1) * w, here = y * w, down = min(h - 1, y + 1) * w
                    for x in 0..<w where across[up + x] + across[here + x] + across[down + x] >= 5 {
                        object[here + x] = true
                    }
                }
            }
        }
        var (x0, y0, x1, y1) = (w, h, -1, -1)
        for y in 0..<h {
            for x in 0..<w where object[y * w + x] {
                x0 = min(x0, x); x1 = max(x1, x); y0 = min(y0, y); y1 = max(y1, y)
            }
        }
        return x1 < 0 ? nil : Rect(x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1)
    }
}
