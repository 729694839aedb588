/// netpbm files (PBM, PGM, PPM plain or raw, and PAM) as a `RowDecoder`, in Swift: no
/// library is involved. Rows stream from the raster as they are read, 8-bit: samples of
/// any other `maxval` are scaled to 0-255 rounding to nearest, as netpbm's `pamdepth`
/// does (for 16 bits the same as libpng's scaling); a PBM's 1 bits are black. Depth 2
/// and 4 are straight alpha. A raster that ends early, or a sample above `maxval`, is
/// damage: refused by default, else the rest is black (or the sample clamped).
struct PNMDecoder: RowDecoder {
    let data: [UInt8]
    let header: PNMHeader
    let info: ImageInfo
    let capabilities = DecoderCapabilities()

    private static let rowsPerChunk = 16

    init(_ data: [UInt8]) throws {
        self.data = data
        do {
            header = try PNMHeader.read(data)
        } catch {
            throw DecodeError.invalid(.pnm, error.message)
        }
        let models: [ColorModel] = [.gray, .grayAlpha, .rgb, .rgba]
        info = ImageInfo(format: .pnm, size: Size(width: header.width, height: header.height), channels: header.depth,
                         bitDepth: header.bitDepth, colorModel: models[header.depth - 1], orientation: .up, interlaced: false,
                         iccProfile: nil, exif: nil, xmp: nil,
                         workingBytes: PNMDecoder.rowsPerChunk * header.width * header.depth)
    }

    func decode(region: Rect?, shrink: Int, options: DecodeOptions,
                begin: (DecodedRegion) throws -> Void, rows: (RowChunk) throws -> Void) throws -> ImageInfo {
        var info = self.info
        try options.check(info.size)
        let (width, height, channels) = (header.width, header.height, header.depth)
        let rowBytes = width * channels
        try begin(DecodedRegion(rect: Rect(size: info.size), channels: channels))
        var reader = PNMRowReader(header: header, data: data)
        var chunk = PixelBuffer.samples(count: rowBytes * min(PNMDecoder.rowsPerChunk, height))
        var y = 0
        var damage: (kind: FailOn, what: String, row: Int)? = nil
        while y < height {
            let count = min(PNMDecoder.rowsPerChunk, height - y)
            try chunk.withUnsafeMutableBufferPointer { out in
                for r in 0..<count {
                    let row = UnsafeMutableBufferPointer(rebasing: out[r * rowBytes ..< (r + 1) * rowBytes])
                    if damage?.kind == .truncated {
                        row.update(repeating: 0)
                        continue
                    }
                    if let problem = reader.read(into: row) {
                        guard options.failOn.tolerates(problem.kind) else {
                            throw DecodeError.refusing(.invalid(.pnm, problem.what(y + r, height)), damage: problem.kind)
                        }
                        if damage == nil || problem.kind == .truncated { damage = (problem.kind, problem.what(y + r, height), y + r) }
                    }
                }
                try rows(RowChunk(firstRow: y, count: count, bytesPerRow: rowBytes, pixels: UnsafePointer(out.baseAddress!)))
            }
            y += count
        }
        if let damage {
            let rest = damage.kind == .truncated ? "; \(damage.row) of \(height) rows decoded, the rest left black" : ""
            info.warnings.append("damaged PNM decoded anyway (fail-on \(options.failOn.rawValue)): \(damage.what)\(rest)")
        }
        return info
    }
}
