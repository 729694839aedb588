import CWebPShim

extension ImageFormat {
    public static let webp = ImageFormat(registering: "webp")
}

/// WebP through libwebp: lossy, lossless, alpha and animations (the first frame) in;
/// lossy or lossless out.
extension CodecDescriptor {
    static let webp = CodecDescriptor(
        format: .webp, displayName: "WebP", extensions: ["webp"],
        matches: { h in
            h.count >= 12 && h.prefix(4).elementsEqual("RIFF".utf8) && h.dropFirst(8).prefix(4).elementsEqual("WEBP".utf8)
        },
        decoder: { data, _ in try WebPDecoder(data) },
        // VP8L's 14-bit dimensions.
        maxSide: 16383, incrementalName: "progressive", appliesExifOrientation: true,
        libraries: {
            let v = Int(cwebp_version())
            return [("libwebp", "\(v >> 16).\(v >> 8 & 0xFF).\(v & 0xFF)")]
        },
        writer: Writer(options: [.quality, .lossless, .effort], numbers: [.quality: Number(values: 1...100, defaultValue: WebPEncoder.defaultQuality), .effort: Number(values: 0...6, defaultValue: WebPEncoder.defaultEffort)], encodeWork: 5,
                       rows: { WebPEncoder(width: $0, height: $1, channels: $2, options: $3) },
                       carriable: { options, _ in (options, []) },
                       settings: { o in
                           [o.lossless ? "lossless" : "quality \(o.quality ?? WebPEncoder.defaultQuality)",
                            "effort \(min(o.effort ?? WebPEncoder.defaultEffort, 6))"]
                       },
                       animation: { try WebPAnimationEncoder(size: $0, options: $1, loopCount: $2) },
                       // Rows gathered, then libwebp's own: 56 MB over JPEG's peak at 3840x2880
                       // for a photo; noise with alpha takes 22 bytes a pixel (its tokens).
                       // Its fixed part is under 1 MiB: with 2 the estimate of a 320-wide
                       // output was 1.51x its peak, over the 1.5 the estimates keep to.
                       heldBytes: { _, s in 4 * s.width * s.height },
                       workingBytes: { _, s, _ in (1 << 20) + 3 * s.width * s.height },
                       // Measured: libwebp's curve bends between 75 and 80.
                       qualityShape: [1.8, 1.97, 2.13, 2.27, 2.39, 2.51, 2.6, 2.71, 2.8, 2.9, 2.95,
                                      3.02, 3.1, 3.18, 3.26, 3.34, 3.62, 3.91, 4.32, 4.9, 5.51]),
        readsAnimations: true)
}
