extension ImageFormat {
    public static let pam = ImageFormat(registering: "pam")
}

/// netpbm's PAM as an output: a `.pam` is P7 whatever its channels (PNM writes gray as
/// PGM and RGB as PPM), with the TUPLTYPE netpbm's tools name. Every netpbm file, P7
/// included, is read by PNM, whose signature comes first: this one claims none.
extension CodecDescriptor {
    static let pam = CodecDescriptor(
        format: .pam, displayName: "PAM", extensions: ["pam"],
        matches: { _ in false },
        decoder: { data, _ in try PNMDecoder(data) },
        maxSide: 0x7fff_ffff, incrementalName: "interlaced", appliesExifOrientation: false,
        libraries: { [] },
        writer: Writer(options: [],
                       rows: { width, height, channels, _ in PNMEncoder(width: width, height: height, channels: channels, pam: true) },
                       carriable: { options, _ in options.withoutMetadata(in: "PNM") },
                       settings: { _ in ["8-bit, P7"] },
                       // The file is gathered whole, a byte a sample (4 bound the channels).
                       heldBytes: { _, s in 4 * s.width * s.height }))
}
