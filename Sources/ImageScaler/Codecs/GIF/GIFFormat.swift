import CGIFShim

extension ImageFormat {
    public static let gif = ImageFormat(registering: "gif")
}

/// GIF through giflib, read only: the first frame.
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
        writer: nil)
}
