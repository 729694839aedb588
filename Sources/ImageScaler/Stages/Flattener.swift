/// Removes alpha by compositing straight (non-premultiplied) colour over an opaque
/// background, for formats without alpha. Gray stays gray when the background is gray.
package enum Flattener {
    package static func flatten(_ image: PixelBuffer, onto background: RGBColor) -> PixelBuffer {
        guard image.hasAlpha else { return image }
        let outChannels = channels(flattening: image.channels, onto: background)
        var out = PixelBuffer.samples(count: image.width * image.height * outChannels)
        image.pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                flatten(src.baseAddress!, channels: image.channels, into: dst.baseAddress!, channels: outChannels,
                        pixels: image.width * image.height, onto: background)
            }
        }
        return PixelBuffer(width: image.width, height: image.height, channels: outChannels, validPixels: out)
    }

    /// Channels after flattening: 1 for gray+alpha on a gray background, else 3.
    static func channels(flattening channels: Int, onto background: RGBColor) -> Int {
        channels == 2 && background.isGray ? 1 : 3
    }

    static func flatten(_ src: UnsafePointer<UInt8>, channels c: Int, into dst: UnsafeMutablePointer<UInt8>,
                        channels outChannels: Int, pixels: Int, onto background: RGBColor) {
        let bg = (Int(background.red), Int(background.green), Int(background.blue))
        for i in 0..<pixels {
            let a = Int(src[i * c + c - 1])
            for k in 0..<outChannels {
                let s = Int(src[i * c + (c == 2 ? 0 : k)])
                let b = k == 0 ? bg.0 : k == 1 ? bg.1 : bg.2
                // +127 rounds the /255 to nearest.
                dst[i * outChannels + k] = UInt8((s * a + b * (255 - a) + 127) / 255)
            }
        }
    }
}
