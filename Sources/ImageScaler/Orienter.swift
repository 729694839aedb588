/// Turns stored pixels upright according to an EXIF orientation, so every later step
/// (from-rects, origins, plans) works in the upright image's coordinates.
public enum Orienter {
    public static func upright(_ image: PixelBuffer, _ orientation: Orientation) -> PixelBuffer {
        if orientation == .up { return image }
        let (w, h, ch) = (image.width, image.height, image.channels)
        let outW = orientation.swapsAxes ? h : w
        let outH = orientation.swapsAxes ? w : h
        var out = [UInt8](repeating: 0, count: image.pixels.count)
        image.pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<outH {
                    for x in 0..<outW {
                        // The stored pixel that lands at upright (x, y).
                        let (sx, sy): (Int, Int)
                        switch orientation {
                        case .up: (sx, sy) = (x, y)
                        case .upMirrored: (sx, sy) = (w - 1 - x, y)
                        case .down: (sx, sy) = (w - 1 - x, h - 1 - y)
                        case .downMirrored: (sx, sy) = (x, h - 1 - y)
                        case .leftMirrored: (sx, sy) = (y, x)
                        case .right: (sx, sy) = (y, h - 1 - x)
                        case .rightMirrored: (sx, sy) = (w - 1 - y, h - 1 - x)
                        case .left: (sx, sy) = (w - 1 - y, x)
                        }
                        let s = (sy * w + sx) * ch, d = (y * outW + x) * ch
                        for c in 0..<ch { dst[d + c] = src[s + c] }
                    }
                }
            }
        }
        return PixelBuffer(width: outW, height: outH, channels: ch, pixels: out)
    }
}
