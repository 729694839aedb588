/// A palette of at most `limit` colours for RGB pixels, deterministic and in integer
/// arithmetic: the colours themselves, in order of first appearance, when there are
/// that few; else Heckbert's median cut over a histogram of 5 bits a channel (the box
/// with the most pixels among those that can split is cut across its longest side at
/// the pixel median; ties go to the earlier box, the lower axis), each box's colour the
/// rounded mean of its pixels. `index(of:)` maps a colour to its entry; no dithering.
struct MedianCut {
    /// RGB, 3 bytes an entry.
    let palette: [UInt8]
    private let exact: [UInt32: UInt8]?
    private let bins: [UInt8]

    /// The palette of the pixels of `rgba` (4 bytes each) whose alpha is at least 128.
    init(rgba: UnsafeBufferPointer<UInt8>, limit: Int) {
        var seen: [UInt32: UInt8] = [:], order: [UInt8] = []
        var counts = [Int](repeating: 0, count: 32768)
        var overflowed = false
        for p in stride(from: 0, to: rgba.count, by: 4) where rgba[p + 3] >= 128 {
            let (r, g, b) = (rgba[p], rgba[p + 1], rgba[p + 2])
            counts[Int(r >> 3) << 10 | Int(g >> 3) << 5 | Int(b >> 3)] += 1
            guard !overflowed else { continue }
            let key = UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)
            if seen[key] == nil {
                if seen.count == limit { overflowed = true; continue }
                seen[key] = UInt8(seen.count)
                order += [r, g, b]
            }
        }
        guard overflowed else {
            palette = order
            exact = seen
            bins = []
            return
        }
        exact = nil
        // Boxes of bins, each lo...hi on the three 5-bit axes (SIMD3: no allocation in
        // the loops below, which visit every bin of a box).
        var boxes: [Box] = [MedianCut.shrink(lo: SIMD3(0, 0, 0), hi: SIMD3(31, 31, 31), counts)]
        while boxes.count < limit {
            var chosen: Int? = nil
            for i in boxes.indices where boxes[i].lo != boxes[i].hi {
                if chosen == nil || boxes[i].count > boxes[chosen!].count { chosen = i }
            }
            guard let k = chosen else { break }
            let box = boxes[k]
            var axis = 0
            for a in 1..<3 where box.hi[a] - box.lo[a] > box.hi[axis] - box.lo[axis] { axis = a }
            // The plane below which half the box's pixels lie (never its last).
            var below = 0, cut = box.lo[axis]
            for v in box.lo[axis]..<box.hi[axis] {
                var lo = box.lo, hi = box.hi
                lo[axis] = v
                hi[axis] = v
                below += MedianCut.count(lo: lo, hi: hi, counts)
                cut = v
                if 2 * below >= box.count { break }
            }
            var firstHi = box.hi, secondLo = box.lo
            firstHi[axis] = cut
            secondLo[axis] = cut + 1
            boxes[k] = MedianCut.shrink(lo: box.lo, hi: firstHi, counts)
            boxes.insert(MedianCut.shrink(lo: secondLo, hi: box.hi, counts), at: k + 1)
        }
        var colours: [UInt8] = [], table = [UInt8](repeating: 0, count: 32768)
        // The mean of a box's pixels, from the bins' centres weighted by their counts.
        for (n, box) in boxes.enumerated() {
            var sum = SIMD3<Int>(0, 0, 0), total = 0
            for r in box.lo[0]...box.hi[0] { for g in box.lo[1]...box.hi[1] { for b in box.lo[2]...box.hi[2] {
                let c = counts[r << 10 | g << 5 | b]
                table[r << 10 | g << 5 | b] = UInt8(n)
                guard c > 0 else { continue }
                total += c
                sum &+= c &* SIMD3(r << 3 | 4, g << 3 | 4, b << 3 | 4)
            } } }
            for a in 0..<3 { colours.append(UInt8(min(255, total == 0 ? 0 : (2 * sum[a] + total) / (2 * total)))) }
        }
        palette = colours
        bins = table
    }

    private struct Box {
        let lo: SIMD3<Int>
        let hi: SIMD3<Int>
        let count: Int
    }

    func index(of r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt8 {
        if let exact { return exact[UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)] ?? 0 }
        return bins[Int(r >> 3) << 10 | Int(g >> 3) << 5 | Int(b >> 3)]
    }

    private static func count(lo: SIMD3<Int>, hi: SIMD3<Int>, _ counts: [Int]) -> Int {
        var n = 0
        counts.withUnsafeBufferPointer { c in
            for r in lo[0]...hi[0] { for g in lo[1]...hi[1] { for b in lo[2]...hi[2] { n += c[r << 10 | g << 5 | b] } } }
        }
        return n
    }

    /// The box narrowed to the bins that hold pixels (kept whole when it holds none).
    private static func shrink(lo: SIMD3<Int>, hi: SIMD3<Int>, _ counts: [Int]) -> Box {
        var minimum = SIMD3<Int>(31, 31, 31), maximum = SIMD3<Int>(0, 0, 0), total = 0
        counts.withUnsafeBufferPointer { c in
            for r in lo[0]...hi[0] { for g in lo[1]...hi[1] { for b in lo[2]...hi[2] where c[r << 10 | g << 5 | b] > 0 {
                total += c[r << 10 | g << 5 | b]
                let here = SIMD3(r, g, b)
                minimum = pointwiseMin(minimum, here)
                maximum = pointwiseMax(maximum, here)
            } } }
        }
        return total == 0 ? Box(lo: lo, hi: hi, count: 0) : Box(lo: minimum, hi: maximum, count: total)
    }
}
