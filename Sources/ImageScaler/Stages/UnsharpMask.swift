/// Pillow's `ImageFilter.UnsharpMask(radius, percent, threshold)`, byte for byte, on
/// 8-bit pixels of 1-4 channels (every channel alike, alpha too, as Pillow does to L,
/// LA, RGB and RGBA): a Gaussian blur made of three box blurs a direction (Pillow's
/// `BoxBlur.c`, after Gwosdek et al.: a box of integer radius plus a fractional weight
/// for its two far pixels, 24-bit fixed point, edges extended), then each sample moved
/// away from its blurred value by `percent` of the difference where that difference
/// exceeds `threshold`. The box's radius and weights come from `radius` in 32-bit
/// floats, as Pillow computes them (IEEE arithmetic, the same on every machine); all
/// the per-pixel work is integer.
package struct UnsharpMask: Equatable, Sendable {
    package let radius: Float
    package let percent: Int
    package let threshold: Int

    package init(radius: Float, percent: Int, threshold: Int) {
        self.radius = radius
        self.percent = percent
        self.threshold = threshold
    }

    /// `--sharpen` alone: a light touch for downscaled photos. A radius of 0.5 (a box of
    /// about one pixel) restores the edge contrast a Lanczos or bicubic shrink softens
    /// without the halos larger radii draw around thin lines; 60% is below where skies
    /// and skin turn gritty, and a threshold of 2 leaves flat areas and JPEG noise alone.
    package static let mild = UnsharpMask(radius: 0.5, percent: 60, threshold: 2)

    /// The box blur Pillow derives from a Gaussian radius for `passes` boxes.
    static func boxRadius(_ radius: Float, passes: Int) -> Float {
        let sigma2 = radius * radius / Float(passes)
        let l0 = Float((12.0 * Double(sigma2) + 1.0).squareRoot())
        // Floored in double, then narrowed, as C does it.
        let l = Float(((Double(l0) - 1.0) / 2.0).rounded(.down))
        var a = (2 * l + 1) * (l * (l + 1) - 3 * sigma2)
        a /= 6 * (sigma2 - (l + 1) * (l + 1))
        return l + a
    }

    /// The image sharpened: same size and channels. Row by row, as a streamed output is
    /// (`UnsharpRows`), so the two cannot differ.
    package func apply(to image: PixelBuffer) -> PixelBuffer {
        let (width, height, channels) = (image.width, image.height, image.channels)
        guard width > 0, height > 0 else { return image }
        let rowBytes = width * channels
        var out = [UInt8](repeating: 0, count: height * rowBytes)
        var made = 0
        let rows = UnsharpRows(self, width: width, height: height, channels: channels)
        image.pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<height {
                    rows.add(src.baseAddress! + y * rowBytes) { row in
                        (dst.baseAddress! + made * rowBytes).update(from: row, count: rowBytes)
                        made += 1
                    }
                }
            }
        }
        return PixelBuffer(width: width, height: height, channels: channels, validPixels: out)
    }
}
