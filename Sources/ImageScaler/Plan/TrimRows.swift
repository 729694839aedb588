/// The 3x3 median test of `TrimFinder`, a row at a time: per band, whether a sample
/// is over or under the background by more than the threshold, summed across each
/// row's 3 neighbours, kept for the last 3 rows; a row is decided once the next has
/// come (the last against itself, as edges repeat). Holds 6 rows of counts a band,
/// never the picture.
struct TrimRows {
    let width: Int, height: Int, channels: Int, bands: Int, alpha: Bool
    let background: [Int]
    let step: Int
    /// [kind * bands + band][slot] of horizontal sums; slot = row % 3.
    var sums: [[[UInt8]]]
    var flags: [UInt8]
    private(set) var rows = 0
    var box: (x0: Int, y0: Int, x1: Int, y1: Int)

    init(width: Int, height: Int, channels: Int, corner: [Int], options: TrimFinder.Options) {
        self.width = width
        self.height = height
        self.channels = channels
        bands = channels >= 3 ? 3 : 1
        alpha = channels == 2 || channels == 4
        var bg = [Int](repeating: 255, count: bands)
        if let color = options.color {
            bg = bands == 3 ? [Int(color.red), Int(color.green), Int(color.blue)]
                : [(Int(color.red) * 19595 + Int(color.green) * 38470 + Int(color.blue) * 7471 + 0x8000) >> 16]
        } else {
            // The corner flattened onto white, as TrimFinder takes it.
            let a = alpha ? corner[channels - 1] : 255
            for b in 0..<bands { bg[b] = alpha ? (corner[b] * a + 255 * (255 - a) + 127) / 255 : corner[b] }
        }
        background = bg
        step = options.threshold >= 255 ? 256 : Int(options.threshold.rounded(.down)) + 1
        sums = [[[UInt8]]](repeating: [[UInt8]](repeating: [UInt8](repeating: 0, count: width), count: 3), count: 2 * bands)
        flags = [UInt8](repeating: 0, count: width)
        box = (width, height, -1, -1)
    }

    mutating func add(_ row: UnsafePointer<UInt8>) {
        let slot = rows % 3
        for b in 0..<bands {
            let bg = background[b], high = bg + step, low = bg - step
            for kind in 0..<2 {
                for x in 0..<width {
                    var v = Int(row[x * channels + b])
                    if alpha {
                        let a = Int(row[x * channels + channels - 1])
                        v = (v * a + bg * (255 - a) + 127) / 255
                    }
                    flags[x] = (kind == 0 ? v >= high : v <= low) ? 1 : 0
                }
                flags.withUnsafeBufferPointer { f in
                    sums[kind * bands + b][slot].withUnsafeMutableBufferPointer { s in
                        s[0] = f[0] &+ f[0] &+ f[min(width - 1, 1)]
                        if width > 2 { for x in 1..<(width - 1) { s[x] = f[x - 1] &+ f[x] &+ f[x + 1] } }
                        if width > 1 { s[width - 1] = f[width - 2] &+ f[width - 1] &+ f[width - 1] }
                    }
                }
            }
        }
        rows += 1
        if rows >= 2 { decide(rows - 2, down: rows - 1) }
    }

    /// The box in stored pixels, nil when every pixel is border.
    mutating func finish() -> Rect? {
        decide(rows - 1, down: rows - 1)
        return box.x1 < 0 ? nil : Rect(x: box.x0, y: box.y0, width: box.x1 - box.x0 + 1, height: box.y1 - box.y0 + 1)
    }

    private mutating func decide(_ y: Int, down: Int) {
        let (up, here, below) = (max(0, y - 1) % 3, y % 3, down % 3)
        var first = width, last = -1
        for set in sums {
            let (a, b, c) = (set[up], set[here], set[below])
            for x in 0..<width where a[x] &+ b[x] &+ c[x] >= 5 {
                first = min(first, x)
                last = max(last, x)
                break
            }
            if first == 0 && last == width - 1 { break }
            for x in stride(from: width - 1, to: last, by: -1) where a[x] &+ b[x] &+ c[x] >= 5 {
                last = x
                break
            }
        }
        guard last >= 0 else { return }
        box = (min(box.x0, first), min(box.y0, y), max(box.x1, last), max(box.y1, y))
    }
}
