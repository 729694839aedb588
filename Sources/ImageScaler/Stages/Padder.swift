/// Letterboxes an image: centres it on a `box`-sized canvas of an opaque background
/// colour. When the image does not divide evenly, the extra pixel goes right/bottom.
/// Gray stays gray on a gray background; otherwise the result is RGB (RGBA with alpha).
enum Padder {
    static func pad(_ image: PixelBuffer, to box: Size, background: RGBColor) -> PixelBuffer {
        if image.size == box { return image }
        let gray = image.isGray && background.isGray
        let outChannels = (gray ? 1 : 3) + (image.hasAlpha ? 1 : 0)
        let colour = gray ? [background.red] : [background.red, background.green, background.blue]
        let fill = colour + (image.hasAlpha ? [255] : [])
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

    /// Gray (+alpha) as RGB (+alpha).
    private static func widened(_ image: PixelBuffer, to channels: Int) -> PixelBuffer {
        let rgba = image.rgba()
        if channels == 4 { return PixelBuffer(width: image.width, height: image.height, channels: 4, validPixels: rgba) }
        var rgb = [UInt8](repeating: 0, count: image.width * image.height * 3)
        for i in 0..<(image.width * image.height) {
            rgb[i * 3] = rgba[i * 4]; rgb[i * 3 + 1] = rgba[i * 4 + 1]; rgb[i * 3 + 2] = rgba[i * 4 + 2]
        }
        return PixelBuffer(width: image.width, height: image.height, channels: 3, validPixels: rgb)
    }
}
