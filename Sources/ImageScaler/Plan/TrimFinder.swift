/// `--trim`: the bounding box of what is not border, found as libvips's `find_trim`
/// finds it: alpha flattened onto the background colour, each band smoothed by a 3x3
/// median (edges repeated), and a pixel kept where any band's median differs from the
/// background's by more than the threshold. The background is the given colour, else
/// the top-left pixel (flattened onto white). A median of 9 exceeds a level exactly when
/// 5 of the 9 do, so the median is never sorted: per band, counts of the pixels above
/// and below the background's band over 3x3 windows, in integers (`TrimRows`, a row at
/// a time; `TrimScan` feeds it a decoder's rows).
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

    /// The box in `image`'s coordinates, or nil when every pixel is border: its rows
    /// through `TrimRows`, the top-left pixel the background.
    package static func bounds(_ image: PixelBuffer, options: Options) -> Rect? {
        let (w, h, c) = (image.width, image.height, image.channels)
        guard w > 0, h > 0 else { return nil }
        return image.pixels.withUnsafeBufferPointer { p in
            var rows = TrimRows(width: w, height: h, channels: c, corner: (0..<c).map { Int(p[$0]) }, options: options)
            for y in 0..<h { rows.add(p.baseAddress! + y * w * c) }
            return rows.finish()
        }
    }
}
