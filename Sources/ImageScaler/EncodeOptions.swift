/// How to encode an output. The defaults are those of the README: JPEG quality 85 with
/// 4:2:0 chroma and optimised Huffman tables, PNG zlib level 6, white behind alpha.
public struct EncodeOptions: Sendable {
    public var quality: Int = 85
    public var compression: Int = 6
    public var background: RGBColor = .white
    public var progressive: Bool = false
    public var subsampling: Int = 420
    /// An ICC profile to embed unchanged, or nil for none.
    public var iccProfile: [UInt8]? = nil

    public init() {}
}
