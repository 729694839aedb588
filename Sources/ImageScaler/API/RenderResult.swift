/// What `ImageOperation.render` made: the encoded output, its size in pixels (upright,
/// as written), the input's header as the decoder saw it (warnings included), and the
/// scale it was decoded at (1, or 2, 4, 8 for a decoder that shrinks on load); outputs
/// of one render with the same `decodeScale` shared one decode.
public struct RenderResult: Sendable {
    public let bytes: [UInt8]
    public let size: Size
    public let info: ImageInfo
    public var decodeScale: Int = 1
    /// The quality a `--target-ssim` or `--max-bytes` search chose, and its SSIM.
    public var quality: Int? = nil
    public var ssim: Double? = nil
    /// The files the search encoded to choose.
    public var encodes: Int? = nil
}
