/// The formats imgscale reads and writes: one line each, in the order their signatures
/// are tried and their names are listed in messages.
enum Registry {
    static let codecs: [CodecDescriptor] = [
        .png,
        .jpeg,
        .webp,
        .heic,
        .avif,
        .gif,
        .pnm,
        .pam,
        .svg,
        .ico,
        .tiff,
        .jxl,
        .qoi,
    ]

    /// Extensions of image formats no codec here reads: an output named so is refused
    /// rather than written in another format under a misleading name.
    static let foreignExtensions: Set<String> = ["bmp", "jp2", "psd"]

    /// The descriptor of `format`. Every `ImageFormat` is made from a descriptor or by
    /// `init?(rawValue:)`, which checks the name here, so one is always found.
    static func codec(_ format: ImageFormat) -> CodecDescriptor {
        codecs.first { $0.format == format }!
    }
}

extension ImageFormat {
    /// The format imgscale writes its own pictures in (goldens, diff images, a report's
    /// copies) and names in its examples: lossless at 8 and 16 bits, with alpha, and
    /// shown by every browser.
    package static var lossless: ImageFormat { .png }
}
