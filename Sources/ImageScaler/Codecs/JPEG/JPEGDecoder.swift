/// JPEG as a `RowDecoder`: DCT scaling at 1/2, 1/4 and 1/8, regions (rows skipped,
/// columns cropped, restart intervals outside cut from the data) and, where restart
/// markers allow, a region split in two cuts that decode independently.
package struct JPEGDecoder: RowDecoder {
    let data: [UInt8]
    package let info: ImageInfo
    package let capabilities = DecoderCapabilities(shrinkFactors: [1, 2, 4, 8], decodesRegions: true, splitsRegions: true)
    /// The restart-interval layout, read once for every pass and half (nil: none usable).
    let restarts: RestartIntervalCut.Index?

    /// The header is parsed here once per job, and the markers scanned once for the
    /// restart layout; each decode pass then opens its own libjpeg decompressor, which
    /// re-reads the header itself (jpeg_read_header has no way to start from a parsed one).
    package init(_ data: [UInt8]) throws {
        self.data = data
        var info = try JPEGCodec.info(data)
        let (gainMap, dropped) = UltraHDRReader.find(in: data, base: info.size)
        info.gainMap = gainMap
        info.gainMapDropped = dropped
        self.info = info
        restarts = RestartIntervalCut.Index(data)
    }

    package func decode(region: Rect?, shrink: Int, options: DecodeOptions,
                begin: (DecodedRegion) throws -> Void, rows: (RowChunk) throws -> Void) throws -> ImageInfo {
        var options = options
        options.shrink = shrink
        return try JPEGCodec.decodeRows(data, options: options, region: region, restarts: restarts, begin: begin, rows: rows)
    }

    /// At 1/8 the entropy-coded data is decoded from its start and its middle at once.
    package func decode(region: Rect?, shrink: Int, options: DecodeOptions, lending thread: LentThread,
                begin: (DecodedRegion) throws -> Void, rows: (RowChunk) throws -> Void) throws -> ImageInfo {
        var options = options
        options.shrink = shrink
        return try JPEGCodec.decodeRows(data, options: options, region: region, restarts: restarts, thread: thread, begin: begin, rows: rows)
    }

    /// Huffman decoding is most of the work and follows the compressed bytes, which
    /// pile up where the picture is busy: the row that halves the bytes of the restart
    /// intervals the region covers.
    package func balancedSplit(of region: Rect, shrink: Int) -> Int? {
        guard let restarts else { return nil }
        let full = Rect(x: region.x * shrink, y: region.y * shrink, width: region.width * shrink, height: region.height * shrink)
        return restarts.balancedRow(full).map { $0 / shrink }
    }

    package func halves(of region: Rect, shrink: Int, options: DecodeOptions, split: Int, overlap: Int) -> RegionHalves? {
        // At 1/8 a sequential file is split by the decoder itself, on a lent thread,
        // after the restart marker nearest the middle: no cut is copied.
        if shrink == 8 && !info.interlaced && info.colorModel != .cmyk { return nil }
        var options = options
        options.shrink = shrink
        return JPEGCodec.halves(data, options: options, region: region, split: split, overlap: overlap, restarts: restarts)
    }
}
