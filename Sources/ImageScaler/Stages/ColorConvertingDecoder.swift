/// Any `RowDecoder` with the `ColorStage` after it: what `ImageFormat.decoder(for:)`
/// hands the pipeline, so no format's decoder converts colour itself. Its `info` is the
/// inner decoder's (which already describes the converted rows: 3 channels for CMYK).
struct ColorConvertingDecoder: RowDecoder {
    let inner: any RowDecoder
    var info: ImageInfo { inner.info }
    var capabilities: DecoderCapabilities { inner.capabilities }

    func decode(region: Rect?, shrink: Int, options: DecodeOptions,
                begin: (DecodedRegion) throws -> Void, rows: (RowChunk) throws -> Void) throws -> ImageInfo {
        try ColorStage.around(profile: info.iccProfile, toSRGB: options.toSRGB, begin: begin, rows: rows) {
            try inner.decode(region: region, shrink: shrink, options: options, begin: $0, rows: $1)
        }
    }

    func decode(region: Rect?, shrink: Int, options: DecodeOptions, lending thread: LentThread,
                begin: (DecodedRegion) throws -> Void, rows: (RowChunk) throws -> Void) throws -> ImageInfo {
        try ColorStage.around(profile: info.iccProfile, toSRGB: options.toSRGB, begin: begin, rows: rows) {
            try inner.decode(region: region, shrink: shrink, options: options, lending: thread, begin: $0, rows: $1)
        }
    }

    func drawn(at size: Size) throws -> (any RowDecoder)? {
        try inner.drawn(at: size).map { ColorConvertingDecoder(inner: $0) }
    }

    /// Each half converts its own rows, on its own thread.
    func halves(of region: Rect, shrink: Int, options: DecodeOptions, split: Int, overlap: Int) -> RegionHalves? {
        guard let h = inner.halves(of: region, shrink: shrink, options: options, split: split, overlap: overlap) else { return nil }
        let profile = info.iccProfile, toSRGB = options.toSRGB
        return RegionHalves(top: h.top, bottom: h.bottom,
                            decodeTop: { begin, rows in
                                try ColorStage.around(profile: profile, toSRGB: toSRGB, begin: begin, rows: rows, h.decodeTop)
                            },
                            decodeBottom: { begin, rows in
                                try ColorStage.around(profile: profile, toSRGB: toSRGB, begin: begin, rows: rows, h.decodeBottom)
                            })
    }
}
