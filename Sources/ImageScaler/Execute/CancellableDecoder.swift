/// Any `RowDecoder` that stops between row chunks once its flag is set: every path of
/// the executor (streamed, held, whole, split in halves, with a lent thread) gets its
/// rows through a decoder, so this one wrapper makes all of them cancellable.
struct CancellableDecoder: RowDecoder {
    let inner: any RowDecoder
    let flag: CancellationFlag
    var info: ImageInfo { inner.info }
    var capabilities: DecoderCapabilities { inner.capabilities }

    func decode(region: Rect?, shrink: Int, options: DecodeOptions,
                begin: (DecodedRegion) throws -> Void, rows: (RowChunk) throws -> Void) throws -> ImageInfo {
        try flag.check()
        return try inner.decode(region: region, shrink: shrink, options: options, begin: begin) { chunk in
            try flag.check()
            try rows(chunk)
        }
    }

    func decode(region: Rect?, shrink: Int, options: DecodeOptions, lending thread: LentThread,
                begin: (DecodedRegion) throws -> Void, rows: (RowChunk) throws -> Void) throws -> ImageInfo {
        try flag.check()
        return try inner.decode(region: region, shrink: shrink, options: options, lending: thread, begin: begin) { chunk in
            try flag.check()
            try rows(chunk)
        }
    }

    func halves(of region: Rect, shrink: Int, options: DecodeOptions, split: Int, overlap: Int) -> RegionHalves? {
        guard let h = inner.halves(of: region, shrink: shrink, options: options, split: split, overlap: overlap) else { return nil }
        let flag = self.flag
        return RegionHalves(top: h.top, bottom: h.bottom,
                            decodeTop: { begin, rows in try h.decodeTop(begin) { try flag.check(); try rows($0) } },
                            decodeBottom: { begin, rows in try h.decodeBottom(begin) { try flag.check(); try rows($0) } })
    }

    func frames(options: DecodeOptions) throws -> (any FrameReader)? { try inner.frames(options: options) }

    func decodeWide(options: DecodeOptions) throws -> (WideImage, ImageInfo)? {
        try flag.check()
        return try inner.decodeWide(options: options)
    }

    func balancedSplit(of region: Rect, shrink: Int) -> Int? { inner.balancedSplit(of: region, shrink: shrink) }
}
