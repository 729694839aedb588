/// Any `RowDecoder` with the `ColorStage` after it: what `ImageFormat.decoder(for:)`
/// hands the pipeline, so no format's decoder converts colour itself. Its `info` is the
/// inner decoder's (which already describes the converted rows: 3 channels for CMYK).
struct ColorConvertingDecoder: RowDecoder {
    let inner: any RowDecoder
    var info: ImageInfo { inner.info }
    var capabilities: DecoderCapabilities { inner.capabilities }

    func decode(region: Rect?, shrink: Int, options: DecodeOptions,
                begin: (DecodedRegion) throws -> Void, rows: (RowChunk) throws -> Void) throws -> ImageInfo {
        try ColorStage.around(profile: info.iccProfile, toSRGB: options.toSRGB, export: options.export, begin: begin, rows: rows) {
            try inner.decode(region: region, shrink: shrink, options: options, begin: $0, rows: $1)
        }
    }

    func decode(region: Rect?, shrink: Int, options: DecodeOptions, lending thread: LentThread,
                begin: (DecodedRegion) throws -> Void, rows: (RowChunk) throws -> Void) throws -> ImageInfo {
        try ColorStage.around(profile: info.iccProfile, toSRGB: options.toSRGB, export: options.export, begin: begin, rows: rows) {
            try inner.decode(region: region, shrink: shrink, options: options, lending: thread, begin: $0, rows: $1)
        }
    }

    /// At 16 bits the profile's conversion is Little CMS's 16-bit transform.
    func decodeWide(options: DecodeOptions) throws -> (WideImage, ImageInfo)? {
        guard var (image, decoded) = try inner.decodeWide(options: options) else { return nil }
        let export = image.channels >= 3 ? options.export : nil
        guard export != nil || options.toSRGB, export != nil || info.iccProfile != nil else { return (image, decoded) }
        do {
            let converter = try ColorConverter(profile: info.iccProfile, layout: .init(channels: image.channels), sixteen: true,
                                               target: export)
            let source = image.samples
            source.withUnsafeBytes { src in
                image.samples.withUnsafeMutableBytes { dst in
                    converter.convert(src.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                      into: dst.baseAddress!.assumingMemoryBound(to: UInt8.self), pixels: image.width * image.height)
                }
            }
        } catch {
            if !decoded.warnings.contains("\(error)") { decoded.warnings.append("\(error)") }
        }
        return (image, decoded)
    }

    func drawn(at size: Size) throws -> (any RowDecoder)? {
        try inner.drawn(at: size).map { ColorConvertingDecoder(inner: $0) }
    }

    /// An animation's frames as its format composites them (animated GIF and WebP carry
    /// no CMYK, and a profile is kept as it is).
    func frames(options: DecodeOptions) throws -> (any FrameReader)? { try inner.frames(options: options) }

    /// Each half converts its own rows, on its own thread.
    func halves(of region: Rect, shrink: Int, options: DecodeOptions, split: Int, overlap: Int) -> RegionHalves? {
        guard let h = inner.halves(of: region, shrink: shrink, options: options, split: split, overlap: overlap) else { return nil }
        let profile = info.iccProfile, toSRGB = options.toSRGB, export = options.export
        return RegionHalves(top: h.top, bottom: h.bottom,
                            decodeTop: { begin, rows in
                                try ColorStage.around(profile: profile, toSRGB: toSRGB, export: export, begin: begin, rows: rows, h.decodeTop)
                            },
                            decodeBottom: { begin, rows in
                                try ColorStage.around(profile: profile, toSRGB: toSRGB, export: export, begin: begin, rows: rows, h.decodeBottom)
                            })
    }
}
