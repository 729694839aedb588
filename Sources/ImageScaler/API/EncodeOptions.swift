/// How to encode an output (`RenderOptions`'s encoders' share). The defaults are those of the README: JPEG quality 85 with
/// 4:2:0 chroma and optimised Huffman tables, WebP quality 80 at effort 4 (sharp's and
/// libvips's), PNG zlib level 6, white behind alpha.
package struct EncodeOptions: Sendable {
    /// 1-100; nil is the format's default (JPEG 85, WebP 80).
    package var quality: Int? = nil
    /// WebP: lossless instead of lossy.
    package var lossless: Bool = false
    /// CPU spent on a smaller file, 0-6 (WebP's method); nil is the format's default (4).
    package var effort: Int? = nil
    package var compression: Int = 6
    package var background: RGBColor = .white
    package var progressive: Bool = false
    /// JPEG: quantise by rate and distortion and pick the smallest scans (`OptimizingJPEGEncoder`).
    package var optimize: Bool = false
    package var subsampling: ChromaSubsampling = .s420
    /// Composite alpha onto `background` and write an opaque image, in any format.
    package var flatten: Bool = false
    /// Write PNGs of at most 256 colours as palette images.
    package var palette: Bool = false
    /// Quantise a palette image to at most this many colours (2-256) when it has more
    /// (`PaletteQuantizer`); nil: only exact palettes.
    package var colors: Int? = nil
    /// Floyd-Steinberg strength of that quantisation, 0-1.
    package var dither: Double = 1
    /// The bits per sample written.
    package var depth: OutputDepth = .eight
    /// An ICC profile to embed unchanged, or nil for none.
    package var iccProfile: [UInt8]? = nil
    /// An EXIF block (TIFF structure) to embed unchanged, or nil for none.
    package var exif: [UInt8]? = nil
    /// An XMP packet to embed unchanged, or nil for none.
    package var xmp: [UInt8]? = nil
    /// Threads the encoder may start of its own (the image's budget, `RenderSettings.threads`).
    /// Never changes the bytes, so it is no part of any key of what an output is.
    package var threads = 1
    /// The lowest quality whose decoded file scores at least this SSIM against the
    /// image (`QualitySearch`), for a format with a quality.
    package var targetSSIM: Double? = nil
    /// The highest quality whose file is at most this many bytes.
    package var maxBytes: Int? = nil
    /// Shown the pixels this output's encoder is given, for its placeholders; never
    /// changes the bytes, and never passed on to an encoder a writer runs inside its own.
    package var previewTap: PreviewTap? = nil

    package init() {}

    /// The ICC, EXIF and XMP blocks as buffers (empty when absent), for a C encoder.
    package func withMetadata<T>(_ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T {
        let icc = iccProfile ?? [], exif = exif ?? [], xmp = xmp ?? []
        return try icc.withUnsafeBufferPointer { i in
            try exif.withUnsafeBufferPointer { e in try xmp.withUnsafeBufferPointer { x in try body(i, e, x) } }
        }
    }
}
