/// Why a `PixelBuffer` could not be encoded, with the codec's own message.
public enum EncodeError: Error, Equatable, CustomStringConvertible {
    /// The format's encoder failed, in its own (or its library's) words.
    case failed(ImageFormat, String)
    /// imgscale reads this format but does not write it.
    case unsupported(ImageFormat)
    /// The format holds only 8-bit samples and 16 were asked for.
    case noSixteenBits(ImageFormat)
    /// 16 bits and the unsharp mask asked together; the mask, Pillow's, is 8-bit.
    case sharpenedSixteenBits
    /// An animation asked of a format that holds stills only.
    case noAnimation(ImageFormat)
    /// The rows ran out before the image was complete (the decoder stopped early).
    case incomplete(rows: Int, of: Int)
    /// `--max-bytes`: even the lowest quality's file is larger.
    case overBudget(bytes: Int, limit: Int)

    public var description: String {
        switch self {
        case .failed(let format, let message): return "\(format.displayName) encoding failed: \(message)"
        case .unsupported(let format): return "imgscale does not write \(format.displayName)"
        case .noSixteenBits(let format):
            return "\(format.displayName) holds 8-bit samples only; 16 bits can be written as \(ImageFormat.names(ImageFormat.sixteenBitFormats, or: true))"
        case .noAnimation(let format):
            let holding = ImageFormat.allCases.filter { $0.codec.writer?.animation != nil }.map(\.displayName)
            return "\(format.displayName) holds no animation; --animated writes \(holding.joined(separator: " or "))"
        case .sharpenedSixteenBits: return "the unsharp mask (--sharpen) works on 8-bit samples, as Pillow's does; drop --depth 16 or --sharpen"
        case .incomplete(let rows, let height): return "the decoder ended after \(rows) of \(height) rows"
        case .overBudget(let bytes, let limit): return "--max-bytes \(limit): even quality 1 takes \(bytes) bytes"
        }
    }
}
