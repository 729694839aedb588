/// Letterboxes an image: centres it on a `box`-sized canvas of the background colour
/// (straight alpha). When the image does not divide evenly, the extra pixel goes
/// right/bottom. Gray stays gray on a gray background; otherwise the result is RGB; it
/// has alpha when the image or the background has. The same canvas serves 8-bit and
/// 16-bit samples, the background's 8-bit levels scaled exactly (x 257).
enum Padder {
    static func pad(_ image: PixelBuffer, to box: Size, background: RGBColor) -> PixelBuffer {
        if image.size == box { return image }
        let (samples, channels) = pad(image.pixels, size: image.size, channels: image.channels, to: box, background: background)
        return PixelBuffer(width: box.width, height: box.height, channels: channels, validPixels: samples)
    }

    /// Interleaved samples of an image of `size` on the canvas; with the canvas's channels.
    static func pad<T: FixedWidthInteger & UnsignedInteger>(_ samples: [T], size: Size, channels: Int, to box: Size,
                                                           background: RGBColor) -> ([T], Int) {
        let gray = channels <= 2 && background.isGray
        let alpha = channels == 2 || channels == 4 || !background.isOpaque
        let outChannels = (gray ? 1 : 3) + (alpha ? 1 : 0)
        // 255 maps to T.max: 255 * 1 for bytes, 255 * 257 for 16-bit samples.
        let unit = Int(T.max) / 255
        func level(_ v: UInt8) -> T { T(Int(v) * unit) }
        let colour = gray ? [level(background.red)] : [level(background.red), level(background.green), level(background.blue)]
        let fill = colour + (alpha ? [level(background.alpha)] : [])
        var out = [T](repeating: 0, count: box.width * box.height * outChannels)
        for i in 0..<(box.width * box.height) {
            for c in 0..<outChannels { out[i * outChannels + c] = fill[c] }
        }
        let x0 = (box.width - size.width) / 2, y0 = (box.height - size.height) / 2
        // Where each canvas channel comes from in a source pixel: gray widens to RGB (a
        // gray canvas comes only from a gray image), and a missing alpha is opaque (-1).
        let hasAlpha = channels == 2 || channels == 4
        let colourFrom: [Int] = channels <= 2 ? Array(repeating: 0, count: gray ? 1 : 3) : [0, 1, 2]
        let from = colourFrom + (alpha ? [hasAlpha ? channels - 1 : -1] : [])
        for y in 0..<size.height {
            for x in 0..<size.width {
                let s = (y * size.width + x) * channels
                let d = ((y0 + y) * box.width + x0 + x) * outChannels
                for (c, k) in from.enumerated() { out[d + c] = k < 0 ? T.max : samples[s + k] }
            }
        }
        return (out, outChannels)
    }
}
