import CResample

/// Converts between straight and premultiplied alpha, for the interleaved
/// layouts of `PixelBuffer` (alpha last, 2 or 4 channels). The arithmetic is Pillow's
/// (RGBA <-> RGBa), so a resample matches `Image.resize` on RGBA images exactly.
enum AlphaPremultiplier {
    /// `src`'s pixels copied to `dst` with colour = round(colour * alpha / 255) (C, with
    /// SIMD where the CPU has it).
    static func premultiply(_ src: UnsafePointer<UInt8>, into dst: UnsafeMutablePointer<UInt8>, pixels: Int, channels: Int) {
        resample_premultiply(src, dst, pixels, Int32(channels))
    }

    /// Whether every pixel's alpha is 255: premultiplying would copy the row unchanged.
    static func isOpaque(_ src: UnsafePointer<UInt8>, pixels: Int, channels: Int) -> Bool {
        resample_opaque(src, pixels, Int32(channels)) != 0
    }

    /// colour = min(255, colour * 255 / alpha), truncating; alpha 0 and 255 untouched.
    static func unpremultiply(_ p: UnsafeMutablePointer<UInt8>, pixels: Int, channels: Int) {
        resample_unpremultiply(p, pixels, Int32(channels))
    }
}
