import CJPEGShim

extension ImageFormat {
    public static let jpeg = ImageFormat(registering: "jpeg")
}

/// JPEG through libjpeg-turbo (with imgscale's own entropy decoders): gray, YCbCr and
/// CMYK in, scaled by 1/2, 1/4 or 1/8 in the DCT where that helps; gray or YCbCr out.
extension CodecDescriptor {
    static let jpeg = CodecDescriptor(
        format: .jpeg, displayName: "JPEG", extensions: ["jpg", "jpeg"],
        // SOI followed by the first marker's 0xFF: every JPEG starts this way.
        matches: { $0.starts(with: [0xFF, 0xD8, 0xFF]) },
        decoder: { data, _ in try JPEGDecoder(data) },
        // The frame header's 16-bit dimensions.
        maxSide: 65535, incrementalName: "progressive", appliesExifOrientation: true,
        libraries: {
            let v = Int(cjpeg_version())
            return [("libjpeg-turbo", "\(v / 1_000_000).\(v / 1000 % 1000).\(v % 1000)" + JPEGOwnDecoders.note)]
        },
        writer: Writer(options: [.quality, .progressive, .optimize, .subsampling], numbers: [.quality: Number(values: 1...100, defaultValue: JPEGEncoder.defaultQuality)], holdsAlpha: false,
                       rows: {
                           $3.optimize ? try OptimizingJPEGEncoder(width: $0, height: $1, channels: $2, options: $3) as any RowEncoder
                               : try JPEGEncoder(width: $0, height: $1, channels: $2, options: $3)
                       },
                       carriable: { options, _ in JPEGEncoder.carriable(options) },
                       settings: { o in
                           ["quality \(o.quality ?? JPEGEncoder.defaultQuality)", o.subsampling.rawValue.map(String.init).joined(separator: ":"),
                            o.optimize ? "trellis-quantised, scans chosen by size" : o.progressive ? "progressive" : "baseline"]
                       },
                       gainMap: { try UltraHDRWriter.attach(base: $0, map: $1, source: $2) },
                       // Two bytes a coefficient, in imgscale's planes and in libjpeg's
                       // arrays: 3 coefficients a pixel at 4:4:4.
                       // Every coefficient (4:2:0, 2 bytes each) where the Huffman tables are
                       // fitted to the image: --optimize's 62 MB over the default's peak at
                       // 3840x2880; the default fits them up to 2048x2048 (`JPEGEncoder`).
                       heldBytes: { o, s in
                           let pixels = s.width * s.height
                           return o.optimize ? 6 * pixels : pixels <= JPEGEncoder.fittedTablesUpTo ? 3 * pixels : 0
                       },
                       qualityShape: [0.95, 1.4, 1.85, 2.16, 2.38, 2.55, 2.68, 2.8, 2.89, 2.98, 3.06,
                                      3.14, 3.22, 3.32, 3.44, 3.56, 3.74, 3.97, 4.31, 4.89, 6.17]),
        aliases: ["jpg"],
        notes: { JPEGOwnDecoders.disagreement.map { [$0] } ?? [] },
        // Huffman decoding reads every byte at any shrink: a 100 MP photo at 1/8 takes
        // 0.1 s for its 7.4 MB and 1.6 MP.
        decodeWork: DecodeWork(perByte: 13, perPixel: 3))
}
