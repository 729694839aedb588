/// One line's box blur, as Pillow's `ImagingLineBoxBlur` makes it: each sample the sum of
/// the 2r + 1 around it weighted `ww` plus its two far neighbours weighted `fw`, in 24-bit
/// fixed point, the first and last samples repeated past the ends. Pillow keeps a running
/// sum with a branch for each edge case; the sum is exact integer arithmetic, so the line
/// is padded with its edge samples once and summed without branches, to the same bytes.
struct BoxLine {
    let radius: Int
    let ww: UInt32
    let fw: UInt32
    let length: Int

    init(radius floatRadius: Float, length: Int) {
        radius = Int(floatRadius)
        ww = UInt32(Float(UInt32(1 << 24)) / (floatRadius * 2 + 1))
        fw = (UInt32(1 << 24) &- UInt32(radius * 2 + 1) &* ww) / 2
        self.length = length
    }

    /// Blurs a row of `length` pixels of `channels` interleaved samples in place, each
    /// channel alone, `passes` times. Window sums come from prefix sums (exact, wrapping
    /// 32-bit: a window's true sum is far below 2^32), so the per-sample work is one
    /// branch-free loop over the interleaved samples.
    /// `scratch` and `sums` hold at least `scratchCount(channels:)` elements (kept by the
    /// caller: a row's worth of buffers made per row would churn the allocator).
    func blur(_ row: UnsafeMutablePointer<UInt8>, channels c: Int, passes: Int,
              scratch: UnsafeMutablePointer<UInt8>, sums: UnsafeMutablePointer<UInt32>) {
        let pad = radius + 1, length = length, r = radius
        guard length > 0 else { return }
        let n = length * c, padded = (length + 2 * pad) * c
        let (ww, fw) = (ww, fw)
        let line = scratch + pad * c
        line.update(from: row, count: n)
        for pass in 0..<passes {
            for k in 0..<pad {
                (line - (k + 1) * c).update(from: line, count: c)
                (line + n + k * c).update(from: line + n - c, count: c)
            }
            let first = line - pad * c
            // sums[k]: the sum of the padded line's samples of k's channel before k.
            BoxLine.prefixSums(first, count: padded, channels: c, into: sums)
            // Sample j of the line is first[j + pad*c]; its window is
            // first[j + c .. j + (2r + 1)c], and its far neighbours first[j] and
            // first[j + (2r + 2)c].
            let near = sums + c, far = sums + (2 * r + 2) * c, right = first + (2 * r + 2) * c
            for j in 0..<n {
                let window = far[j] &- near[j]
                let bulk = window &* ww &+ (UInt32(first[j]) &+ UInt32(right[j])) &* fw
                row[j] = UInt8(truncatingIfNeeded: (bulk &+ (1 << 23)) >> 24)
            }
            // The next pass reads the padded copy, whose left neighbours must still
            // be this pass's input while the row is written.
            if pass < passes - 1 { line.update(from: row, count: n) }
        }
    }

    /// The elements `blur`'s `scratch` and `sums` need for rows of `channels` samples a pixel.
    func scratchCount(channels: Int) -> Int { (length + 2 * radius + 3) * channels }

    /// `sums[k]`: the sum of `samples[k']` for k' < k of k's channel. Each channel's
    /// running total stays in a register: summing through memory waits on the store
    /// `channels` samples back.
    private static func prefixSums(_ samples: UnsafePointer<UInt8>, count: Int, channels c: Int,
                                   into sums: UnsafeMutablePointer<UInt32>) {
        var a: UInt32 = 0, b: UInt32 = 0, d: UInt32 = 0, e: UInt32 = 0
        var k = 0
        switch c {
        case 1:
            while k < count { sums[k] = a; a &+= UInt32(samples[k]); k += 1 }
            sums[k] = a
        case 3:
            while k < count {
                sums[k] = a; sums[k + 1] = b; sums[k + 2] = d
                a &+= UInt32(samples[k]); b &+= UInt32(samples[k + 1]); d &+= UInt32(samples[k + 2])
                k += 3
            }
            sums[k] = a; sums[k + 1] = b; sums[k + 2] = d
        case 4:
            while k < count {
                sums[k] = a; sums[k + 1] = b; sums[k + 2] = d; sums[k + 3] = e
                a &+= UInt32(samples[k]); b &+= UInt32(samples[k + 1]); d &+= UInt32(samples[k + 2]); e &+= UInt32(samples[k + 3])
                k += 4
            }
            sums[k] = a; sums[k + 1] = b; sums[k + 2] = d; sums[k + 3] = e
        default:
            for j in 0..<c { sums[j] = 0 }
            for j in 0..<count { sums[j + c] = sums[j] &+ UInt32(samples[j]) }
        }
    }
}
