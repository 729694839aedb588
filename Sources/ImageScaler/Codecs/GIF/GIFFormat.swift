import CGIFShim

extension ImageFormat {
    public static let gif = ImageFormat(registering: "gif")
}

/// GIF through giflib, read (the first frame; every frame with --animated) and through
/// libcgif, written: stills and animations, a colour table a frame.
extension CodecDescriptor {
    static let gif = CodecDescriptor(
        format: .gif, displayName: "GIF", extensions: ["gif"],
        matches: { $0.starts(with: Array("GIF87a".utf8)) || $0.starts(with: Array("GIF89a".utf8)) },
        decoder: { data, _ in try GIFDecoder(data) },
        maxSide: 65535, incrementalName: "interlaced", appliesExifOrientation: false,
        libraries: {
            let v = Int(cgif_version())
            return [("giflib", "\(v / 10000).\(v / 100 % 100).\(v % 100)")]
        },
        writer: Writer(options: [],
                       rows: { w, h, c, _ in GIFEncoder(width: w, height: h, channels: c) },
                       carriable: { options, _ in options.withoutMetadata(in: "GIF") },
                       settings: { _ in ["a colour table a frame (median cut past 255 colours), alpha below 128 transparent"] },
                       animation: { size, _, loops in try GIFAnimationEncoder(size: size, loopCount: loops) },
                       // Rows gathered, then the median cut's indices and histogram: 80 MB
                       // over JPEG's peak at 3840x2880.
                       heldBytes: { _, s in 4 * s.width * s.height },
                       workingBytes: { _, s, _ in 4 * s.width * s.height }),
        readsAnimations: true)
}
