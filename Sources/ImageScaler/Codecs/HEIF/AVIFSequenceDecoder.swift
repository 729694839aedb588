import CAVIFShim

/// An AVIF image sequence (a `moov` of AV1 frames, with or without a still item beside
/// it), or a still whose layers are chosen (`a1op`, `lsel`), as a `RowDecoder` through
/// libavif: its first frame, as `avifdec` shows it (the track, not the still libheif
/// would read; a file with no still at all libheif refuses; of a layered still, the
/// operating point and layer the file names, where libheif 1.15 decodes every layer),
/// RGB or RGBA with straight alpha, 8 bits for rows and 16 through `decodeWide` for a
/// source of 10 or 12, and every frame under `--animated` (`AVIFFrameReader`). A frame is
/// refused over the pixel limit before it is decoded.
struct AVIFSequenceDecoder: RowDecoder {
    let data: [UInt8]
    let info: ImageInfo
    let capabilities = DecoderCapabilities()

    /// A file whose top-level boxes hold a `moov`, or that says it is a sequence (major
    /// brand `avis`) and holds no still (`meta`): an image sequence, whole or cut short.
    static func reads(_ data: [UInt8]) -> Bool {
        let boxes = ISOBox.children(of: data, in: 0 ..< data.count, partial: true) ?? []
        if boxes.contains(where: { $0.type == "moov" }) || selectsLayers(data) { return true }
        guard let ftyp = boxes.first, ftyp.type == "ftyp", ftyp.payload.count >= 4 else { return false }
        return String(decoding: data[ftyp.payload.prefix(4)], as: UTF8.self) == "avis" && !boxes.contains { $0.type == "meta" }
    }

    /// Whether the primary item, or a tile of it, names an operating point or a layer:
    /// a file whose layers libheif would decode all of (a frame of the top layer larger
    /// than the `ispe` the chosen one declares, which `HEIFItemGraph` refuses).
    static func selectsLayers(_ data: [UInt8]) -> Bool { layeredGraph(data) != nil }

    /// The item graph of a still that `selectsLayers`, parsed once for both questions.
    private static func layeredGraph(_ data: [UInt8]) -> HEIFItemGraph? {
        guard let graph = try? HEIFItemGraph(data, format: .avif),
              codedItems(graph).contains(where: { id in ["a1op", "lsel"].contains { graph.property($0, of: id) != nil } }) else { return nil }
        return graph
    }

    /// The primary item and its tiles: the items whose AV1 libavif decodes for a still.
    private static func codedItems(_ graph: HEIFItemGraph) -> [UInt32] {
        [graph.primary] + (graph.items[graph.primary]?.references["dimg"] ?? [])
    }

    /// The largest frame the AV1 of a layered still codes, in any layer (its `av1C` and
    /// its bitstream): the frame dav1d may allocate whichever operating point is chosen,
    /// which `HEIFItemGraph` holds to the `ispe` for libheif. Nil for a file that is not a
    /// layered still, or whose OBUs do not parse (libavif then says why).
    private static func largestCodedFrame(_ graph: HEIFItemGraph) -> Size? {
        let data = graph.data
        var largest: Size? = nil
        for id in codedItems(graph) {
            var sizes: [Size] = []
            if let av1C = graph.property("av1C", of: id), av1C.payload.count > 4 {
                sizes += CodedSize.av1(obus: data[av1C.payload.lowerBound + 4 ..< av1C.payload.upperBound]) ?? []
            }
            if let body = graph.bytes(of: id) { sizes += CodedSize.av1(obus: body[...]) ?? [] }
            for s in sizes where s.width * s.height > (largest.map { $0.width * $0.height } ?? 0) { largest = s }
        }
        return largest
    }

    init(_ data: [UInt8], options: DecodeOptions) throws {
        self.data = data
        let (raw, reader) = try AVIFSequenceDecoder.open(data, options: options)
        cavif_close(reader)
        let alpha = raw.has_alpha != 0
        let size = Size(width: Int(raw.width), height: Int(raw.height))
        let channels = alpha ? 4 : 3
        var info = ImageInfo(format: .avif, size: size, channels: channels, bitDepth: max(8, Int(raw.depth)),
                             colorModel: alpha ? .rgba : .rgb, orientation: .up, interlaced: false,
                             iccProfile: nil, exif: nil, xmp: nil)
        info.frames = max(1, Int(raw.frames))
        // The decoder's YUV planes (16-bit past 8 bits) beside the RGB frame; of a layered
        // still, the planes of its largest coded frame, held to the pixel limit as a frame
        // of its own (a stream coding 4096x4096 under an ispe of 64x64 is not a thumbnail's work).
        let sampleBytes = raw.depth > 8 ? 2 : 1
        info.workingBytes = size.width * size.height * (channels + 3) * sampleBytes
        if let graph = AVIFSequenceDecoder.layeredGraph(data), let coded = AVIFSequenceDecoder.largestCodedFrame(graph) {
            try options.check(coded)
            info.workingBytes = max(info.workingBytes, size.width * size.height * channels * sampleBytes + coded.width * coded.height * 3 * sampleBytes)
        }
        self.info = info
    }

    /// libavif's reader over `data` (which must outlive it) and the sequence's facts, the
    /// frame held to the pixel limit and the format's side.
    static func open(_ data: [UInt8], options: DecodeOptions) throws -> (cavif_info, OpaquePointer) {
        var raw = cavif_info()
        var message = ShimMessage()
        let limit = UInt32(clamping: options.maxPixels > 0 ? options.maxPixels : Int(UInt32.max))
        let reader = data.withUnsafeBufferPointer { d in
            message.with { cavif_open(d.baseAddress, d.count, UInt32(ImageFormat.avif.maxSide), limit, &raw, $0, $1) }
        }
        guard let reader else { throw DecodeError.invalid(.avif, message.text) }
        return (raw, reader)
    }

    /// The first frame into `out`, `sampleBytes` a sample.
    private func first(into out: UnsafeMutableRawBufferPointer, sampleBytes: Int, options: DecodeOptions) throws {
        try options.check(info.size)
        let (_, reader) = try AVIFSequenceDecoder.open(data, options: options)
        defer { cavif_close(reader) }
        var message = ShimMessage()
        var duration: UInt32 = 0
        let status = message.with {
            cavif_next(reader, Int32(info.channels), Int32(sampleBytes), out.baseAddress?.assumingMemoryBound(to: UInt8.self),
                       info.size.width * info.channels * sampleBytes, &duration, $0, $1)
        }
        if status == 1 { throw DecodeError.invalid(.avif, "the sequence has no frame") }
        guard status == 0 else { throw DecodeError.invalid(.avif, message.text) }
    }

    func frames(options: DecodeOptions) throws -> (any FrameReader)? {
        info.frames > 1 ? try AVIFFrameReader(data, canvas: info.size, options: options) : nil
    }

    func decodeWide(options: DecodeOptions) throws -> (WideImage, ImageInfo)? {
        guard info.bitDepth > 8 else { return nil }
        var samples = [UInt16](repeating: 0, count: info.size.width * info.size.height * info.channels)
        try samples.withUnsafeMutableBytes { try first(into: $0, sampleBytes: 2, options: options) }
        return (WideImage(width: info.size.width, height: info.size.height, channels: info.channels, samples: samples), info)
    }

    func decode(region: Rect?, shrink: Int, options: DecodeOptions,
                begin: (DecodedRegion) throws -> Void, rows: (RowChunk) throws -> Void) throws -> ImageInfo {
        let (width, height, channels) = (info.size.width, info.size.height, info.channels)
        let rowBytes = width * channels
        var pixels = PixelBuffer.samples(count: rowBytes * height)
        try pixels.withUnsafeMutableBytes { try first(into: $0, sampleBytes: 1, options: options) }
        try begin(DecodedRegion(rect: Rect(size: info.size), channels: channels))
        try pixels.withUnsafeBufferPointer { try RowChunk.handOver($0, height: height, bytesPerRow: rowBytes, to: rows) }
        return info
    }
}
