/// Converts between straight and premultiplied alpha in place, for the interleaved
/// layouts of `PixelBuffer` (alpha last, 2 or 4 channels). The arithmetic is Pillow's
/// (RGBA <-> RGBa), so a resample matches `Image.resize` on RGBA images exactly.
enum AlphaPremultiplier {
    /// colour = round(colour * alpha / 255), using the exact shift form of /255.
    static func premultiply(_ p: UnsafeMutablePointer<UInt8>, pixels: Int, channels: Int) {
        let colour = channels - 1
        for i in 0..<pixels {
            let px = p + i * channels
            let a = UInt32(px[colour])
            if a == 255 { continue }
            for c in 0..<colour {
                // (t + (t >> 8)) >> 8 with t = v*a + 128 equals round(v*a/255) for 8-bit v, a.
                let t = UInt32(px[c]) * a + 128
                px[c] = UInt8((t + (t >> 8)) >> 8)
            }
        }
    }

    /// colour = min(255, colour * 255 / alpha), truncating; alpha 0 and 255 untouched.
    static func unpremultiply(_ p: UnsafeMutablePointer<UInt8>, pixels: Int, channels: Int) {
        let colour = channels - 1
        for i in 0..<pixels {
            let px = p + i * channels
            let a = UInt32(px[colour])
            if a == 255 || a == 0 { continue }
            for c in 0..<colour {
                px[c] = UInt8(min(255, UInt32(px[c]) * 255 / a))
            }
        }
    }
}
