/// A first palette of at most `limit` colours for a `ColorHistogram`: Heckbert's median cut
/// made greedy in the squared error (as Wu's quantiser): the box of colours whose pixels
/// lie farthest in total from their mean is cut across the channel in which they vary most,
/// where the two halves' errors sum least. Each box's colour is its pixels' rounded mean.
/// Integer sums (their errors compared in double, in a fixed order); ties go to the
/// earlier box and the lower channel (R, G, B, A), and sorts are stable, so the same
/// histogram always gives the same palette.
struct VarianceCut {
    let palette: [UInt32]

    init(_ histogram: ColorHistogram, limit: Int) {
        let n = histogram.colors.count
        var items = Array(0..<n)
        var scratch = [Int](repeating: 0, count: n)
        func channel(_ c: UInt32, _ k: Int) -> Int { Int(c >> (8 * UInt32(k)) & 255) }
        struct Box {
            var range: Range<Int>
            var error: Double
        }
        // Squared error of items[r] about their mean, summed over the four channels.
        func error(_ r: Range<Int>) -> Double {
            var w = 0, s = [0, 0, 0, 0], q = [0, 0, 0, 0]
            for i in r {
                let c = histogram.colors[items[i]], k = histogram.counts[items[i]]
                w += k
                for ch in 0..<4 { let v = channel(c, ch); s[ch] += v * k; q[ch] += v * v * k }
            }
            guard w > 0, r.count > 1 else { return 0 }
            var e = 0.0
            for ch in 0..<4 { e += Double(q[ch]) - Double(s[ch]) * Double(s[ch]) / Double(w) }
            return e
        }
        var boxes = [Box(range: 0..<n, error: error(0..<n))]
        while boxes.count < limit {
            var pick = -1
            for (i, b) in boxes.enumerated() where b.range.count > 1 && b.error > 0 && (pick < 0 || b.error > boxes[pick].error) { pick = i }
            guard pick >= 0 else { break }
            let r = boxes[pick].range
            // The channel of widest spread (count-weighted variance).
            var w = 0, s = [0, 0, 0, 0], q = [0, 0, 0, 0]
            for i in r {
                let c = histogram.colors[items[i]], k = histogram.counts[items[i]]
                w += k
                for ch in 0..<4 { let v = channel(c, ch); s[ch] += v * k; q[ch] += v * v * k }
            }
            var axis = 0, spread = -1.0
            for ch in 0..<4 {
                let v = Double(q[ch]) - Double(s[ch]) * Double(s[ch]) / Double(w)
                if v > spread { spread = v; axis = ch }
            }
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
            var pw = 0, ps = [0, 0, 0, 0], pq = [0, 0, 0, 0]
            var bestCut = r.lowerBound + 1, bestError = Double.infinity
            for i in r.dropLast() {
                let c = histogram.colors[items[i]], k = histogram.counts[items[i]]
                pw += k
                for ch in 0..<4 { let v = channel(c, ch); ps[ch] += v * k; pq[ch] += v * v * k }
                // Only between different values along the axis.
                guard channel(histogram.colors[items[i + 1]], axis) != channel(c, axis) else { continue }
                var e = 0.0
                let rw = w - pw
                for ch in 0..<4 {
                    e += Double(pq[ch]) - Double(ps[ch]) * Double(ps[ch]) / Double(pw)
                    let rs = s[ch] - ps[ch], rq = q[ch] - pq[ch]
                    e += Double(rq) - Double(rs) * Double(rs) / Double(rw)
                }
                if e < bestError { bestError = e; bestCut = i + 1 }
            }
            let left = r.lowerBound..<bestCut, right = bestCut..<r.upperBound
            boxes[pick] = Box(range: left, error: error(left))
            boxes.append(Box(range: right, error: error(right)))
        }
        palette = boxes.map { box in
            var w = 0, s = [0, 0, 0, 0]
            for i in box.range {
                let c = histogram.colors[items[i]], k = histogram.counts[items[i]]
                w += k
                for ch in 0..<4 { s[ch] += channel(c, ch) * k }
            }
            var c: UInt32 = 0
            for ch in 0..<4 { c |= UInt32((s[ch] + w / 2) / w) << (8 * UInt32(ch)) }
            return c
        }
    }
}
