/// Removes alpha by compositing straight (non-premultiplied) colour over an opaque
/// background, for formats without alpha. Gray stays gray when the background is gray.
public enum Flattener {
    public static func flatten(_ image: PixelBuffer, onto background: RGBColor) -> PixelBuffer {
        guard image.hasAlpha else { return image }
        let grayOut = image.channels == 2 && background.isGray
        let outChannels = grayOut ? 1 : 3
        let bg = [Int(background.red), Int(background.green), Int(background.blue)]
        var out = [UInt8](repeating: 0, count: image.width * image.height * outChannels)
        let c = image.channels
        image.pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for i in 0..<(image.width * image.height) {
                    let a = Int(src[i * c + c - 1])
                    for k in 0..<outChannels {
                        let s = Int(src[i * c + (c == 2 ? 0 : k)])
                        // +127 rounds the /255 to nearest.
                        dst[i * outChannels + k] = UInt8((s * a + bg[k] * (255 - a) + 127) / 255)
                    }
                }
            }
        }
        return PixelBuffer(width: image.width, height: image.height, channels: outChannels, pixels: out)
    }
}
