/// What `ImageOperation.render` made: the encoded output, its size in pixels (upright,
/// as written), the input's header as the decoder saw it (warnings included), and the
/// scale it was decoded at (1, or 2, 4, 8 for a decoder that shrinks on load); outputs
/// of one render with the same `decodeScale` shared one decode.
public struct RenderResult: Sendable {
    public internal(set) var bytes: [UInt8]
    public let size: Size
    public internal(set) var info: ImageInfo
    public var decodeScale: Int = 1
    /// The quality a `--target-ssim` or `--max-bytes` search chose, and its SSIM.
    public var quality: Int? = nil
    public var ssim: Double? = nil
    /// The files the search encoded to choose.
    public var encodes: Int? = nil
    /// The pixels encoded (an animation's first frame), reduced to fit the output's
    /// `preview` box as Pillow's `thumbnail` sizes it, with Pillow's bicubic; nil when
    /// no box was asked for.
    public var preview: PixelBuffer? = nil
}

extension RenderResult {
    /// `encoded`'s file and any search's outcome, with the encoder's warnings added to
    /// the header's.
    init(_ encoded: ImageFormat.Encoded, size: Size, info: ImageInfo, decodeScale: Int = 1) {
        var reported = info
        reported.warnings += encoded.warnings.filter { !reported.warnings.contains($0) }
        self.init(bytes: encoded.bytes, size: size, info: reported, decodeScale: decodeScale,
                  quality: encoded.quality, ssim: encoded.ssim, encodes: encoded.encodes)
    }
}
