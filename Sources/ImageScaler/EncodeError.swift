/// Why a `PixelBuffer` could not be encoded, with the codec's own message.
public enum EncodeError: Error, Equatable, CustomStringConvertible {
    case png(String)
    case jpeg(String)

    public var description: String {
        switch self {
        case .png(let message): return "PNG encoding failed: \(message)"
        case .jpeg(let message): return "JPEG encoding failed: \(message)"
        }
    }
}
