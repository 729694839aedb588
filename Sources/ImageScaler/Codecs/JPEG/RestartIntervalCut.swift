import Glibc

/// A smaller baseline JPEG holding only the restart intervals of another that cover a
/// region, cut from the compressed bytes without decoding them. Huffman decoding is
/// sequential, so libjpeg must decode every MCU left of a crop and above a skip; but
/// restart markers (which many cameras write) reset the decoder at byte boundaries,
/// and the intervals outside the region can simply be left out. `origin` is where the
/// cut's top-left pixel sits in the original, in full-size pixels: a multiple of the
/// MCU size, so it stays integral under libjpeg's 1/2, 1/4 and 1/8 scaling.
///
/// Each interval is decoded on its own by libjpeg (the DC predictors restart), so the
/// cut's pixels equal the original's except next to a cut edge, where fancy upsampling
/// has no neighbour; callers keep `margin` pixels between their region and the cut.
package struct RestartIntervalCut {
    package let data: [UInt8]
    package let originX: Int
    package let originY: Int
    /// The original's size, which the cut's header no longer says.
    package let fullSize: Size

    /// The cut covering full-size pixels `region` plus `margin` on every side, or nil
    /// when `jpeg` cannot be cut (progressive, arithmetic, no restart markers, intervals
    /// that wrap across MCU rows, anything unexpected in the entropy-coded data, or a
    /// truncated file) or when the cut would keep every interval anyway. Nil means:
    /// decode the original, which reports any damage in libjpeg's words.
    package init?(_ jpeg: [UInt8], region: Rect, margin: Int) {
        guard let cut = Index(jpeg)?.cut(region, margin: margin) else { return nil }
        self = cut
    }

    private init(data: [UInt8], originX: Int, originY: Int, fullSize: Size) {
        self.data = data
        self.originX = originX
        self.originY = originY
        self.fullSize = fullSize
    }

    /// What the header says: the frame, the restart interval and where the scan's
    /// entropy-coded data starts.
    fileprivate struct Frame {
        var sofOffset = 0  // the SOF segment's first byte after its length
        var width = 0, height = 0
        var mcuWidth = 8, mcuHeight = 8
        var components = 0
        var restartInterval = 0
        var scanStart = 0
    }

    private static func be16(_ d: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int {
        Int(d[i]) << 8 | Int(d[i + 1])
    }

    private static func readFrame(_ d: UnsafeBufferPointer<UInt8>) -> Frame? {
        guard d.count > 4, d[0] == 0xFF, d[1] == 0xD8 else { return nil }
        var frame = Frame()
        var i = 2
        while true {
            guard i + 4 <= d.count, d[i] == 0xFF else { return nil }
            let marker = d[i + 1]
            if marker == 0xFF { i += 1; continue }  // fill byte before a marker
            let length = be16(d, i + 2)
            let body = i + 4
            guard length >= 2, i + 2 + length <= d.count else { return nil }
            switch marker {
            case 0xC0, 0xC1:  // Huffman, sequential: the only kind this can cut
                guard frame.components == 0, length >= 8, d[body] == 8 else { return nil }
                frame.sofOffset = body
                frame.height = be16(d, body + 1)
                frame.width = be16(d, body + 3)
                frame.components = Int(d[body + 5])
                guard frame.width > 0, frame.height > 0, frame.components > 0,
                      length >= 8 + 3 * frame.components else { return nil }
                var hMax = 1, vMax = 1
                for c in 0..<frame.components {
                    let factors = d[body + 7 + 3 * c]
                    hMax = max(hMax, Int(factors >> 4))
                    vMax = max(vMax, Int(factors & 15))
                }
                // A one-component scan is not interleaved: its MCU is a single block.
                if frame.components > 1 {
                    frame.mcuWidth = 8 * hMax
                    frame.mcuHeight = 8 * vMax
                }
            case 0xC2...0xCF where marker != 0xC4 && marker != 0xC8:
                return nil  // progressive, lossless, hierarchical or arithmetic
            case 0xDD:
                guard length == 4 else { return nil }
                frame.restartInterval = be16(d, body)
            case 0xDA:
                guard frame.components > 0, length >= 3, Int(d[body]) == frame.components else { return nil }
                frame.scanStart = i + 2 + length
                return frame.restartInterval > 0 ? frame : nil
            case 0xD0...0xD9, 0x01:
                return nil  // no standalone markers belong in a header
            default:
                break
            }
            i += 2 + length
        }
    }

    /// A cuttable file's layout, for cutting it more than once (every decode pass and
    /// half of one input shares it): the frame is read at once (cheap, and enough to
    /// rule most files out); where every interval starts and ends is found by the first
    /// cut that leaves some out, under a lock, and kept.
    package final class Index: Sendable {
        let jpeg: [UInt8]
        fileprivate let f: Frame
        fileprivate let mcuRows: Int
        fileprivate let perRow: Int
        fileprivate let intervalWidth: Int
        /// nil until scanned; then the bounds, or nil when the scan found the file damaged.
        private let scanned = Locked<[Int]??>(nil)

        package init?(_ jpeg: [UInt8]) {
            guard let f = jpeg.withUnsafeBufferPointer({ readFrame($0) }) else { return nil }
            let mcusPerRow = (f.width + f.mcuWidth - 1) / f.mcuWidth
            // Only intervals that tile each MCU row can be cut out as columns.
            guard mcusPerRow % f.restartInterval == 0 else { return nil }
            self.jpeg = jpeg
            self.f = f
            mcuRows = (f.height + f.mcuHeight - 1) / f.mcuHeight
            perRow = mcusPerRow / f.restartInterval
            intervalWidth = f.restartInterval * f.mcuWidth
        }

        /// See `RestartIntervalCut.init(_:region:margin:)`.
        package func cut(_ region: Rect, margin: Int) -> RestartIntervalCut? {
            jpeg.withUnsafeBufferPointer { d in span(region, margin, d).map { RestartIntervalCut.make(d, self, $0, bounds: $1) } }
        }

        /// Whether `cut(region, margin:)` gives a cut, found without copying any bytes, so
        /// the copying can be left to the thread that decodes the cut.
        func cuts(_ region: Rect, margin: Int) -> Bool {
            jpeg.withUnsafeBufferPointer { span(region, margin, $0) != nil }
        }

        /// The intervals' columns and MCU rows covering `region` plus `margin`, with every
        /// interval's bounds; nil when the region misses the image, covers every interval,
        /// or the file is damaged.
        private func span(_ region: Rect, _ margin: Int, _ d: UnsafeBufferPointer<UInt8>)
            -> (span: (c0: Int, c1: Int, r0: Int, r1: Int), bounds: [Int])? {
            guard let span = cover(region, margin), (span.c1 - span.c0) * (span.r1 - span.r0) < perRow * mcuRows,
                  let bounds = bounds(d) else { return nil }
            return (span, bounds)
        }

        /// The interval columns `c0 ..< c1` and MCU rows `r0 ..< r1` that `region` plus
        /// `margin`, clipped to the image, touches; nil when it misses the image.
        private func cover(_ region: Rect, _ margin: Int) -> (c0: Int, c1: Int, r0: Int, r1: Int)? {
            let x0 = max(0, region.x - margin), y0 = max(0, region.y - margin)
            let x1 = min(f.width, region.maxX + margin), y1 = min(f.height, region.maxY + margin)
            guard x1 > x0, y1 > y0 else { return nil }
            return (x0 / intervalWidth, (x1 + intervalWidth - 1) / intervalWidth, y0 / f.mcuHeight, (y1 + f.mcuHeight - 1) / f.mcuHeight)
        }

        /// The file's size, which its cuts' headers no longer say.
        var fullSize: Size { Size(width: f.width, height: f.height) }

        /// Rows per MCU row: the steps a cut's rows come in.
        package var mcuHeight: Int { f.mcuHeight }

        /// The row (full size, an MCU row's top) just below the MCU row in which the
        /// compressed bytes of the intervals under `region` pass half their total; nil
        /// when the file is damaged or `region` misses it.
        package func balancedRow(_ region: Rect) -> Int? {
            guard let (c0, c1, r0, r1) = cover(region, 0), let bounds = jpeg.withUnsafeBufferPointer({ self.bounds($0) }) else {
                return nil
            }
            let rowBytes = (r0..<r1).map { r in (c0..<c1).reduce(0) { $0 + bounds[2 * (r * perRow + $1) + 1] - bounds[2 * (r * perRow + $1)] } }
            let total = rowBytes.reduce(0, +)
            var sum = 0
            for (i, bytes) in rowBytes.enumerated() {
                sum += bytes
                if 2 * sum >= total { return (r0 + i + 1) * f.mcuHeight }
            }
            return nil
        }

        fileprivate func bounds(_ d: UnsafeBufferPointer<UInt8>) -> [Int]? {
            scanned.withLock { scanned in
                if let scanned { return scanned }
                let count = perRow * mcuRows
                // Each interval but the last ends in a two-byte marker: a header claiming more
                // than the file can hold is refused before anything is allocated for them.
                let found = count <= (d.count - f.scanStart) / 2 + 1 ? intervalBounds(d, from: f.scanStart, count: count) : nil
                scanned = .some(found)
                return found
            }
        }
    }

    private static func make(_ d: UnsafeBufferPointer<UInt8>, _ index: Index, _ span: (c0: Int, c1: Int, r0: Int, r1: Int),
                             bounds: [Int]) -> RestartIntervalCut {
        let f = index.f, mcuRows = index.mcuRows, perRow = index.perRow, intervalWidth = index.intervalWidth
        let (c0, c1, r0, r1) = span
        var out: [UInt8] = []
        out.reserveCapacity(d.count)
        out.append(contentsOf: UnsafeBufferPointer(rebasing: d[0..<f.scanStart]))
        let newWidth = c1 == perRow ? f.width - c0 * intervalWidth : (c1 - c0) * intervalWidth
        let newHeight = r1 == mcuRows ? f.height - r0 * f.mcuHeight : (r1 - r0) * f.mcuHeight
        out[f.sofOffset + 1] = UInt8(newHeight >> 8)
        out[f.sofOffset + 2] = UInt8(newHeight & 0xFF)
        out[f.sofOffset + 3] = UInt8(newWidth >> 8)
        out[f.sofOffset + 4] = UInt8(newWidth & 0xFF)
        var written = 0
        for r in r0..<r1 {
            for c in c0..<c1 {
                if written > 0 {
                    // Markers count 0-7 from the scan's start; renumber for the new order.
                    out.append(0xFF)
                    out.append(0xD0 + UInt8((written - 1) & 7))
                }
                let k = r * perRow + c
                out.append(contentsOf: UnsafeBufferPointer(rebasing: d[bounds[2 * k]..<bounds[2 * k + 1]]))
                written += 1
            }
        }
        out.append(0xFF)
        out.append(0xD9)
        return RestartIntervalCut(data: out, originX: c0 * intervalWidth, originY: r0 * f.mcuHeight, fullSize: index.fullSize)
    }

    /// Start and end offsets of the `count` intervals of the scan starting at `start`, or
    /// nil unless they are separated by RST0-7 in sequence and the last ends at EOI.
    private static func intervalBounds(_ d: UnsafeBufferPointer<UInt8>, from start: Int, count: Int) -> [Int]? {
        var bounds = [Int](repeating: 0, count: 2 * count)
        guard let base = d.baseAddress else { return nil }
        var p = start
        var k = 0
        bounds[0] = start
        while k < count {
            // Entropy-coded data escapes 0xFF as FF 00, so every other FF starts a marker.
            guard p < d.count, let hit = memchr(base + p, 0xFF, d.count - p) else { return nil }
            let q = UnsafeRawPointer(hit).assumingMemoryBound(to: UInt8.self) - base
            guard q + 1 < d.count else { return nil }
            let next = d[q + 1]
            if next == 0x00 || next == 0xFF { p = q + 1 + (next == 0 ? 1 : 0); continue }
            let expected: UInt8 = k == count - 1 ? 0xD9 : 0xD0 + UInt8(k & 7)
            guard next == expected else { return nil }
            bounds[2 * k + 1] = q
            k += 1
            p = q + 2
            if k < count { bounds[2 * k] = p }
        }
        return bounds
    }
}
