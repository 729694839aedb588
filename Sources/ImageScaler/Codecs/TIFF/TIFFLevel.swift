/// A reduced-resolution copy of a page stored beside it (a pyramid's level): a later page
/// of the main chain or a SubIFD of the page, marked reduced by NewSubfileType, whose
/// size is the page's divided by `factor` (a power of two), rounded down as libvips and
/// GDAL write levels or up. Decoding it stands in for decoding the page at 1/`factor`,
/// as JPEG's DCT scaling does; its pixels are the writer's own reduction.
struct TIFFLevel: Sendable {
    enum Directory: Equatable, Sendable {
        case page(Int)
        case subIFD(UInt64)
    }

    let factor: Int
    let directory: Directory
    let layout: TIFFLayout

    /// `candidate` as a level of `base`, when it is reduced by a power of two and hands
    /// over rows of the same kind.
    init?(_ candidate: TIFFLayout, reduced: Bool, directory: Directory, of base: TIFFLayout) {
        guard reduced, candidate.channels == base.channels, candidate.colorModel == base.colorModel else { return nil }
        var f = 2
        while f <= 1 << 16 {
            let w = candidate.size.width, h = candidate.size.height
            if (w == base.size.width / f || w == (base.size.width + f - 1) / f) && (h == base.size.height / f || h == (base.size.height + f - 1) / f) {
                factor = f
                self.directory = directory
                layout = candidate
                return
            }
            f *= 2
        }
        return nil
    }

    /// The size a decode at 1/`factor` gives (rounded up, as every shrinking decoder here
    /// rounds): a level rounded down lacks its last column or row, repeated from the one
    /// before it (`widen`).
    func shrunk(_ base: Size) -> Size {
        Size(width: (base.width + factor - 1) / factor, height: (base.height + factor - 1) / factor)
    }

    /// The part of the level that `part` (in `shrunk` coordinates) reads, each of its
    /// pixels at most one row or column past the level's edge taken from that edge.
    func stored(_ part: Rect) -> Rect {
        let size = layout.size
        let x0 = min(part.x, size.width - 1), y0 = min(part.y, size.height - 1)
        return Rect(x: x0, y: y0, width: min(part.maxX, size.width) - x0, height: min(part.maxY, size.height) - y0)
    }

    /// Rows of `stored(part)` as the rows of `part`: columns past the level's edge repeat
    /// its last column, and the level's last row is handed over again for each row of
    /// `part` past it. `rows` gets them in `part`'s own numbering.
    func widen(_ chunk: RowChunk, from source: Rect, to part: Rect, channels: Int, rows: (RowChunk) throws -> Void) throws {
        let width = part.width * channels
        var row = [UInt8](repeating: 0, count: width)
        for i in 0..<chunk.count {
            let y = source.y + chunk.firstRow + i
            let line = chunk.pixels + i * chunk.bytesPerRow
            row.withUnsafeMutableBufferPointer { out in
                let inside = max(0, min(part.maxX, layout.size.width) - part.x)
                if inside > 0 { out.baseAddress!.update(from: line + (part.x - source.x) * channels, count: inside * channels) }
                let edge = line + (layout.size.width - 1 - source.x) * channels
                for x in inside..<part.width {
                    for c in 0..<channels { out[x * channels + c] = edge[c] }
                }
            }
            // Each row of `part` whose source is row y: y itself, and every row past the
            // level's last row when y is that row.
            let first = max(y, part.y), last = y == layout.size.height - 1 ? part.maxY : y + 1
            for target in first..<last {
                try row.withUnsafeBufferPointer {
                    try rows(RowChunk(firstRow: target - part.y, count: 1, bytesPerRow: width, pixels: $0.baseAddress!))
                }
            }
        }
    }
}
