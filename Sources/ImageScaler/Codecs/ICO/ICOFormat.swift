extension ImageFormat {
    public static let ico = ImageFormat(registering: "ico")
}

/// Windows icons (favicon.ico): one file holding several sizes, each entry a PNG, as
/// Pillow writes them and every browser and Windows since Vista reads them. PNG entries
/// rather than 32-bit BMPs, because each is then byte for byte the PNG the same size
/// alone makes (one encoder, one set of tests) and holds alpha exactly; the readers that
/// need BMP entries are Windows XP's and older. Read back: the largest PNG entry.
extension CodecDescriptor {
    static let ico = CodecDescriptor(
        format: .ico, displayName: "ICO", extensions: ["ico"],
        matches: { ICOContainer.matches($0) },
        decoder: { data, _ in try ICODecoder(data) },
        // A directory entry stores each side in one byte, 0 meaning 256.
        maxSide: 256, incrementalName: "interlaced", appliesExifOrientation: false,
        libraries: { [] },
        writer: Writer(options: png.writer!.options, numbers: png.writer!.numbers, encodeWork: 4,
                       rows: { width, height, channels, options in
                           ICOEncoder(entry: try ImageFormat.png.encoder(width: width, height: height, channels: channels, options: options),
                                      size: Size(width: width, height: height))
                       },
                       carriable: { png.writer!.carriable($0, $1) },
                       settings: { ["PNG entries"] + png.writer!.settings($0) },
                       container: Container(merge: { try ICOContainer.merge($0) }),
                       palette: { size, entries, indices, options in
                           try ICOContainer.file([(size, try png.writer!.palette!(size, entries, indices, options))])
                       }))
}
