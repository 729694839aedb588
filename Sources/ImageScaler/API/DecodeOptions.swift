/// How to decode (`RenderOptions`'s decoder share). The defaults suit untrusted input.
package struct DecodeOptions: Sendable {
    /// sharp's default limit, 0x3FFF squared; 0 means no limit.
    package static let defaultMaxPixels = 268_402_689

    /// Refuse images with more pixels than this, checked from the header before any
    /// pixel memory is allocated. 0 removes the limit.
    package var maxPixels: Int = DecodeOptions.defaultMaxPixels
    /// The bytes one decode may hold at its peak (`MemoryBudget`): the file, the
    /// decoder's working memory and the pipeline's buffers. `Int.max` removes the budget.
    package var maxMemory: Int = MemoryBudget.defaultBytes
    /// The most frames an animation read whole (`RenderSettings.animated`) may have.
    package var maxFrames: Int = 1000
    /// How much damage an input may have and still give an output (`FailOn`).
    package var failOn: FailOn = .warning
    /// JPEG shrink-on-load: decode at 1/`shrink` size (1, 2, 4 or 8). Ignored for PNG.
    package var shrink: Int = 1
    /// Convert pixels from an embedded ICC profile to sRGB (Little CMS, perceptual).
    package var toSRGB: Bool = false
    /// Convert pixels from the embedded profile (or sRGB) to this one (`--export-profile`).
    package var export: ColorTarget? = nil
    /// Dots per inch for a drawn picture (SVG) sized in physical units (mm, in, pt) or
    /// by its viewBox alone (user units at 72 dpi): 72, as libvips and sharp. A size in
    /// px is the same at any density.
    package var density: Double = 72
    /// Which of a file's pages is read, from 0: for formats whose descriptor names
    /// pages (`CodecDescriptor.pageName`); any other asked for a page above 0 refuses.
    package var page: Int = 0
    /// The input's file name, without its directory (nil for bytes from a pipe): an SVG
    /// `<image>` naming it refers to the document itself (`SVGSelfReference`).
    package var fileName: String? = nil
    /// JPEG entropy data decoded by libjpeg alone, not by imgscale's own decoders: the
    /// reference that tests and the fuzzer hold those to.
    package var libjpegOnly = false
    /// imgscale's own JPEG entropy decoders whatever the process decided: only for
    /// `JPEGOwnDecoders`' own known-answer check, which decides it.
    var forcingOwnJPEGDecoders = false
    /// Set by the async render: decoding stops between row chunks once it is set.
    package var cancellation: CancellationFlag? = nil
    /// The fewest MCUs a JPEG scan needs for its Huffman decoding to run ahead on a lent
    /// thread (below, the thread costs more than it saves); tests lower it.
    package var pipelineMCUs = 1 << 14

    package init(maxPixels: Int = DecodeOptions.defaultMaxPixels, shrink: Int = 1) {
        self.maxPixels = maxPixels
        self.shrink = shrink
    }

    package func check(_ size: Size) throws {
        // PNG allows 2^31-1 per side; the product must still fit the buffer arithmetic.
        guard size.width > 0, size.height > 0, size.width <= 0x7fff_ffff, size.height <= 0x7fff_ffff else {
            throw DecodeError.badDimensions(size)
        }
        let (pixels, overflow) = size.width.multipliedReportingOverflow(by: size.height)
        if overflow { throw DecodeError.badDimensions(size) }
        if maxPixels > 0 && pixels > maxPixels {
            throw DecodeError.tooManyPixels(size, limit: maxPixels)
        }
        // width * height * 4 channels must be addressable.
        if pixels.multipliedReportingOverflow(by: 4).overflow { throw DecodeError.badDimensions(size) }
    }
}
