/// The nearest entry of a palette of premultiplied RGBA colours to any colour, by squared
/// distance over the four channels, ties to the lower index. Entries are kept sorted by
/// the sum of their channels: a colour's distance to an entry is at least half the
/// difference of the sums, so the search walks out from the colour's sum and stops where
/// that bound passes the best distance found.
struct NearestPaletteColor {
    /// Entries as channel quadruples, sorted by `sums`, with their palette indices.
    private let entries: [Int32]
    private let sums: [Int32]
    private let indices: [UInt8]

    init(_ palette: [UInt32]) {
        let order = palette.indices.sorted {
            let (a, b) = (NearestPaletteColor.sum(palette[$0]), NearestPaletteColor.sum(palette[$1]))
            return a != b ? a < b : $0 < $1
        }
        var entries: [Int32] = [], sums: [Int32] = []
        for i in order {
            let c = palette[i]
            entries += [Int32(c & 255), Int32(c >> 8 & 255), Int32(c >> 16 & 255), Int32(c >> 24)]
            sums.append(NearestPaletteColor.sum(c))
        }
        self.entries = entries
        self.sums = sums
        indices = order.map { UInt8($0) }
    }

    static func sum(_ c: UInt32) -> Int32 { Int32(c & 255) + Int32(c >> 8 & 255) + Int32(c >> 16 & 255) + Int32(c >> 24) }

    /// The palette index nearest to (r, g, b, a) - values may lie outside 0-255 (a
    /// dithered colour) - and its squared distance.
    func nearest(_ r: Int32, _ g: Int32, _ b: Int32, _ a: Int32) -> (index: UInt8, distance: Int32) {
        let s = r + g + b + a
        return entries.withUnsafeBufferPointer { e in
            sums.withUnsafeBufferPointer { sm in
                // The first entry whose sum is at least s.
                var lo = 0, hi = sm.count
                while lo < hi {
                    let mid = (lo + hi) / 2
                    if sm[mid] < s { lo = mid + 1 } else { hi = mid }
                }
                // Above any distance of two colours (4 x 1020^2), and 4x it fits an Int32.
                var best: Int32 = 1 << 28, bestAt = 0
                func consider(_ i: Int) {
                    let p = 4 * i
                    let dr = e[p] - r, dg = e[p + 1] - g, db = e[p + 2] - b, da = e[p + 3] - a
                    let d = dr * dr + dg * dg + db * db + da * da
                    if d < best || (d == best && indices[i] < indices[bestAt]) { best = d; bestAt = i }
                }
                var up = lo, down = lo - 1
                while up < sm.count || down >= 0 {
                    if up < sm.count {
                        let gap = sm[up] - s
                        if gap * gap > 4 * best { up = sm.count } else { consider(up); up += 1 }
                    }
                    if down >= 0 {
                        let gap = s - sm[down]
                        if gap * gap > 4 * best { down = -1 } else { consider(down); down -= 1 }
                    }
                }
                return (indices[bestAt], best)
            }
        }
    }
}
