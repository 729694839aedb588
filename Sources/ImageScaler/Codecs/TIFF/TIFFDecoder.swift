import CTIFFShim

/// TIFF through libtiff as a `RowDecoder`: one page (`DecodeOptions.page`), strip by strip or tile row by
/// tile row, so a decode holds one strip (or one row of tiles) besides the rows it hands
/// over, never the image; only the strips and tiles a region touches are read, and a
/// region splits anywhere into halves for two cores. Samples are converted as `TIFFLayout` says; the Orientation
/// tag is the image's orientation; the ICC profile, XMP packet and EXIF (`TIFFExif`) are the page's.
/// `info.images` counts the pages. libtiff's complaints about the directory (a tag it
/// does not know, a count it corrects) are the header's warnings, not damage; only its
/// complaints while decoding the pixels are judged by `failOn`. A pyramid's levels
/// (`TIFFLevel`) are its shrink factors.
struct TIFFDecoder: RowDecoder {
    let data: [UInt8]
    let page: Int
    let layout: TIFFLayout
    let info: ImageInfo
    /// The page's pyramid levels, one a factor, smallest factor first.
    let levels: [TIFFLevel]
    let capabilities: DecoderCapabilities

    init(_ data: [UInt8], options: DecodeOptions) throws {
        self.data = data
        page = options.page
        var icc: [UInt8]? = nil, xmp: [UInt8]? = nil, exif: [UInt8]? = nil
        var found: TIFFLayout? = nil
        var chunkBytes = 0
        var headerWarning: String? = nil
        var foundLevels: [TIFFLevel] = []
        try data.withUnsafeBufferPointer { d in
            let reader = try TIFFReader(d, maxAlloc: options.maxMemory)
            let raw = try reader.page(options.page, countPages: true)
            if let p = raw.icc, raw.icc_length > 0 { icc = Array(UnsafeBufferPointer(start: p, count: Int(raw.icc_length))) }
            if let p = raw.xmp, raw.xmp_length > 0 { xmp = Array(UnsafeBufferPointer(start: p, count: Int(raw.xmp_length))) }
            exif = TIFFExif.block(data, ifd: raw.ifd_offset)
            let base = try TIFFLayout(raw, palette: { reader.palette(entries: $0) })
            // What decoding costs is the samples inflated, not the pixels kept: a page of
            // 2,048 samples a pixel, or strips all pointing at one deflate stream, inflates
            // hundreds of gigabytes from a small file to keep a fraction.
            let decoded = Double(base.size.width) * Double(base.size.height) * Double(base.samples) * Double(base.bits) / 8
            let pixels = Double(base.size.width) * Double(base.size.height)
            // Too many pixels is said as such, by the pixel limit's own check.
            if options.maxPixels > 0, pixels <= Double(options.maxPixels), decoded > Double(options.maxPixels) * 16 {
                throw DecodeError.invalid(.tiff, "it would inflate \(MemoryBudget.describe(Int(min(decoded, 1e18)))) of samples (\(base.size), \(base.samples) of \(base.bits) bits a pixel), over 16 bytes for each pixel the limit allows (raise it with --max-pixels)")
            }
            if reader.sharesChunks {
                throw DecodeError.invalid(.tiff, "two of its \(base.tile == nil ? "strips" : "tiles") start at one offset, so one compressed stream would be inflated again for each; refusing it")
            }
            found = base
            chunkBytes = reader.chunkSize
            // Private tags (GDAL's, scanners') are everywhere and change nothing imgscale reads.
            headerWarning = reader.warning.flatMap { $0.hasPrefix("Unknown field with tag") ? nil : $0 }
            // Levels: the page's SubIFDs, then the reduced pages after it (at most 16
            // looked at); a directory that cannot be read is no level.
            func level(_ raw: ctiff_info, _ directory: TIFFLevel.Directory) -> TIFFLevel? {
                (try? TIFFLayout(raw, palette: { reader.palette(entries: $0) })).flatMap {
                    TIFFLevel($0, reduced: raw.reduced != 0, directory: directory, of: base)
                }
            }
            for offset in TIFFReader.subIFDs(raw) {
                if let sub = try? reader.subIFD(offset), let l = level(sub, .subIFD(offset)) { foundLevels.append(l) }
            }
            for next in (options.page + 1)..<min(Int(raw.pages), options.page + 17) {
                guard let p = try? reader.page(next), p.reduced != 0 else { break }
                if let l = level(p, .page(next)) { foundLevels.append(l) }
            }
        }
        // Invariant: set above, or the closure threw.
        let layout = found!
        self.layout = layout
        var byFactor: [Int: TIFFLevel] = [:]
        for l in foundLevels where byFactor[l.factor] == nil { byFactor[l.factor] = l }
        levels = byFactor.values.sorted { $0.factor < $1.factor }
        capabilities = DecoderCapabilities(shrinkFactors: [1] + levels.map(\.factor), decodesRegions: true, splitsRegions: true)
        info = ImageInfo(format: .tiff, size: layout.size, channels: layout.reportedChannels, bitDepth: layout.bits,
                         colorModel: layout.colorModel, orientation: layout.orientation, interlaced: false,
                         iccProfile: icc, exif: exif, xmp: xmp, images: layout.pages,
                         // A strip or tile of each plane (and their interleaving), and
                         // the converted rows of one strip or one row of tiles.
                         workingBytes: Int.saturatingSum(.saturatingProduct(chunkBytes, layout.planes, layout.planes > 1 ? 2 : 1),
                                                         .saturatingProduct(layout.tile?.height ?? layout.rowsPerStrip, layout.size.width, layout.channels)),
                         warnings: headerWarning.map { ["TIFF header: \($0)"] } ?? [])
    }

    func decode(region: Rect?, shrink: Int, options: DecodeOptions,
                begin: (DecodedRegion) throws -> Void, rows: (RowChunk) throws -> Void) throws -> ImageInfo {
        try options.check(info.size)
        guard shrink > 1, let level = levels.first(where: { $0.factor == shrink }) else {
            return try decode(part: try clipped(region), options: options, begin: begin, rows: rows)
        }
        let part = try clipped(region, within: level.shrunk(layout.size))
        let stored = level.stored(part)
        guard stored != part else { return try decode(part: part, level: level, options: options, begin: begin, rows: rows) }
        try begin(DecodedRegion(rect: part, channels: layout.channels, cmykInverted: layout.model == .cmyk ? false : nil))
        return try decode(part: stored, level: level, options: options, begin: { _ in }) {
            try level.widen($0, from: stored, to: part, channels: layout.channels, rows: rows)
        }
    }

    /// Strips (or tiles) decode on their own, so a region splits anywhere: each half
    /// opens its own handle, and a strip both halves touch is decoded by both.
    func halves(of region: Rect, shrink: Int, options: DecodeOptions, split: Int, overlap: Int) -> RegionHalves? {
        guard shrink == 1, let region = try? clipped(region), split - overlap >= region.y, split < region.maxY, overlap >= 0 else { return nil }
        let top = Rect(x: region.x, y: region.y, width: region.width, height: split - region.y)
        let bottom = Rect(x: region.x, y: split - overlap, width: region.width, height: region.maxY - (split - overlap))
        let decoder = self
        return RegionHalves(top: top, bottom: bottom,
                            decodeTop: { try decoder.decode(part: top, options: options, begin: $0, rows: $1) },
                            decodeBottom: { try decoder.decode(part: bottom, options: options, begin: $0, rows: $1) })
    }

    /// `region` within the image (all of it when nil); a region outside it is refused as
    /// a crop outside the image is.
    private func clipped(_ region: Rect?, within size: Size? = nil) throws -> Rect {
        let size = size ?? layout.size, whole = Rect(size: size)
        guard let region else { return whole }
        guard let inside = region.intersection(whole) else { throw GeometryError.emptyIntersection(region, .topLeft, size) }
        return inside
    }

    /// The page at 16 bits, for 16-bit gray or RGB; nil for the rest (8 bits hold them).
    func decodeWide(options: DecodeOptions) throws -> (WideImage, ImageInfo)? {
        guard layout.convertsWide else { return nil }
        try options.check(info.size)
        let (width, height, channels) = (layout.size.width, layout.size.height, layout.channels)
        var samples = [UInt16](repeating: 0, count: width * height * channels)
        let info = try samples.withUnsafeMutableBytes { all in
            try decode(part: Rect(size: layout.size), options: options, wide: true, begin: { _ in }) { chunk in
                (all.baseAddress! + chunk.firstRow * width * channels * 2).copyMemory(from: chunk.pixels, byteCount: chunk.count * chunk.bytesPerRow)
            }
        }
        return (WideImage(width: width, height: height, channels: channels, samples: samples), info)
    }

    /// The rows and columns of `part`, read from the strips or tiles that hold them; with
    /// `wide`, as 16-bit samples (native order) for a layout that `convertsWide`.
    private func decode(part: Rect, level: TIFFLevel? = nil, options: DecodeOptions, wide: Bool = false,
                        begin: (DecodedRegion) throws -> Void, rows: (RowChunk) throws -> Void) throws -> ImageInfo {
        var info = self.info
        let layout = level?.layout ?? self.layout
        let width = layout.size.width, height = layout.size.height
        let out = layout.channels, sampleBytes = wide ? 2 : 1, outRow = part.width * out * sampleBytes
        /// Stored pixels `x0..<x0 + count` of row `src` as output pixels at `dst`.
        func put(_ src: UnsafePointer<UInt8>, from x0: Int, width count: Int, into dst: UnsafeMutablePointer<UInt8>) {
            guard wide else { return layout.convert(src, from: x0, width: count, into: dst) }
            layout.convertWide(src, from: x0, width: count, into: UnsafeMutableRawPointer(dst).assumingMemoryBound(to: UInt16.self))
        }
        try begin(DecodedRegion(rect: part, channels: out, cmykInverted: layout.model == .cmyk ? false : nil))
        try data.withUnsafeBufferPointer { d in
            let reader = try TIFFReader(d, maxAlloc: options.maxMemory)
            switch level?.directory {
            case nil: _ = try reader.page(page)
            case .page(let p): _ = try reader.page(p)
            case .subIFD(let offset):
                _ = try reader.page(page)
                _ = try reader.subIFD(offset)
            }
            reader.forgetWarnings()
            let chunkSize = reader.chunkSize
            guard chunkSize > 0 else { throw DecodeError.invalid(.tiff, "a strip or tile of no bytes") }
            let planes = layout.planes, perPlane = reader.chunks / planes
            var chunks = (0..<planes).map { _ in [UInt8](repeating: 0, count: chunkSize) }
            var joined = planes > 1 ? [UInt8](repeating: 0, count: chunkSize * planes) : []
            // Chunk `index` of every plane, `rows` rows `across` pixels wide as stored
            // with a pixel's samples together: what `body` reads.
            func fetch(_ index: Int, rows: Int, across: Int, _ body: (UnsafePointer<UInt8>) throws -> Void) throws {
                let stored = rows * layout.rowBytes(across) / planes
                for k in 0..<planes {
                    let got = try chunks[k].withUnsafeMutableBufferPointer { try reader.read(k * perPlane + index, into: $0) }
                    guard got >= stored else {
                        throw DecodeError.invalid(.tiff, "\(layout.tile == nil ? "strip" : "tile") \(k * perPlane + index) holds \(got) bytes, not the \(stored) of its rows")
                    }
                }
                guard planes > 1 else { return try chunks[0].withUnsafeBufferPointer { try body($0.baseAddress!) } }
                withPointers(chunks) { ps in
                    joined.withUnsafeMutableBufferPointer { layout.interleave(ps, rows: rows, width: across, into: $0.baseAddress!) }
                }
                try joined.withUnsafeBufferPointer { try body($0.baseAddress!) }
            }
            if let tile = layout.tile {
                let across = (width + tile.width - 1) / tile.width
                let tileRow = layout.rowBytes(tile.width)
                var band = PixelBuffer.samples(count: tile.height * outRow)
                for ty in (part.y / tile.height)...((part.maxY - 1) / tile.height) {
                    let y0 = max(part.y, ty * tile.height), y1 = min(part.maxY, (ty + 1) * tile.height)
                    for tx in (part.x / tile.width)...((part.maxX - 1) / tile.width) {
                        let x0 = max(part.x, tx * tile.width), x1 = min(part.maxX, (tx + 1) * tile.width)
                        // A tile is whole even at the image's edge: every row of it is read.
                        try fetch(ty * across + tx, rows: tile.height, across: tile.width) { c in
                            band.withUnsafeMutableBufferPointer { b in
                                for y in y0..<y1 {
                                    put(c + (y - ty * tile.height) * tileRow, from: x0 - tx * tile.width, width: x1 - x0,
                                        into: b.baseAddress! + (y - y0) * outRow + (x0 - part.x) * out * sampleBytes)
                                }
                            }
                        }
                    }
                    try band.withUnsafeBufferPointer {
                        try rows(RowChunk(firstRow: y0 - part.y, count: y1 - y0, bytesPerRow: outRow, pixels: $0.baseAddress!))
                    }
                }
            } else {
                let per = layout.rowsPerStrip, stored = layout.rowBytes(width)
                // Rows stored as they are handed over go without a copy.
                let asStored = !wide && layout.isStoredAsDecoded && part.x == 0 && part.width == width
                var converted = asStored ? [] : PixelBuffer.samples(count: per * outRow)
                for s in (part.y / per)...((part.maxY - 1) / per) {
                    let top = s * per, rowsHere = min(per, height - top)
                    let y0 = max(part.y, top), y1 = min(part.maxY, top + rowsHere)
                    try fetch(s, rows: rowsHere, across: width) { c in
                        if asStored {
                            return try rows(RowChunk(firstRow: y0 - part.y, count: y1 - y0, bytesPerRow: stored, pixels: c + (y0 - top) * stored))
                        }
                        // A new array each strip, handed over: a consumer on another
                        // thread keeps it instead of copying it (a 40000-wide TIFF's strips
                        // were copied twice, 5% of its time each).
                        if s > part.y / per { converted = PixelBuffer.samples(count: per * outRow) }
                        converted.withUnsafeMutableBufferPointer { o in
                            for y in y0..<y1 {
                                put(c + (y - top) * stored, from: part.x, width: part.width, into: o.baseAddress! + (y - y0) * outRow)
                            }
                        }
                        try converted.withUnsafeBufferPointer {
                            try rows(RowChunk(firstRow: y0 - part.y, count: y1 - y0, bytesPerRow: outRow, pixels: $0.baseAddress!,
                                              storage: converted))
                        }
                    }
                }
            }
            if let w = reader.warning {
                guard options.failOn.tolerates(.warning) else { throw DecodeError.refusing(.invalid(.tiff, w), damage: .warning) }
                if !info.warnings.contains(w) { info.warnings.append(w) }
            }
        }
        return info
    }
}

/// `arrays`' base addresses, valid inside `body` only.
private func withPointers<R>(_ arrays: [[UInt8]], _ body: ([UnsafePointer<UInt8>]) throws -> R) rethrows -> R {
    var pointers: [UnsafePointer<UInt8>] = []
    func nest(_ i: Int) throws -> R {
        guard i < arrays.count else { return try body(pointers) }
        return try arrays[i].withUnsafeBufferPointer { p in
            pointers.append(p.baseAddress!)
            return try nest(i + 1)
        }
    }
    return try nest(0)
}
