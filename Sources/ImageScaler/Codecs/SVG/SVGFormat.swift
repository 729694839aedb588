import CSVGShim

extension ImageFormat {
    public static let svg = ImageFormat(registering: "svg")
}

/// SVG (and gzip-compressed SVGZ) through librsvg and cairo, read only: drawn at each output's own size, never
/// drawn large and shrunk.
extension CodecDescriptor {
    static let svg = CodecDescriptor(
        format: .svg, displayName: "SVG", extensions: ["svg", "svgz"],
        matches: { SVGDocument.looksLikeSVG($0) },
        decoder: { data, options in try SVGDecoder(data, options: options) },
        // cairo's image surfaces stop at 32767 a side.
        maxSide: 32767, incrementalName: "progressive", appliesExifOrientation: false,
        libraries: {
            var buffer = [CChar](repeating: 0, count: 32)
            if csvg_version_from_file(&buffer, buffer.count) == 0 {
                return [("librsvg", String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))]
            }
            var message = ShimMessage()
            guard message.with({ csvg_load($0, $1) }) == 0 else { return [("librsvg", "not available")] }
            return [("librsvg", String(cString: csvg_version()))]
        },
        writer: nil,
        // Drawing, per pixel drawn.
        decodeWork: DecodeWork(perByte: 4, perPixel: 30))
}
