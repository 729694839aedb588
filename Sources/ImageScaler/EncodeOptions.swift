/// How to encode an output. The defaults are those of the README: JPEG quality 85 with
/// 4:2:0 chroma and optimised Huffman tables, PNG zlib level 6, white behind alpha.
public struct EncodeOptions: Sendable {
    public var quality: Int = 85
    public var compression: Int = 6
    public var background: RGBColor = .white
    public var progressive: Bool = false
    public var subsampling: ChromaSubsampling = .s420
    /// Composite alpha onto `background` and write an opaque image, in any format.
    public var flatten: Bool = false
    /// Write PNGs of at most 256 colours as palette images.
    public var palette: Bool = false
    /// An ICC profile to embed unchanged, or nil for none.
    public var iccProfile: [UInt8]? = nil
    /// An EXIF block (TIFF structure) to embed unchanged, or nil for none.
    public var exif: [UInt8]? = nil
    /// An XMP packet to embed unchanged, or nil for none.
    public var xmp: [UInt8]? = nil

    public init() {}
}
