import CHEIFShim

extension ImageFormat {
    public static let heic = ImageFormat(registering: "heic")
}

/// HEIC (HEVC in HEIF) through libheif, opened on first use: 8-10 bits, alpha, grids
/// and `irot`/`imir` in; 8-bit out.
extension CodecDescriptor {
    static let heic = CodecDescriptor(
        format: .heic, displayName: "HEIC", extensions: ["heic", "heif"],
        matches: { HEIFBrand.of($0) == .heic },
        decoder: { data, _ in try HEIFDecoder(data, format: .heic) },
        maxSide: 65535, incrementalName: "progressive", appliesExifOrientation: false,
        // From the header: asking the library would load it.
        libraries: { [("libheif", String(cString: cheif_version()))] },
        writer: Writer(options: [.quality, .effort], numbers: [.quality: Number(values: 1...100, defaultValue: HEIFEncoder.defaultQuality), .effort: Number(values: 0...9, defaultValue: HEIFEncoder.defaultEffort)], encodeWork: 60,
                       rows: { HEIFEncoder(format: .heic, width: $0, height: $1, channels: $2, options: $3) },
                       carriable: { options, _ in (options, []) },
                       settings: HEIFEncoder.settings,
                       // Rows gathered, then x265's own: 219 MB over JPEG's peak at
                       // 3840x2880, 59 MB at 1920x1440, 35 MB at 1280x960.
                       heldBytes: { _, s in 4 * s.width * s.height },
                       workingBytes: { _, s, _ in (12 << 20) + 16 * s.width * s.height },
                       threaded: true),
        // Counted in the executor's budget: the decode's thread and, when lent, one more.
        libraryThreads: "libheif decodes grid tiles on the decode's threads",
        decodeWork: DecodeWork(perByte: 4, perPixel: 20))
}
