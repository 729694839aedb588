import CPNGShim

/// PNG through libpng's low-level API: every colour type and depth is expanded to 8-bit
/// gray, gray+alpha, RGB or RGBA; 16-bit samples are rounded (`png_set_scale_16`), and
/// gamma/cHRM/sRGB chunks are kept out of the samples, as Pillow and libvips do.
package enum PNGCodec {
    public static func info(_ data: [UInt8]) throws -> ImageInfo {
        try withReader(data, tolerateCRC: false) { _, raw, _ in makeInfo(raw) }
    }

    /// Opens a reader over `data` (header read) for the length of `body`.
    private static func withReader<T>(_ data: [UInt8], tolerateCRC: Bool,
                                      _ body: (OpaquePointer, cpng_info, inout ShimMessage) throws -> T) throws -> T {
        try data.withUnsafeBufferPointer { buf in
            var raw = cpng_info()
            var message = ShimMessage()
            guard let reader = message.with({ cpng_reader_open(buf.baseAddress, buf.count, tolerateCRC ? 1 : 0, &raw, $0, $1) }) else {
                throw DecodeError.invalid(.png, message.text)
            }
            defer { cpng_reader_close(reader) }
            return try body(reader, raw, &message)
        }
    }

    /// A 16-bit PNG at 16 bits, keeping its channels (tRNS expanded to alpha), whole
    /// (interlaced or not); nil for a PNG of 8 bits or fewer. Damage is judged as
    /// `decodeRows` judges it: below `failOn`, what was decoded stands, the rest zero.
    static func decodeWide(_ data: [UInt8], options: DecodeOptions) throws -> (WideImage, ImageInfo)? {
        try withReader(data, tolerateCRC: options.failOn.tolerates(.error)) { reader, raw, message in
            var info = makeInfo(raw)
            guard info.bitDepth == 16 else { return nil }
            try options.check(info.size)
            let (width, height, channels) = (info.size.width, info.size.height, info.channels)
            cpng_reader_keep_16(reader)
            var samples = [UInt16](repeating: 0, count: width * height * channels)
            let status = samples.withUnsafeMutableBytes { out in
                message.with { cpng_reader_read(reader, out.baseAddress!.assumingMemoryBound(to: UInt8.self), width * channels * 2, $0, $1) }
            }
            if status != 0 {
                let damage: FailOn = status == -2 ? .truncated : .error
                guard options.failOn.tolerates(damage) else { throw DecodeError.refusing(.invalid(.png, message.text), damage: damage) }
                info.warnings.append("damaged PNG decoded anyway (fail-on \(options.failOn.rawValue)): \(message.text); "
                                     + "what could be decoded kept, the rest left black")
            }
            try checkWarnings(reader, options, &info)
            return (WideImage(width: width, height: height, channels: channels, samples: samples), info)
        }
    }

    public static func decode(_ data: [UInt8], options: DecodeOptions = DecodeOptions()) throws -> (PixelBuffer, ImageInfo) {
        var collector = RowCollector()
        let header = try info(data)
        let info = try ColorStage.around(profile: header.iccProfile, toSRGB: options.toSRGB,
                                         begin: { collector.begin($0) }, rows: { collector.add($0) }) {
            try decodeRows(data, options: options, begin: $0, rows: $1)
        }
        return (collector.image, info)
    }

    /// The streaming form of `decode`: rows are handed over 16 at a time, so a
    /// non-interlaced image is never held whole. Adam7 interlacing needs every pass
    /// before any row is final, so those images are decoded whole and then handed over.
    /// `slow` keeps to libpng (how the fast path's failures get libpng's message).
    /// With a lent `thread`, the fast path inflates there while this thread unfilters.
    package static func decodeRows(_ data: [UInt8], options: DecodeOptions = DecodeOptions(), slow: Bool = false, thread: LentThread? = nil,
                                  begin: (DecodedRegion) throws -> Void, rows: (RowChunk) throws -> Void) throws -> ImageInfo {
        try withReader(data, tolerateCRC: options.failOn.tolerates(.error)) { reader, raw, message in
            var info = makeInfo(raw)
            try options.check(info.size)
            let (width, height, channels) = (info.size.width, info.size.height, info.channels)
            let stride = width * channels
            /// A read failure ends the decode, unless `failOn` tolerates its kind:
            /// then what was decoded stands and the rest stays zero (black, or
            /// transparent with alpha), with a warning saying so.
            func judge(_ status: Int32, rowsDone: Int) throws {
                let damage: FailOn = status == -2 ? .truncated : .error
                guard options.failOn.tolerates(damage) else { throw DecodeError.refusing(.invalid(.png, message.text), damage: damage) }
                info.warnings.append("damaged PNG decoded anyway (fail-on \(options.failOn.rawValue)): \(message.text); "
                                     + (rowsDone < height ? "\(rowsDone) of \(height) rows decoded, the rest left black" : "all rows decoded"))
            }
            try begin(DecodedRegion(rect: Rect(size: info.size), channels: channels))
            if info.interlaced {
                // Zeroed when damage is tolerated: the passes a damaged file never
                // reaches must not show whatever the memory held before.
                var pixels = options.failOn.tolerates(.error) ? [UInt8](repeating: 0, count: height * stride) : PixelBuffer.samples(count: height * stride)
                let status = pixels.withUnsafeMutableBufferPointer { out in
                    message.with { cpng_reader_read(reader, out.baseAddress, stride, $0, $1) }
                }
                if status != 0 { try judge(status, rowsDone: 0) }
                try pixels.withUnsafeBufferPointer {
                    try rows(RowChunk(firstRow: 0, count: height, bytesPerRow: stride, pixels: $0.baseAddress!))
                }
                try checkWarnings(reader, options, &info)
                return info
            }
            // Chunks of about 256 KiB (21 rows of a 12 MP photo): a strip one pixel wide
            // would otherwise pay the per-chunk cost for every 16 bytes, and 16 rows of a
            // strip 67 million pixels wide would be a gigabyte. Several chunks wait in each
            // pipe between threads, so larger ones would show in a huge image's peak memory
            // (1 MiB ones: 108 MP, +6 MiB). But at least 8 rows where they fit in 2 MiB: a
            // 40000-wide PNG's 2-row chunks cost 8% of its time in handing over.
            let chunkRows = max(1, min(height, max((1 << 18) / stride, min(8, (1 << 21) / stride))))
            var chunk = PixelBuffer.samples(count: stride * chunkRows)
            // The strict default on a plain 8-bit file: ISA-L inflates and we unfilter
            // (libpng's inflate is zlib's, about half the speed). Any damage is then
            // reported in libpng's own words, by decoding with it.
            if options.failOn == .warning, !slow,
               try decodeFast(data, height: height, stride: stride, chunkRows: chunkRows, chunk: &chunk, thread: thread, rows: rows) {
                try checkWarnings(reader, options, &info)
                return info
            }
            var row = 0
            var damaged = false
            while row < height {
                let count = min(chunkRows, height - row)
                var done: UInt32 = 0
                let status = damaged ? 0 : chunk.withUnsafeMutableBufferPointer { out in
                    message.with { cpng_reader_read_rows(reader, out.baseAddress, stride, UInt32(count), &done, $0, $1) }
                }
                if damaged || status != 0 {
                    if !damaged { try judge(status, rowsDone: row + Int(done)) }
                    damaged = true
                    chunk.withUnsafeMutableBufferPointer { out in
                        (out.baseAddress! + Int(done) * stride).update(repeating: 0, count: (count - Int(done)) * stride)
                    }
                    done = 0
                }
                try chunk.withUnsafeBufferPointer {
                    try rows(RowChunk(firstRow: row, count: count, bytesPerRow: stride, pixels: $0.baseAddress!))
                }
                row += count
            }
            if !damaged {
                let status = message.with { cpng_reader_finish(reader, $0, $1) }
                if status != 0 { try judge(status, rowsDone: height) }
            }
            try checkWarnings(reader, options, &info)
            return info
        }
    }

    /// Rows through the fast path (`cpng_fast`); false when the file is not one it takes
    /// (nothing delivered yet). Damage found on the way throws libpng's error for it.
    private static func decodeFast(_ data: [UInt8], height: Int, stride: Int, chunkRows: Int, chunk: inout [UInt8],
                                   thread: LentThread?, rows: (RowChunk) throws -> Void) throws -> Bool {
        try data.withUnsafeBufferPointer { d in
            guard let fast = cpng_fast_open(d.baseAddress, d.count) else { return false }
            defer { cpng_fast_close(fast) }
            if let thread {
                try inflatingAside(SharedHandle(fast), on: thread, data: data, height: height, stride: stride, chunkRows: chunkRows,
                                   rows: rows)
                return true
            }
            var row = 0
            while row < height {
                let count = min(chunkRows, height - row)
                let status = chunk.withUnsafeMutableBufferPointer { cpng_fast_read_rows(fast, $0.baseAddress, stride, UInt32(count)) }
                guard status == 0 else { throw libpngError(data) }
                try chunk.withUnsafeBufferPointer {
                    try rows(RowChunk(firstRow: row, count: count, bytesPerRow: stride, pixels: $0.baseAddress!))
                }
                row += count
            }
            guard cpng_fast_finish(fast) == 0, cpng_fast_verify(fast) == 0 else { throw libpngError(data) }
            return true
        }
    }

    /// Inflating on `thread`, into a pipe of still-filtered rows that this thread
    /// unfilters and hands on: inflate and unfilter cost about the same, so a PNG decodes
    /// in about half the time when the resampler is not the one waiting. Each chunk, on
    /// either side, is a new array given away with its rows rather than a buffer copied
    /// into the pipes: a gigapixel PNG's two copies were 14% of its CPU.
    private static func inflatingAside(_ fast: SharedHandle, on thread: LentThread, data: [UInt8], height: Int, stride: Int,
                                       chunkRows: Int, rows: (RowChunk) throws -> Void) throws {
        let rawRow = stride + 1
        let pipe = ChunkPipe(capacity: 4)
        let damaged = Locked(false)
        let work = thread.start {
            var row = 0
            // Ends at the last row, at damage, or when the unfiltering side gave up (its push throws).
            while row < height {
                let count = min(chunkRows, height - row)
                var raw = PixelBuffer.samples(count: rawRow * count)
                guard raw.withUnsafeMutableBufferPointer({ cpng_fast_inflate_rows(fast.pointer, $0.baseAddress, UInt32(count)) }) == 0 else {
                    damaged.withLock { $0 = true }
                    break
                }
                do {
                    try raw.withUnsafeBufferPointer {
                        try pipe.push(RowChunk(firstRow: row, count: count, bytesPerRow: rawRow, pixels: $0.baseAddress!, storage: raw))
                    }
                } catch {
                    break
                }
                row += count
            }
            if row == height, cpng_fast_finish(fast.pointer) != 0 { damaged.withLock { $0 = true } }
            pipe.close()
        }
        // However this ends, the inflating thread is stopped and gone before return
        // (and libdispatch allows one wait per work item).
        var drained = false
        defer {
            if !drained {
                pipe.cancel()
                while pipe.pop() != nil {}
                work.wait()
            }
        }
        while let item = pipe.pop() {
            guard case .rows(let firstRow, let count, _, let raw) = item else { continue }
            var chunk = PixelBuffer.samples(count: stride * count)
            let status = raw.withUnsafeBufferPointer { r in
                chunk.withUnsafeMutableBufferPointer { cpng_fast_unfilter_rows(fast.pointer, r.baseAddress, $0.baseAddress, stride, UInt32(count)) }
            }
            guard status == 0 else { throw libpngError(data) }
            try chunk.withUnsafeBufferPointer {
                try rows(RowChunk(firstRow: firstRow, count: count, bytesPerRow: stride, pixels: $0.baseAddress!, storage: chunk))
            }
        }
        drained = true
        work.wait()
        if damaged.withLock({ $0 }) || cpng_fast_verify(fast.pointer) != 0 { throw libpngError(data) }
    }

    /// What libpng says of a file the fast path found damaged: its strict decode's error.
    private static func libpngError(_ data: [UInt8]) -> Error {
        do {
            _ = try decodeRows(data, options: DecodeOptions(maxPixels: 0), slow: true, begin: { _ in }, rows: { _ in })
        } catch {
            return error
        }
        return DecodeError.invalid(.png, "damaged image data")
    }

    /// libpng's warnings fail the decode under `FailOn.warning`, else are reported;
    /// its remarks on the ICC profile are only reported.
    private static func checkWarnings(_ reader: OpaquePointer, _ options: DecodeOptions, _ info: inout ImageInfo) throws {
        var remark = ShimMessage()
        if remark.with({ cpng_reader_profile_warning(reader, $0, $1) }) != 0 {
            let line = "ICC profile: libpng says \(remark.text)" + (info.iccProfile == nil ? "; not used" : "; kept")
            if !info.warnings.contains(line) { info.warnings.append(line) }
        }
        var first = ShimMessage()
        let count = first.with { cpng_reader_warnings(reader, $0, $1) }
        guard count > 0 else { return }
        let text = first.text + (count > 1 ? " and \(count - 1) more warning\(count > 2 ? "s" : "")" : "")
        guard options.failOn.tolerates(.warning) else {
            throw DecodeError.refusing(.warning("libpng warning: \(text)"), damage: .warning)
        }
        info.warnings.append("libpng warning: \(text)")
    }

    /// libpng holds the stored row and the previous one (for unfiltering) and the
    /// expanded row; Adam7 needs the whole image before any row is final.
    private static func workingBytes(_ raw: cpng_info) -> Int {
        let samples = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][Int(raw.color_type)] ?? 4
        let width = Int(raw.width), height = Int(raw.height), channels = Int(raw.channels)
        let stored = (width * samples * Int(raw.bit_depth) + 7) / 8 + 1
        let rows = 2 * stored + width * channels
        return raw.interlaced != 0 ? rows + width * height * channels : rows
    }

    private static func makeInfo(_ raw: cpng_info) -> ImageInfo {
        let models: [Int: ColorModel] = [0: .gray, 2: .rgb, 3: .palette, 4: .grayAlpha, 6: .rgba]
        var icc: [UInt8]? = nil
        if let p = raw.icc, raw.icc_length > 0 {
            icc = Array(UnsafeBufferPointer(start: p, count: Int(raw.icc_length)))
        }
        func bytes(_ p: UnsafePointer<UInt8>?, _ n: UInt32) -> [UInt8]? {
            guard let p, n > 0 else { return nil }
            return Array(UnsafeBufferPointer(start: p, count: Int(n)))
        }
        let xmp = bytes(raw.xmp, raw.xmp_length)
        let (orientation, exif, warnings) = PNGOrientation.find(exif: bytes(raw.exif, raw.exif_length),
                                                                rawProfile: bytes(raw.raw_exif_text, raw.raw_exif_text_length), xmp: xmp)
        return ImageInfo(format: .png, size: Size(width: Int(raw.width), height: Int(raw.height)),
                         channels: Int(raw.channels), bitDepth: Int(raw.bit_depth),
                         colorModel: models[Int(raw.color_type)] ?? .unknown,
                         orientation: orientation, interlaced: raw.interlaced != 0, iccProfile: icc,
                         exif: exif, xmp: xmp, textCount: Int(raw.texts),
                         frames: max(1, Int(raw.apng_frames)), workingBytes: workingBytes(raw), warnings: warnings)
    }

    /// Encodes 8-bit samples with the buffer's own channels. zlib `compression` 0-9.
    public static func encode(_ image: PixelBuffer, compression: Int = 6, iccProfile: [UInt8]? = nil) throws -> [UInt8] {
        var options = EncodeOptions()
        options.compression = compression
        options.iccProfile = iccProfile
        return try ImageFormat.png.encode(image, options: options)
    }
}
