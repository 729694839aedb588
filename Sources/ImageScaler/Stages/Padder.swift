/// Letterboxes an image: centres it on a `box`-sized canvas of the background colour
/// (straight alpha). When the image does not divide evenly, the extra pixel goes
/// right/bottom. Gray stays gray on a gray background; otherwise the result is RGB; it
/// has alpha when the image or the background has.
enum Padder {
    static func pad(_ image: PixelBuffer, to box: Size, background: RGBColor) -> PixelBuffer {
        if image.size == box { return image }
        let gray = image.isGray && background.isGray
        let alpha = image.hasAlpha || !background.isOpaque
        let outChannels = (gray ? 1 : 3) + (alpha ? 1 : 0)
        let colour = gray ? [background.red] : [background.red, background.green, background.blue]
        let fill = colour + (alpha ? [background.alpha] : [])
        var out = [UInt8](repeating: 0, count: box.width * box.height * outChannels)
        for i in 0..<(box.width * box.height) {
            for c in 0..<outChannels { out[i * outChannels + c] = fill[c] }
        }
        let x0 = (box.width - image.width) / 2, y0 = (box.height - image.height) / 2
        let converted = outChannels == image.channels ? image : widened(image, to: outChannels)
        for y in 0..<image.height {
            let src = y * image.width * outChannels
            let dst = ((y0 + y) * box.width + x0) * outChannels
            out[dst..<dst + image.width * outChannels] = converted.pixels[src..<src + image.width * outChannels]
        }
        return PixelBuffer(width: box.width, height: box.height, channels: outChannels, validPixels: out)
    }

    /// The image with `channels` channels: gray widened to RGB, an opaque alpha added
    /// (a gray result comes only from a gray image, whose red is its gray).
    private static func widened(_ image: PixelBuffer, to channels: Int) -> PixelBuffer {
        let rgba = image.rgba()
        if channels == 4 { return PixelBuffer(width: image.width, height: image.height, channels: 4, validPixels: rgba) }
        let pick: [Int] = channels == 3 ? [0, 1, 2] : channels == 2 ? [0, 3] : [0]
        var out = [UInt8](repeating: 0, count: image.width * image.height * channels)
        for i in 0..<(image.width * image.height) {
            for (c, from) in pick.enumerated() { out[i * channels + c] = rgba[i * 4 + from] }
        }
        return PixelBuffer(width: image.width, height: image.height, channels: channels, validPixels: out)
    }
}
