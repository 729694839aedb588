import CTIFFShim

extension ImageFormat {
    public static let tiff = ImageFormat(registering: "tiff")
}

/// TIFF through libtiff, read only: the first page; strips and tiles; 1-16 bits; gray,
/// RGB, palette, CMYK, YCbCr and old-style JPEG; straight or premultiplied alpha; every
/// compression the linked libtiff has. Orientation from its own tag.
extension CodecDescriptor {
    static let tiff = CodecDescriptor(
        format: .tiff, displayName: "TIFF", extensions: ["tif", "tiff"],
        // Little-endian "II*\0" or big-endian "MM\0*"; BigTIFF has 43 where 42 is.
        matches: { h in
            let b = Array(h.prefix(4))
            return b == [0x49, 0x49, 0x2A, 0x00] || b == [0x4D, 0x4D, 0x00, 0x2A] || b == [0x49, 0x49, 0x2B, 0x00] || b == [0x4D, 0x4D, 0x00, 0x2B]
        },
        decoder: { data, options in try TIFFDecoder(data, options: options) },
        maxSide: Int(UInt32.max), incrementalName: "interlaced", appliesExifOrientation: true,
        libraries: {
            let full = String(cString: ctiff_version())
            let first = full.split(separator: "\n").first.map(String.init) ?? full
            // "LIBTIFF, Version 4.5.0": the last word.
            return [("libtiff", first.split(separator: " ").last.map(String.init) ?? first)]
        },
        writer: nil, pageName: "page",
        // Between deflate (8 MP, 9.2 MB in 68 ms) and LZW (9 MP, 8.9 MB in 133 ms).
        decodeWork: DecodeWork(perByte: 6, perPixel: 8))
}
