/// Why an input could not become a `PixelBuffer`. Each message reads well after
/// "imgscale: <path>: " and quotes libpng's or libjpeg's own words where there are some.
public enum DecodeError: Error, Equatable, CustomStringConvertible {
    case empty
    case unknownFormat
    case png(String)
    case jpeg(String)
    case tooManyPixels(Size, limit: Int)
    case badDimensions(Size)

    public var description: String {
        switch self {
        case .empty: return "empty file"
        case .unknownFormat: return "not a PNG or JPEG file (unrecognised signature)"
        case .png(let message): return "invalid PNG: \(message)"
        case .jpeg(let message): return "invalid JPEG: \(message)"
        case .tooManyPixels(let size, let limit):
            return "image is \(size) = \(size.pixelCount) pixels, over the limit of \(limit) (raise it with --max-pixels)"
        case .badDimensions(let size): return "unsupported image dimensions \(size)"
        }
    }
}
