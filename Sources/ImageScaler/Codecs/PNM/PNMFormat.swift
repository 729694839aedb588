extension ImageFormat {
    public static let pnm = ImageFormat(registering: "pnm")
}

/// netpbm's formats, which djpeg, ImageMagick and netpbm pipe to each other: PBM, PGM
/// and PPM (plain and raw) and PAM in, 1-16 bits, gray, RGB, with or without alpha;
/// 8-bit PGM, PPM or PAM (for alpha) out; a `.pam` output is PAM's own (`PAMFormat`).
/// Read and written in Swift, with no library.
extension CodecDescriptor {
    static let pnm = CodecDescriptor(
        format: .pnm, displayName: "PNM", extensions: ["pnm", "ppm", "pgm", "pbm"],
        matches: { PNMHeader.matches($0) },
        decoder: { data, _ in try PNMDecoder(data) },
        maxSide: 0x7fff_ffff, incrementalName: "interlaced", appliesExifOrientation: false,
        libraries: { [] },
        writer: Writer(options: [],
                       rows: { width, height, channels, _ in PNMEncoder(width: width, height: height, channels: channels) },
                       carriable: { options, _ in options.withoutMetadata(in: "PNM") },
                       settings: { _ in ["8-bit"] },
                       // The file is gathered whole, a byte a sample (4 bound the channels).
                       heldBytes: { _, s in 4 * s.width * s.height }))
}
