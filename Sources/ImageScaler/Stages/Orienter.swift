/// Turns stored pixels upright according to an EXIF orientation, so every later step
/// (from-rects, origins, plans) works in the upright image's coordinates. The same
/// moves serve 8-bit and 16-bit samples.
package enum Orienter {
    package static func upright(_ image: PixelBuffer, _ orientation: Orientation) -> PixelBuffer {
        if orientation == .up { return image }
        let (samples, size) = upright(image.pixels, size: image.size, channels: image.channels, orientation)
        return PixelBuffer(width: size.width, height: size.height, channels: image.channels, validPixels: samples)
    }

    /// Interleaved samples of an image of `size`, turned; with the turned size.
    static func upright<T>(_ samples: [T], size: Size, channels ch: Int, _ orientation: Orientation) -> ([T], Size) {
        if orientation == .up { return (samples, size) }
        let (w, h) = (size.width, size.height)
        let outW = orientation.swapsAxes ? h : w
        let outH = orientation.swapsAxes ? w : h
        // The stored pixel under upright (x, y) is affine in x and y, so each case is a
        // start pixel and a step (in stored pixels) per upright column and per row.
        let (start, dx, dy): (Int, Int, Int)
        switch orientation {
        case .up: (start, dx, dy) = (0, 1, w)
        case .upMirrored: (start, dx, dy) = (w - 1, -1, w)
        case .down: (start, dx, dy) = ((h - 1) * w + w - 1, -1, -w)
        case .downMirrored: (start, dx, dy) = ((h - 1) * w, 1, -w)
        case .leftMirrored: (start, dx, dy) = (0, w, 1)
        case .right: (start, dx, dy) = ((h - 1) * w, -w, 1)
        case .rightMirrored: (start, dx, dy) = ((h - 1) * w + w - 1, -w, -1)
        case .left: (start, dx, dy) = (w - 1, w, -1)
        }
        let out = [T](unsafeUninitializedCapacity: samples.count) { dst, initialized in
            samples.withUnsafeBufferPointer { src in
                let s = src.baseAddress!, d = dst.baseAddress!
                for y in 0..<outH {
                    var from = (start + y * dy) * ch
                    var to = y * outW * ch
                    for _ in 0..<outW {
                        for c in 0..<ch { (d + to + c).initialize(to: s[from + c]) }
                        from += dx * ch
                        to += ch
                    }
                }
            }
            initialized = samples.count
        }
        return (out, Size(width: outW, height: outH))
    }
}
