/// Quantises blocks for one table, rate against distortion: each AC coefficient becomes
/// its rounded value, one step nearer zero, or zero, whichever set of choices over the
/// block costs least in distortion plus λ times its bits (the Huffman codes of `cost`
/// plus the magnitude bits). A trellis over where each run of zeros ends finds it.
/// Blocks in and out are natural order; in: 8 times the orthonormal coefficients
/// (`ForwardDCT`); out: quantised. The DC coefficient is rounded: its difference from
/// the block before is coded, which one block cannot weigh. Integers throughout.
/// Distortion counts squared error in steps of the table (2^32 a step squared): the
/// table says what the eye forgives, so a coarse step is cheap to lose.
/// One instance per thread: it keeps its working rows.
package final class TrellisQuantizer {
    /// The natural index of each zigzag position.
    static let zigzag: [Int] = [
        0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
        35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
    ]

    /// Per zigzag position: the step in the input's scale (8 times the table's), and the
    /// cost of a squared input unit (2^32 / step²).
    private let step: UnsafeMutablePointer<Int32>
    /// ⌊2^32 / step⌋ + 1: (n x it) >> 32 is ⌊n / step⌋ for every n below 2^20, as a
    /// step is below 2^11 (n x step stays under 2^32 / 2).
    private let reciprocal: UnsafeMutablePointer<Int64>
    private let weight: UnsafeMutablePointer<Int64>
    /// λ times the bits of each AC symbol, and of one magnitude bit.
    private let symbolCost: UnsafeMutablePointer<Int64>
    private let bitCost: Int64
    private let natural: UnsafeMutablePointer<Int>
    // Working rows, per zigzag position.
    private let magnitude: UnsafeMutablePointer<Int32>
    private let zeros: UnsafeMutablePointer<Int64>
    private let best: UnsafeMutablePointer<Int64>
    private let from: UnsafeMutablePointer<Int32>
    private let chosen: UnsafeMutablePointer<Int32>
    private let ends: UnsafeMutablePointer<Int32>

    /// `lambda`: what one bit is worth in squared steps, in 1/65536ths.
    package init(table: [UInt16], cost: HuffmanCost, lambda: Int64) {
        step = .allocate(capacity: 64)
        weight = .allocate(capacity: 64)
        reciprocal = .allocate(capacity: 64)
        symbolCost = .allocate(capacity: 256)
        natural = .allocate(capacity: 64)
        magnitude = .allocate(capacity: 64)
        zeros = .allocate(capacity: 64)
        best = .allocate(capacity: 64)
        from = .allocate(capacity: 64)
        chosen = .allocate(capacity: 64)
        ends = .allocate(capacity: 65)
        let bitWeight = lambda << 16
        for k in 0..<64 {
            natural[k] = TrellisQuantizer.zigzag[k]
            let s = Int32(table[TrellisQuantizer.zigzag[k]]) * 8
            step[k] = s
            weight[k] = (Int64(1) << 32) / Int64(s * s)
            reciprocal[k] = (Int64(1) << 32) / Int64(s) + 1
        }

        for s in 0..<256 { symbolCost[s] = Int64(cost.bits[s]) * bitWeight }
        bitCost = bitWeight
    }

    deinit {
        for p in [step, magnitude, from, chosen, ends] as [UnsafeMutablePointer<Int32>] { p.deallocate() }
        for p in [weight, reciprocal, zeros, best, symbolCost] as [UnsafeMutablePointer<Int64>] { p.deallocate() }
        natural.deallocate()
    }

    /// Position k's coefficient rounded to the nearest step, halves away from zero.
    @inline(__always) private func round(_ x: Int32, _ k: Int) -> Int32 {
        let m = (Int64((x < 0 ? -x : x) + step[k] / 2) * reciprocal[k]) >> 32
        return Int32(x < 0 ? -m : m)
    }

    /// The plain rounding of every coefficient, for a first count of the symbols.
    package func round(_ block: UnsafePointer<Int16>, into out: UnsafeMutablePointer<Int16>) {
        for k in 0..<64 {
            out[natural[k]] = Int16(round(Int32(block[natural[k]]), k))
        }
    }

    package func quantize(_ block: UnsafePointer<Int16>, into out: UnsafeMutablePointer<Int16>) {
        out[0] = Int16(round(Int32(block[0]), 0))
        zeros[0] = 0
        best[0] = 0
        var endCount = 1
        ends[0] = 0
        let zrl = symbolCost[0xF0]
        for k in 1..<64 {
            let c = Int32(block[natural[k]])
            let x = c < 0 ? -c : c
            magnitude[k] = x
            zeros[k] = zeros[k - 1] + Int64(x) * Int64(x) * weight[k]
        }
        for k in 1..<64 {
            let x = magnitude[k]
            out[natural[k]] = 0
            let s = step[k]
            let q = Int32((Int64(x + s / 2) * reciprocal[k]) >> 32)
            guard q > 0 else { continue }
            var bestTotal = Int64.max, bestFrom: Int32 = 0, bestValue: Int32 = 0
            var v = q
            while v >= max(q - 1, 1) {
                let err = Int64(x - v * s)
                let size = 32 - v.leadingZeroBitCount
                let own = err * err * weight[k] + Int64(size) * bitCost
                for e in 0..<endCount {
                    let j = Int(ends[e])
                    let run = k - j - 1
                    let total = best[j] + (zeros[k - 1] - zeros[j]) + Int64(run >> 4) * zrl + symbolCost[(run & 15) << 4 | size] + own
                    if total < bestTotal {
                        bestTotal = total
                        bestFrom = Int32(j)
                        bestValue = v
                    }
                }
                v -= 1
            }
            best[k] = bestTotal
            from[k] = bestFrom
            chosen[k] = bestValue
            ends[endCount] = Int32(k)
            endCount += 1
        }
        var last = 0, lastTotal = Int64.max
        let eob = symbolCost[0x00]
        for e in 0..<endCount {
            let j = Int(ends[e])
            let total = best[j] + (zeros[63] - zeros[j]) + (j < 63 ? eob : 0)
            if total < lastTotal {
                lastTotal = total
                last = j
            }
        }
        var k = last
        while k > 0 {
            let n = natural[k]
            out[n] = Int16(block[n] < 0 ? -chosen[k] : chosen[k])
            k = Int(from[k])
        }
    }
}
