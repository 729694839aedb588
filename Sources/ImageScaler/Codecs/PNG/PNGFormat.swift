import CPNGShim

extension ImageFormat {
    public static let png = ImageFormat(registering: "png")
}

/// PNG through libpng: 1-16 bits, gray, RGB, palette and alpha in; 8 or 16 bits, and
/// palette images on request, out. Orientation from eXIf, a raw EXIF text chunk or XMP.
extension CodecDescriptor {
    static let png = CodecDescriptor(
        format: .png, displayName: "PNG", extensions: ["png"],
        matches: { $0.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) },
        decoder: { data, _ in try PNGDecoder(data) },
        // PNG's 31-bit dimensions.
        maxSide: 0x7fff_ffff, incrementalName: "interlaced", appliesExifOrientation: true,
        libraries: { [("libpng", String(cString: cpng_version()))] },
        writer: Writer(options: [.compression, .palette, .colors, .dither], numbers: [.compression: Number(values: 0...9, defaultValue: 6)], encodeWork: 4,
                       rows: { try PNGEncoder(width: $0, height: $1, channels: $2, options: $3) },
                       carriable: { PNGEncoder.carriable($0, channels: $1) },
                       settings: { ["zlib level \($0.compression)"] },
                       // APNG, which every browser and Pillow read (others show the first frame).
                       animation: { try APNGEncoder(size: $0, options: $1, loopCount: $2) },
                       wide: { try PNGEncoder.encode($0, options: $1) },
                       palette: { try PNGEncoder.encode($0, palette: $1, indices: $2, options: $3) },
                       // The file, held until written: a photo's deflates to 21 MB over JPEG's
                       // peak at 3840x2880, and no file much past its raw samples.
                       workingBytes: { _, s, c in 5 * s.width * s.height * c / 6 }),
        // Unfiltering and converting rows costs more than inflating: 12 MP, 14.7 MB in 0.18 s.
        decodeWork: DecodeWork(perByte: 3, perPixel: 11))
}
