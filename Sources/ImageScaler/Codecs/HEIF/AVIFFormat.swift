import CAVIFShim
import CHEIFShim

extension ImageFormat {
    public static let avif = ImageFormat(registering: "avif")
}

/// AVIF (AV1 in HEIF) through libheif and its AV1 plugins, opened on first use; an image
/// sequence through libavif (`AVIFSequenceDecoder`).
extension CodecDescriptor {
    static let avif = CodecDescriptor(
        format: .avif, displayName: "AVIF", extensions: ["avif"],
        matches: { HEIFBrand.of($0) == .avif },
        // A sequence is read as avifdec reads it, through libavif; a still through libheif.
        decoder: { data, options in
            AVIFSequenceDecoder.reads(data) ? try AVIFSequenceDecoder(data, options: options) as any RowDecoder : try HEIFDecoder(data, format: .avif)
        },
        maxSide: 65535, incrementalName: "progressive", appliesExifOrientation: false,
        libraries: { [("libheif", String(cString: cheif_version()))] + (cavif_version().pointee == 0 ? [] : [("libavif", String(cString: cavif_version()))]) },
        writer: Writer(options: [.quality, .effort, .subsampling, .lossless], numbers: [.quality: Number(values: 1...100, defaultValue: HEIFEncoder.defaultQuality), .effort: Number(values: 0...9, defaultValue: HEIFEncoder.defaultEffort)], encodeWork: 100,
                       rows: { HEIFEncoder(format: .avif, width: $0, height: $1, channels: $2, options: $3) },
                       carriable: { options, _ in (options, []) },
                       settings: HEIFEncoder.avifSettings,
                       // Rows gathered for the whole picture, then libaom's own: 271 MB over
                       // JPEG's peak at 3840x2880, 98 MB at 1920x1440, 50 MB at 1280x960, less
                       // a pixel the larger the picture: the lower of two lines through them.
                       heldBytes: { _, s in 4 * s.width * s.height },
                       workingBytes: { _, s, _ in min((13 << 20) + 31 * s.width * s.height, (40 << 20) + 22 * s.width * s.height) },
                       qualityShape: [1.38, 1.54, 1.7, 1.85, 2.07, 2.23, 2.4, 2.6, 2.81, 3.02, 3.22,
                                      3.51, 3.73, 3.91, 4.07, 4.24, 4.45, 4.79, 5.17, 5.68, 6.82],
                       // Checked on Debian 12: heif-enc -b 10 aborts in libaom's write_color_config
                       // assertion at 4:2:0, 4:2:2 and 4:4:4 alike; a crash would lose the batch's
                       // worker, so it is refused before any work.
                       refusedDepths: [10: "this system's libaom (Debian 12's 3.6) aborts on 10-bit AVIF, so imgscale writes AVIF at 8 bits"],
                       threaded: true),
        // Counted in the executor's budget: the decode's thread and, when lent, one more.
        libraryThreads: "libheif decodes grid tiles on the decode's threads",
        // An image sequence, through libavif.
        readsAnimations: true,
        decodeWork: DecodeWork(perByte: 4, perPixel: 25))
}
