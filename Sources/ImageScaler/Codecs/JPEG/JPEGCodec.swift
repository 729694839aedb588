import CJPEGOwnDecoders
import CJPEGShim

/// JPEG through libjpeg-turbo's jpeglib.h API with libjpeg's defaults (ISLOW DCT, fancy
/// upsampling), so a full-size decode matches `djpeg` byte for byte. Gray stays one
/// channel; YCbCr and RGB come out RGB; CMYK and YCCK come out as ink, which the
/// `ColorStage` after the decoder turns into RGB (as it converts profiles).
package enum JPEGCodec {
    public static func info(_ data: [UInt8]) throws -> ImageInfo {
        // Reading a header never fails on a mild warning: `info` reports what is there.
        // No entropy data is read, so whose decoder would read it is not asked (it is
        // decided by decoding: `JPEGOwnDecoders`, which reads headers here).
        try withReader(data, maxMemory: 0, failOn: .none, libjpegOnly: true) { _, raw, _ in makeInfo(raw) }
    }

    /// Opens a reader over `data` (header read) for the length of `body`.
    private static func withReader<T>(_ data: [UInt8], maxMemory: Int, failOn: FailOn, libjpegOnly: Bool = false,
                                      forcingOwn: Bool = false, _ body: (OpaquePointer, cjpeg_info, inout ShimMessage) throws -> T) throws -> T {
        try data.withUnsafeBufferPointer { buf in
            var raw = cjpeg_info()
            var message = ShimMessage()
            // libjpeg's share of the budget: what the file bytes leave (0 = no limit).
            let libjpeg = maxMemory <= 0 || maxMemory == Int.max ? 0 : max(1, maxMemory - data.count)
            guard let reader = message.with({ cjpeg_reader_open(buf.baseAddress, buf.count, libjpeg, failOn.jpegSeverity, &raw, $0, $1) }) else {
                throw refusal(message.text, severity: raw.failed_severity)
            }
            defer { cjpeg_reader_close(reader) }
            if libjpegOnly || !(forcingOwn || JPEGOwnDecoders.enabled) { cjpeg_reader_libjpeg_only(reader) }
            do {
                return try body(reader, raw, &message)
            } catch DecodeError.invalid(.jpeg, let text) {
                throw refusal(text, severity: cjpeg_reader_failed_severity(reader))
            }
        }
    }

    /// libjpeg's message, marked with the kind of damage when a warning the fail-on
    /// level made fatal ended the decode, so the CLI can say which level decodes it.
    private static func refusal(_ text: String, severity: Int32) -> DecodeError {
        let kinds: [Int32: FailOn] = [Int32(CJPEG_SEVERITY_WARNING): .warning, Int32(CJPEG_SEVERITY_ERROR): .error,
                                      Int32(CJPEG_SEVERITY_TRUNCATED): .truncated]
        guard let damage = kinds[severity] else { return DecodeError.invalid(.jpeg, text) }
        return DecodeError.refusing(.invalid(.jpeg, text), damage: damage)
    }

    /// Decodes at 1/`options.shrink` size (libjpeg's DCT scaling, the cheapest way to a
    /// thumbnail: most of the IDCT work is skipped).
    public static func decode(_ data: [UInt8], options: DecodeOptions = DecodeOptions()) throws -> (PixelBuffer, ImageInfo) {
        let (image, _, info) = try decode(data, options: options, region: nil)
        return (image, info)
    }

    /// Decodes at 1/`options.shrink` size, and when `region` (in the shrunk image's
    /// stored pixel coordinates) is given, only the part of the image covering it: rows
    /// above and below are skipped and columns outside cropped, so their IDCT,
    /// upsampling and colour conversion never run. Returns the decoded pixels and where
    /// they sit in the shrunk image; that rect contains `region` clipped to the image
    /// (columns start at an iMCU boundary); a region outside the image is a
    /// `GeometryError`, and its pixels equal a whole decode's except within
    /// `ShrinkOnLoad.cropSlack` pixels of a crop edge.
    public static func decode(_ data: [UInt8], options: DecodeOptions, region: Rect?) throws -> (PixelBuffer, Rect, ImageInfo) {
        try decode(data, options: options, region: region, thread: nil)
    }

    /// As above, with a thread lent to the decode (see `decodeRows`).
    package static func decode(_ data: [UInt8], options: DecodeOptions, region: Rect?, thread: LentThread?) throws -> (PixelBuffer, Rect, ImageInfo) {
        var collector = RowCollector()
        let header = try info(data)
        let info = try ColorStage.around(profile: header.iccProfile, toSRGB: options.toSRGB,
                                         begin: { collector.begin($0) }, rows: { collector.add($0) }) {
            try decodeRows(data, options: options, region: region, restarts: region == nil ? nil : RestartIntervalCut.Index(data),
                           thread: thread, begin: $0, rows: $1)
        }
        return (collector.image, collector.region.rect, info)
    }

    /// The streaming form of `decode(_:options:region:)`: announces the region, then
    /// hands over rows 16 at a time, never holding the whole image.
    /// `restarts` is the file's restart-interval layout (`JPEGDecoder` reads it once
    /// for all its decodes).
    package static func decodeRows(_ data: [UInt8], options: DecodeOptions, region: Rect?,
                           restarts: RestartIntervalCut.Index?, thread: LentThread? = nil,
                           begin: (DecodedRegion) throws -> Void, rows: (RowChunk) throws -> Void) throws -> ImageInfo {
        let shrink = [1, 2, 4, 8].contains(options.shrink) ? options.shrink : 1
        guard let asked = region else {
            return try decodeRows(data, cut: nil, shrink: shrink, options: options, region: nil, thread: thread, begin: begin, rows: rows)
        }
        // No JPEG is wider or taller than 65535: a region is first cut to that much (with
        // no arithmetic that could overflow on any Int), then to the image.
        guard let region = within65536(asked) else {
            let size = try info(data).size
            throw GeometryError.emptyIntersection(asked, .topLeft, Size(width: (size.width + shrink - 1) / shrink,
                                                                        height: (size.height + shrink - 1) / shrink))
        }
        // Restart markers let whole intervals outside the region go undecoded; a cut
        // is a smaller JPEG whose pixels sit at an offset in this one.
        let cut = restarts?.cut(fullSize(region, shrink), margin: ShrinkOnLoad.cropSlack * shrink)
        return try decodeRows(data, cut: cut, shrink: shrink, options: options, region: region, thread: thread, begin: begin, rows: rows)
    }

    /// A rect of the image decoded at 1/`shrink`, in the full-size image's pixels.
    private static func fullSize(_ r: Rect, _ shrink: Int) -> Rect {
        Rect(x: r.x * shrink, y: r.y * shrink, width: r.width * shrink, height: r.height * shrink)
    }

    private static func within65536(_ r: Rect) -> Rect? {
        guard r.width > 0, r.height > 0 else { return nil }
        func span(_ start: Int, _ length: Int) -> (Int, Int)? {
            let end = start.addingReportingOverflow(length)
            let lo = max(start, 0), hi = min(end.overflow ? Int.max : end.partialValue, 1 << 16)
            return hi > lo ? (lo, hi) : nil
        }
        guard let (x0, x1) = span(r.x, r.width), let (y0, y1) = span(r.y, r.height) else { return nil }
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// `region` (as in `decodeRows`) as two restart-interval cuts, the rows above `split`
    /// and those from `overlap` rows above it, that decode independently: nil unless the
    /// file's restart markers allow it and each part has at least one 4:2:0 iMCU row of
    /// its own (or the split costs more than it saves).
    static func halves(_ data: [UInt8], options: DecodeOptions, region asked: Rect, split: Int, overlap: Int,
                       restarts: RestartIntervalCut.Index?) -> RegionHalves? {
        let shrink = [1, 2, 4, 8].contains(options.shrink) ? options.shrink : 1
        guard let region = within65536(asked), split - region.y >= 16, region.maxY - split >= 16, overlap >= 0,
              split - overlap >= region.y, let index = restarts else { return nil }
        let margin = ShrinkOnLoad.cropSlack * shrink
        let top = Rect(x: region.x, y: region.y, width: region.width, height: split - region.y)
        let bottom = Rect(x: region.x, y: split - overlap, width: region.width, height: region.maxY - (split - overlap))
        guard index.cuts(fullSize(top, shrink), margin: margin), index.cuts(fullSize(bottom, shrink), margin: margin),
              bottom.maxY <= (index.fullSize.height + shrink - 1) / shrink else { return nil }
        // Each part cuts its bytes on its own thread: copying them first would hold both back.
        @Sendable func decode(_ part: Rect, begin: (DecodedRegion) throws -> Void, rows: (RowChunk) throws -> Void) throws -> ImageInfo {
            guard let cut = index.cut(fullSize(part, shrink), margin: margin) else { throw DecodeError.inconsistentHalves }
            return try decodeRows(data, cut: cut, shrink: shrink, options: options, region: part, begin: begin, rows: rows)
        }
        return RegionHalves(top: top, bottom: bottom, decodeTop: { try decode(top, begin: $0, rows: $1) },
                            decodeBottom: { try decode(bottom, begin: $0, rows: $1) })
    }

    /// Decodes `cut` (or all of `data` when there is none) over `region`, given in the
    /// shrunk coordinates of `data`.
    private static func decodeRows(_ data: [UInt8], cut: RestartIntervalCut?, shrink: Int, options: DecodeOptions, region: Rect?,
                                   thread: LentThread? = nil, begin: (DecodedRegion) throws -> Void, rows: (RowChunk) throws -> Void) throws -> ImageInfo {
        let dx = (cut?.originX ?? 0) / shrink, dy = (cut?.originY ?? 0) / shrink
        let region = region.map { Rect(x: $0.x - dx, y: $0.y - dy, width: $0.width, height: $0.height) }
        return try withReader(cut?.data ?? data, maxMemory: options.maxMemory, failOn: options.failOn,
                              libjpegOnly: options.libjpegOnly, forcingOwn: options.forcingOwnJPEGDecoders) { reader, raw, message in
            var info = makeInfo(raw)
            if let cut { info.size = cut.fullSize }
            try options.check(info.size)
            // A region reaching outside the image is clipped to it, as `crop` clips.
            var region = region
            if let r = region {
                let decoded = Size(width: (Int(raw.width) + shrink - 1) / shrink, height: (Int(raw.height) + shrink - 1) / shrink)
                guard let inside = r.intersection(Rect(size: decoded)) else {
                    throw GeometryError.emptyIntersection(Rect(x: r.x + dx, y: r.y + dy, width: r.width, height: r.height), .topLeft,
                                                          Size(width: (info.size.width + shrink - 1) / shrink,
                                                               height: (info.size.height + shrink - 1) / shrink))
                }
                region = inside
            }
            var output = cjpeg_output()
            let cropX = UInt32(region?.x ?? 0), cropW = UInt32(region?.width ?? 0)
            // At 1/8 the entropy decoding is nearly all the work, and jpeg_eighth.c does
            // it faster, and on two threads when lent one; it gives libjpeg's bytes.
            var eighth: JPEGEighthScan? = nil
            if shrink == 8 && !options.libjpegOnly && (options.forcingOwnJPEGDecoders || JPEGOwnDecoders.enabled) {
                var layout = cjpeg_eighth_layout()
                let status = message.with { cjpeg_reader_start_eighth(reader, &layout, &output, $0, $1) }
                guard status >= 0 else { throw DecodeError.invalid(.jpeg, message.text) }
                if status == 1 {
                    // Half of what the file's bytes leave: the pipeline after needs its share.
                    let budget = options.maxMemory <= 0 ? Int.max : max(0, options.maxMemory - data.count) / 2
                    eighth = JPEGEighthScan.make(layout, budget: budget, thread: thread)
                }
                if eighth == nil {
                    guard message.with({ cjpeg_reader_crop(reader, cropX, cropW, &output, $0, $1) }) == 0 else {
                        throw DecodeError.invalid(.jpeg, message.text)
                    }
                }
            } else {
                guard message.with({ cjpeg_reader_start(reader, Int32(shrink), cropX, cropW, &output, $0, $1) }) == 0 else {
                    throw DecodeError.invalid(.jpeg, message.text)
                }
            }
            // With a thread lent, Huffman decoding runs ahead on it while libjpeg
            // transforms on this one: about a third of a large decode moves over.
            var producer: LentWork? = nil
            if eighth == nil, let thread, cjpeg_reader_pipeline(reader, UInt64(max(1, options.pipelineMCUs))) == 1 {
                let handle = SharedHandle(reader)
                producer = thread.start { cjpeg_reader_produce(handle.pointer) }
            }
            // However this ends, the producer is stopped and gone before the reader closes.
            defer {
                if let producer {
                    cjpeg_reader_stop_producing(reader)
                    producer.wait()
                }
            }
            let fullHeight = Int(output.height)
            let firstRow = min(max(region?.y ?? 0, 0), fullHeight - 1)
            let endRow = min(region.map { $0.maxY } ?? fullHeight, fullHeight)
            let height = endRow - firstRow
            if let eighth {
                let x = region?.x ?? 0, width = region?.width ?? eighth.width, channels = eighth.channels
                try begin(DecodedRegion(rect: Rect(x: x + dx, y: firstRow + dy, width: width, height: height),
                                        channels: channels, cmykInverted: nil))
                // With a thread to spare, the lower half of the rows is made on it.
                let stride = width * channels
                var split = height
                var lower: JPEGEighthScan.LowerRows? = nil
                if let thread, height >= 64, stride * height <= 64 << 20 {
                    // Where the second decoding thread's part begins, or 3/5 down (the
                    // lower part must first carry the predictors through all above).
                    if let (row, state) = eighth.secondRows(), row > firstRow + 16, row < endRow - 16 {
                        split = row - firstRow
                        lower = eighth.rows(row ..< endRow, x: x, width: width, from: state, on: thread)
                    } else {
                        split = height * 3 / 5
                        lower = eighth.rows(firstRow + split ..< endRow, x: x, width: width, on: thread)
                    }
                }
                defer { lower?.wait() }
                var state = JPEGEighthScan.RowState()
                var row = 0
                while row < height {
                    let count = min(16, (row < split ? split : height) - row)
                    var chunk: [UInt8]
                    if row < split {
                        chunk = PixelBuffer.samples(count: stride * count)
                        try chunk.withUnsafeMutableBufferPointer {
                            try eighth.rows(firstRow + row ..< firstRow + row + count, x: x, width: width, state: &state, into: $0.baseAddress!)
                        }
                    } else {
                        // Invariant: rows past `split` exist only when `lower` was started.
                        lower!.wait()
                        if let failure = lower!.failure { throw failure }
                        chunk = Array(lower!.pixels[(row - split) * stride ..< (row - split + count) * stride])
                    }
                    try chunk.withUnsafeBufferPointer {
                        try rows(RowChunk(firstRow: row, count: count, bytesPerRow: stride, pixels: $0.baseAddress!, storage: chunk))
                    }
                    row += count
                }
                return tolerated(reader, info, options)
            }
            let width = Int(output.width), channels = Int(output.channels)
            // CMYK and YCCK come out as ink; the ColorStage after this decoder makes RGB.
            try begin(DecodedRegion(rect: Rect(x: Int(output.x_offset) + dx, y: firstRow + dy, width: width, height: height),
                                    channels: channels, cmykInverted: channels == 4 ? raw.adobe_inverted != 0 : nil))
            var skipped = 0
            while skipped < firstRow {
                let n = message.with { cjpeg_reader_skip(reader, UInt32(firstRow - skipped), $0, $1) }
                guard n > 0 else { throw DecodeError.invalid(.jpeg, n < 0 ? message.text : "cannot skip scanlines") }
                skipped += Int(n)
            }
            // 16 rows: one iMCU row of 4:2:0 at full size, so libjpeg fills a chunk per call.
            let chunkRows = 16
            let stride = width * channels
            var row = 0
            while row < height {
                let want = min(chunkRows, height - row)
                // A new array per chunk, given away with it: a consumer on another thread
                // keeps it rather than copying every decoded byte on this, the busier, one.
                var chunk = PixelBuffer.samples(count: stride * want)
                let n = chunk.withUnsafeMutableBufferPointer { out in
                    message.with { cjpeg_reader_read(reader, out.baseAddress!, stride, UInt32(want), $0, $1) }
                }
                guard n > 0 else { throw DecodeError.invalid(.jpeg, n < 0 ? message.text : "no scanlines returned") }
                let count = Int(n)
                try chunk.withUnsafeBufferPointer {
                    try rows(RowChunk(firstRow: row, count: count, bytesPerRow: stride, pixels: $0.baseAddress!, storage: chunk))
                }
                row += count
            }
            guard message.with({ cjpeg_reader_finish(reader, $0, $1) }) == 0 else {
                throw DecodeError.invalid(.jpeg, message.text)
            }
            return tolerated(reader, info, options)
        }
    }

    /// `info` with the warnings libjpeg gave and the fail-on level let pass.
    private static func tolerated(_ reader: OpaquePointer, _ info: ImageInfo, _ options: DecodeOptions) -> ImageInfo {
        var info = info
        var first = ShimMessage()
        let tolerated = first.with { cjpeg_reader_tolerated(reader, $0, $1) }
        if tolerated > 0 {
            info.warnings.append("damaged JPEG decoded anyway (fail-on \(options.failOn.rawValue)): \(first.text)"
                                 + (tolerated > 1 ? " and \(tolerated - 1) more warning\(tolerated > 2 ? "s" : "")" : ""))
        }
        return info
    }

    private static func makeInfo(_ raw: cjpeg_info) -> ImageInfo {
        var exif: [UInt8]? = nil
        if let p = raw.exif, raw.exif_length > 0 {
            exif = Array(UnsafeBufferPointer(start: p, count: Int(raw.exif_length)))
        }
        var icc: [UInt8]? = nil
        if let p = raw.icc, raw.icc_length > 0 {
            icc = Array(UnsafeBufferPointer(start: p, count: Int(raw.icc_length)))
        }
        var orientation = Orientation.up
        var warnings: [String] = []
        if let exif {
            switch ExifReader.orientation(in: exif) {
            case .success(let o): orientation = o
            case .failure(let e): warnings.append("ignoring broken EXIF (\(e)); orientation 1 assumed")
            }
        }
        var xmp: [UInt8]? = nil
        if let p = raw.xmp, raw.xmp_length > 0 {
            xmp = Array(UnsafeBufferPointer(start: p, count: Int(raw.xmp_length)))
        }
        let model: ColorModel
        switch Int(raw.color) {
        case Int(CJPEG_COLOR_GRAY): model = .gray
        case Int(CJPEG_COLOR_CMYK): model = .cmyk
        default: model = .rgb
        }
        return ImageInfo(format: .jpeg, size: Size(width: Int(raw.width), height: Int(raw.height)),
                         channels: model == .gray ? 1 : 3, bitDepth: 8, colorModel: model,
                         orientation: orientation, interlaced: raw.progressive != 0, iccProfile: icc, exif: exif,
                         xmp: xmp, textCount: Int(raw.comments),
                         workingBytes: Int(clamping: raw.coefficient_bytes), warnings: warnings)
    }

    /// Encodes at `quality` 1-100 with optimised Huffman tables; alpha is flattened
    /// onto white (use `ImageCodec.encode` with `EncodeOptions.background` for another colour).
    public static func encode(_ image: PixelBuffer, quality: Int = 85, progressive: Bool = false,
                              subsampling: ChromaSubsampling = .s420, iccProfile: [UInt8]? = nil) throws -> [UInt8] {
        var options = EncodeOptions()
        options.quality = quality
        options.progressive = progressive
        options.subsampling = subsampling
        options.iccProfile = iccProfile
        return try ImageFormat.jpeg.encode(image, options: options)
    }
}
