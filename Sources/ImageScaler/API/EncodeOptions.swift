/// How to encode an output. The defaults are those of the README: JPEG quality 85 with
/// 4:2:0 chroma and optimised Huffman tables, WebP quality 80 at effort 4 (sharp's and
/// libvips's), PNG zlib level 6, white behind alpha.
public struct EncodeOptions: Sendable {
    /// 1-100; nil is the format's default (JPEG 85, WebP 80).
    public var quality: Int? = nil
    /// WebP: lossless instead of lossy.
    public var lossless: Bool = false
    /// CPU spent on a smaller file, 0-6 (WebP's method); nil is the format's default (4).
    public var effort: Int? = nil
    public var compression: Int = 6
    public var background: RGBColor = .white
    public var progressive: Bool = false
    public var subsampling: EncodeOptions.ChromaSubsampling = .s420
    /// Composite alpha onto `background` and write an opaque image, in any format.
    public var flatten: Bool = false
    /// Write PNGs of at most 256 colours as palette images.
    public var palette: Bool = false
    /// The bits per sample written.
    public var depth: EncodeOptions.Depth = .eight
    /// An ICC profile to embed unchanged, or nil for none.
    public var iccProfile: [UInt8]? = nil
    /// An EXIF block (TIFF structure) to embed unchanged, or nil for none.
    public var exif: [UInt8]? = nil
    /// An XMP packet to embed unchanged, or nil for none.
    public var xmp: [UInt8]? = nil

    public init() {}

    /// Bits per sample in the output.
    public enum Depth: String, Sendable, CaseIterable {
        /// 8 bits, whatever the input's depth (the default, as libvips and sharp).
        case eight = "8"
        /// 16 bits, kept from a 16-bit input through every stage (8-bit inputs widened
        /// exactly); only formats that hold 16 bits can be written so.
        case sixteen = "16"
        /// The input's depth where the output format holds it (and no palette is asked
        /// for), else 8.
        case auto
    }

    /// The ICC, EXIF and XMP blocks as buffers (empty when absent), for a C encoder.
    func withMetadata<T>(_ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T {
        let icc = iccProfile ?? [], exif = exif ?? [], xmp = xmp ?? []
        return try icc.withUnsafeBufferPointer { i in
            try exif.withUnsafeBufferPointer { e in try xmp.withUnsafeBufferPointer { x in try body(i, e, x) } }
        }
    }
}
