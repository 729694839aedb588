/// A first palette of at most `limit` colours for a `ColorHistogram`: Heckbert's median cut
/// made greedy in the squared error (as Wu's quantiser): the box of colours whose pixels
/// lie farthest in total from their mean is cut across the channel in which they vary most,
/// where the two halves' errors sum least. Each box's colour is its pixels' rounded mean.
/// Integer sums (their errors compared in double, in a fixed order); ties go to the
/// earlier box and the lower channel (R, G, B, A), and sorts are stable, so the same
/// histogram always gives the same palette.
struct VarianceCut {
    let palette: [UInt32]

    /// A box's pixel count and per-channel sums of values and squares: all its error,
    /// spread and mean need. A cut's halves get theirs from the cut's prefix sums.
    private struct Stats {
        var weight = 0
        var sums = [0, 0, 0, 0]
        var squares = [0, 0, 0, 0]

        /// The squared error about the mean, over the four channels (0 for one colour).
        func error(colours: Int) -> Double {
            guard weight > 0, colours > 1 else { return 0 }
            var e = 0.0
            for ch in 0..<4 { e += spread(ch) }
            return e
        }

        func spread(_ ch: Int) -> Double {
            Double(squares[ch]) - Double(sums[ch]) * Double(sums[ch]) / Double(weight)
        }

        mutating func add(_ c: UInt32, count k: Int) {
            weight += k
            for ch in 0..<4 {
                let v = VarianceCut.channel(c, ch)
                sums[ch] += v * k
                squares[ch] += v * v * k
            }
        }

        func minus(_ other: Stats) -> Stats {
            var out = self
            out.weight -= other.weight
            for ch in 0..<4 { out.sums[ch] -= other.sums[ch]; out.squares[ch] -= other.squares[ch] }
            return out
        }
    }

    private struct Box {
        var range: Range<Int>
        var stats: Stats
        var error: Double { stats.error(colours: range.count) }
    }

    static func channel(_ c: UInt32, _ k: Int) -> Int { Int(c >> (8 * UInt32(k)) & 255) }

    init(_ histogram: ColorHistogram, limit: Int) {
        let n = histogram.colors.count
        var items = Array(0..<n)
        var scratch = [Int](repeating: 0, count: n)
        let channel = VarianceCut.channel
        var all = Stats()
        for i in 0..<n { all.add(histogram.colors[i], count: histogram.counts[i]) }
        var boxes = [Box(range: 0..<n, stats: all)]
        while boxes.count < limit {
            var pick = -1, pickError = 0.0
            for (i, b) in boxes.enumerated() {
                let e = b.error
                if b.range.count > 1 && e > 0 && (pick < 0 || e > pickError) { pick = i; pickError = e }
            }
            guard pick >= 0 else { break }
            let r = boxes[pick].range, whole = boxes[pick].stats
            // The channel of widest spread (count-weighted variance).
            var axis = 0, spread = -1.0
            for ch in 0..<4 where whole.spread(ch) > spread { spread = whole.spread(ch); axis = ch }
            // A counting sort along the axis: stable, so the order stays a function of
            // the histogram alone.
            var starts = [Int](repeating: 0, count: 257)
            for i in r { starts[channel(histogram.colors[items[i]], axis) + 1] += 1 }
            for v in 0..<256 { starts[v + 1] += starts[v] }
            for i in r {
                let v = channel(histogram.colors[items[i]], axis)
                scratch[starts[v]] = items[i]
                starts[v] += 1
            }
            for (j, i) in r.enumerated() { items[i] = scratch[j] }
            // The cut minimising the halves' summed error, from prefix sums of all channels.
            var prefix = Stats(), best = Stats()
            var bestCut = r.lowerBound + 1, bestError = Double.infinity
            for i in r.dropLast() {
                let c = histogram.colors[items[i]]
                prefix.add(c, count: histogram.counts[items[i]])
                // Only between different values along the axis.
                guard channel(histogram.colors[items[i + 1]], axis) != channel(c, axis) else { continue }
                let rest = whole.minus(prefix)
                var e = 0.0
                for ch in 0..<4 {
                    e += prefix.spread(ch)
                    e += rest.spread(ch)
                }
                if e < bestError { bestError = e; bestCut = i + 1; best = prefix }
            }
            if bestError == .infinity {
                // No two values differ along the axis: the first item alone, as before.
                best = Stats()
                best.add(histogram.colors[items[r.lowerBound]], count: histogram.counts[items[r.lowerBound]])
            }
            boxes[pick] = Box(range: r.lowerBound..<bestCut, stats: best)
            boxes.append(Box(range: bestCut..<r.upperBound, stats: whole.minus(best)))
        }
        palette = boxes.map { box in
            let w = box.stats.weight
            var c: UInt32 = 0
            for ch in 0..<4 { c |= UInt32((box.stats.sums[ch] + w / 2) / w) << (8 * UInt32(ch)) }
            return c
        }
    }
}
