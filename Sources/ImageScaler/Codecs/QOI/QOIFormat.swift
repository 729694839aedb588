extension ImageFormat {
    public static let qoi = ImageFormat(registering: "qoi")
}

/// QOI, "the Quite OK Image format": lossless 8-bit RGB or RGBA in one pass of a few
/// byte-sized operations, read and written in Swift with no library. Gray is written as
/// RGB and gray with alpha as RGBA; the header's colour space byte says sRGB.
extension CodecDescriptor {
    static let qoi = CodecDescriptor(
        format: .qoi, displayName: "QOI", extensions: ["qoi"],
        matches: { $0.starts(with: QOIOps.magic) },
        decoder: { data, _ in try QOIDecoder(data) },
        // The header's sizes are 32-bit; the pixel limit stops far sooner.
        maxSide: 0x7fff_ffff, incrementalName: "interlaced", appliesExifOrientation: false,
        libraries: { [] },
        writer: Writer(options: [],
                       rows: { width, height, channels, _ in QOIEncoder(width: width, height: height, channels: channels) },
                       carriable: { options, _ in options.withoutMetadata(in: "QOI") },
                       settings: { _ in ["lossless, 8-bit"] },
                       // The file is gathered whole: at most 5 bytes a pixel (an RGBA op each).
                       heldBytes: { _, s in 5 * s.width * s.height }))
}
