/// Why a plan could not be made. Messages name the rect and the image size.
public enum GeometryError: Error, Equatable, CustomStringConvertible {
    case emptyIntersection(Rect, Rect.Origin, Size)
    case badTarget(Size)
    case outputTooLarge(Size, limit: Int)
    /// The output format cannot hold a side this long (JPEG: 65535).
    case outputTooLargeForFormat(Size, ImageFormat)
    /// Samples that do not make the image a caller described (`PixelBuffer.init`).
    case badBuffer(String)

    public var description: String {
        switch self {
        case .emptyIntersection(let rect, let origin, let size):
            return "rect \(rect) (\(origin.rawValue)) does not overlap the \(size) image"
        case .badTarget(let size):
            return "target size \(size) must be positive and at most \(AspectFill.maxSide) per side"
        case .outputTooLarge(let size, let limit):
            return "output would be \(size) = \(size.width * size.height) pixels, over the limit of \(limit)"
        case .outputTooLargeForFormat(let size, let format):
            return "output would be \(size), but \(format.displayName) allows at most \(format.maxSide) pixels per side"
        case .badBuffer(let why): return "not a pixel buffer: \(why)"
        }
    }
}
