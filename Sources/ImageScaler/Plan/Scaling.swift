/// The recipe's entry points over `PixelBuffer`: aspect fill, fit and crop. Pure
/// functions of their inputs; nothing here prints, exits or touches files.
package enum Scaling {
    /// Scales the part of `image` (or of `fromRect`, clipped to it) that fills
    /// `targetSize` with the aspect ratio kept, to exactly `targetSize`.
    public static func scaleToFill(_ image: PixelBuffer, in targetSize: Size, from fromRect: Rect? = nil,
                                   origin: CoordinateOrigin = .topLeft, gravity: Gravity = .centre, focus: FocusPoint? = nil) throws -> PixelBuffer {
        let source = try plan(source: image.size, target: targetSize, from: fromRect, origin: origin, gravity: gravity, focus: focus)
        return Resampler.resample(image, from: SamplingRect(source), to: targetSize)
    }

    /// The source rect `scaleToFill` samples, in top-left coordinates; touches no pixels.
    public static func plan(source: Size, target: Size, from fromRect: Rect? = nil,
                            origin: CoordinateOrigin = .topLeft, gravity: Gravity = .centre, focus: FocusPoint? = nil) throws -> Rect {
        let region = try fromRect.map { try AspectFill.clip($0, origin: origin, to: source) } ?? Rect(size: source)
        if let focus { return try AspectFill.rect(in: region, filling: target, focus: focus, image: source) }
        return try AspectFill.rect(in: region, filling: target, gravity: gravity)
    }

    /// Scales the whole image to fit inside `box`, aspect kept, nothing cropped.
    public static func scaleToFit(_ image: PixelBuffer, in box: Size) throws -> PixelBuffer {
        let size = try AspectFill.fitSize(image.size, in: box)
        return Resampler.resample(image, from: SamplingRect(Rect(size: image.size)), to: size)
    }

    /// Cuts `rect` (clipped to the image) out unscaled.
    public static func crop(_ image: PixelBuffer, to rect: Rect, origin: Rect.Origin = .topLeft) throws -> PixelBuffer {
        let r = try AspectFill.clip(rect, origin: origin, to: image.size)
        var out = [UInt8](repeating: 0, count: r.width * r.height * image.channels)
        let rowBytes = r.width * image.channels
        image.pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<r.height {
                    let from = src.baseAddress! + ((r.y + y) * image.width + r.x) * image.channels
                    (dst.baseAddress! + y * rowBytes).update(from: from, count: rowBytes)
                }
            }
        }
        return PixelBuffer(width: r.width, height: r.height, channels: image.channels, validPixels: out)
    }
}
