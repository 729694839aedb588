/// Applies a `BoxReduction` to 16-bit rows as they arrive, top to bottom, so the image
/// it reduces never has to exist whole (a decoder's 8-bit rows can be taken to linear
/// light one at a time on their way in). Straight alpha in and out: colour is averaged
/// weighted by alpha - the premultiplied average, unpremultiplied in one division (the
/// sum of c*a over the sum of a), so no colour is rounded twice - and alpha is the plain
/// mean. Integer sums rounded half up: the same samples on any machine.
package final class RowReducer {
    let reduction: BoxReduction
    let channels: Int
    let size: Size
    private let alpha: Bool
    /// The sums of the block row being filled: Int64 holds 65535^2 x 2^31 pixels.
    private let sums: UnsafeMutablePointer<Int64>
    private var samples: [UInt16]
    /// The block row whose sums `sums` holds, and the rows added to it.
    private var blockRow = 0
    private var rowsIn = 0

    init(_ reduction: BoxReduction, channels: Int) {
        self.reduction = reduction
        self.channels = channels
        size = reduction.reducedSize
        alpha = channels == 2 || channels == 4
        sums = .allocate(capacity: size.width * channels)
        sums.initialize(repeating: 0, count: size.width * channels)
        samples = [UInt16](repeating: 0, count: size.width * size.height * channels)
    }

    deinit { sums.deallocate() }

    /// Takes row `y` of the image (all its columns); rows outside the box are ignored.
    func add(row y: Int, _ row: UnsafePointer<UInt16>) {
        let r = reduction, box = r.box, ch = channels
        guard y >= box.y && y < box.maxY else { return }
        let block = (y - box.y) / r.y
        // Rows come in order; a decoder that skipped some leaves their blocks partial.
        while blockRow < block { emit() }
        guard block == blockRow else { return }
        for ox in 0..<size.width {
            let x0 = box.x + ox * r.x, x1 = min(x0 + r.x, box.maxX)
            let s = sums + ox * ch
            var p = row + x0 * ch
            for _ in x0..<x1 {
                if alpha {
                    let a = Int64(p[ch - 1])
                    for c in 0..<(ch - 1) { s[c] &+= Int64(p[c]) &* a }
                    s[ch - 1] &+= a
                } else {
                    for c in 0..<ch { s[c] &+= Int64(p[c]) }
                }
                p += ch
            }
        }
        rowsIn += 1
        if y + 1 == min(box.y + (block + 1) * r.y, box.maxY) { emit() }
    }

    /// The reduced image. Rows never added count as missing from their blocks' means
    /// (blocks with none stay 0), as a short decode's rows stay 0 in `RowCollector`.
    func finish() -> WideImage {
        while blockRow < size.height { emit() }
        return WideImage(width: size.width, height: size.height, channels: channels, samples: samples)
    }

    private func emit() {
        let r = reduction, ch = channels
        let rows = Int64(max(rowsIn, 1))
        samples.withUnsafeMutableBufferPointer { out in
            let o = out.baseAddress! + blockRow * size.width * ch
            for ox in 0..<size.width {
                let x0 = r.box.x + ox * r.x, n = Int64(min(x0 + r.x, r.box.maxX) - x0) * rows
                let s = sums + ox * ch, d = o + ox * ch
                if alpha {
                    let a = s[ch - 1]
                    for c in 0..<(ch - 1) { d[c] = a > 0 ? UInt16((s[c] + a / 2) / a) : 0 }
                    d[ch - 1] = UInt16((a + n / 2) / n)
                } else {
                    for c in 0..<ch { d[c] = UInt16((s[c] + n / 2) / n) }
                }
            }
        }
        sums.update(repeating: 0, count: size.width * ch)
        blockRow += 1
        rowsIn = 0
    }

    /// `image` reduced whole.
    package static func reduce(_ image: WideImage, _ r: BoxReduction) -> WideImage {
        let reducer = RowReducer(r, channels: image.channels)
        image.samples.withUnsafeBufferPointer { src in
            for y in r.box.y..<r.box.maxY { reducer.add(row: y, src.baseAddress! + y * image.width * image.channels) }
        }
        return reducer.finish()
    }
}
