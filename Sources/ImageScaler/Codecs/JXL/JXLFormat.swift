import CJXLShim

extension ImageFormat {
    public static let jxl = ImageFormat(registering: "jxl")
}

/// JPEG XL through libjxl, opened on first use: stills and an animation's first frame
/// in (at 16 bits where the file has more than 8), orientation from the codestream; lossy (quality mapped to a
/// Butteraugli distance, `JXLEncoder.distance`) or lossless out at 8 or 16 bits, and a JPEG recompressed
/// with its own DCT data when converted losslessly.
extension CodecDescriptor {
    static let jxl = CodecDescriptor(
        format: .jxl, displayName: "JPEG XL", extensions: ["jxl"],
        // A bare codestream (FF 0A) or the container's signature box.
        matches: { h in
            h.starts(with: [0xFF, 0x0A]) || h.starts(with: [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A])
        },
        decoder: { data, options in try JXLDecoder(data, options: options) },
        // The codestream's sizes go to 2^30; the pixel limit stops far below.
        maxSide: 1 << 30, incrementalName: "progressive", appliesExifOrientation: false,
        libraries: { [("libjxl", String(cString: cjxl_version()))] },
        writer: Writer(options: [.quality, .effort, .lossless], numbers: [.quality: Number(values: 1...100, defaultValue: JXLEncoder.defaultQuality), .effort: Number(values: 1...9, defaultValue: JXLEncoder.defaultEffort)], encodeWork: 12,
                       rows: { JXLEncoder(width: $0, height: $1, channels: $2, options: $3) },
                       carriable: { options, _ in (options, []) },
                       settings: { o in
                           [o.lossless ? "lossless" : "quality \(o.quality ?? JXLEncoder.defaultQuality) (distance \(JXLEncoder.distance(quality: o.quality ?? JXLEncoder.defaultQuality)))",
                            "effort \(JXLEncoder.effort(o.effort))"]
                       },
                       wide: { try JXLEncoder.encode($0, options: $1) },
                       // A JPEG converted losslessly keeps its DCT coefficients and the data
                       // to rebuild its bytes (djxl gives the JPEG back).
                       recompression: { input, o in
                           guard input == .jpeg, o.lossless else { return nil }
                           let effort = JXLEncoder.effort(o.effort)
                           return { try JXLEncoder.recompress($0, effort: effort) }
                       },
                       // The coefficients and libjxl's search: 165-183 MB for an 8 MP
                       // JPEG at effort 7 and 279-311 MB for 12 MP, 350 MB at effort 9, in
                       // 0.7 and 0.11 alike.
                       recompressionBytes: { o, s in (6 << 20) + s.width * s.height * (JXLEncoder.effort(o.effort) >= 9 ? 30 : 26) },
                       // Rows gathered for the whole picture, then libjxl's own (`JXLEncoder.workingBytes`).
                       heldBytes: { _, s in 4 * s.width * s.height },
                       workingBytes: { o, s, _ in
                           JXLEncoder.workingBytes(pixels: s.width * s.height, effort: JXLEncoder.effort(o.effort), lossless: o.lossless)
                       }),
        // Counted in the executor's budget: the decode's thread and, when lent, one more.
        libraryThreads: "libjxl decodes on a pool of two when the decode is lent a core",
        readsAnimations: true,
        decodeWork: DecodeWork(perByte: 4, perPixel: 15))
}
