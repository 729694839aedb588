import ImageScaler

/// What a job does to the upright decoded image between decode and encode.
enum Operation {
    case fill(Size, from: Rect?, origin: CoordinateOrigin, gravity: Gravity)
    case crop(Rect, origin: CoordinateOrigin)
    case fit(Size)
    case convert

    /// The size `{w}` and `{h}` stand for in output names, when the operation has one.
    var requestedSize: Size? {
        switch self {
        case .fill(let size, _, _, _), .fit(let size): return size
        case .crop(let rect, _): return rect.size
        case .convert: return nil
        }
    }

    func apply(_ image: PixelBuffer) throws -> PixelBuffer {
        switch self {
        case .fill(let size, let from, let origin, let gravity):
            return try ImageScaler.scaleToFill(image, in: size, from: from, origin: origin, gravity: gravity)
        case .crop(let rect, let origin):
            return try ImageScaler.crop(image, to: rect, origin: origin)
        case .fit(let size):
            return try ImageScaler.scaleToFit(image, in: size)
        case .convert:
            return image
        }
    }
}
