/// JPEG's 8x8 forward DCT (ITU T.81 A.3.3) in integers, so a block transforms to the
/// same coefficients on every machine. In: 64 samples row by row, scaled by 4 and centred
/// on 0 (-512...508). Out: 8 times the orthonormal coefficients (libjpeg's scale, at most
/// 8192 in magnitude), natural order, row `v` (vertical frequency) by column `u`.
package enum ForwardDCT {
    /// cos((2x + 1)uπ/16) scaled by √(1/8) for u = 0 and 1/2 otherwise, times 2^13;
    /// row `u`, column `x`. Written out rather than computed so no libm decides a constant.
    private static let basis: [[Int32]] = [
        [2896, 2896, 2896, 2896, 2896, 2896, 2896, 2896],
        [4017, 3406, 2276, 799, -799, -2276, -3406, -4017],
        [3784, 1567, -1567, -3784, -3784, -1567, 1567, 3784],
        [3406, -799, -4017, -2276, 2276, 4017, 799, -3406],
        [2896, -2896, -2896, 2896, 2896, -2896, -2896, 2896],
        [2276, -4017, 799, 3406, -3406, -799, 4017, -2276],
        [1567, -3784, 3784, -1567, -1567, 3784, -3784, 1567],
        [799, -2276, 3406, -4017, 4017, -3406, 2276, -799],
    ]
    /// Column `x` of `basis` as a vector over `u`: a row's transform is 8 multiply-adds.
    private static let columns: [SIMD8<Int32>] = (0..<8).map { x in SIMD8((0..<8).map { basis[$0][x] }) }

    /// `basis` row by row, flat.
    private static let flat: [Int32] = basis.flatMap { $0 }

    package static func transform(_ samples: UnsafePointer<Int32>, into out: UnsafeMutablePointer<Int16>) {
        withUnsafeTemporaryAllocation(of: SIMD8<Int32>.self, capacity: 8) { rows in
            columns.withUnsafeBufferPointer { c in
                // Rows first, kept at scale 32 between the passes: at most 8 x 1448
                // x 4017 x 8 after the columns' products, inside 2^31.
                for y in 0..<8 {
                    var acc = SIMD8<Int32>(repeating: 1 << 9)
                    let s = samples + 8 * y
                    for x in 0..<8 { acc &+= c[x] &* SIMD8(repeating: s[x]) }
                    rows[y] = acc &>> 10
                }
            }
            flat.withUnsafeBufferPointer { b in
                // Then columns: scale 32 times 2^13 down to 8 is a shift by 15.
                for v in 0..<8 {
                    var acc = SIMD8<Int32>(repeating: 1 << 14)
                    for y in 0..<8 { acc &+= rows[y] &* SIMD8(repeating: b[8 * v + y]) }
                    acc = acc &>> 15
                    for u in 0..<8 { out[8 * v + u] = Int16(truncatingIfNeeded: acc[u]) }
                }
            }
        }
    }
}
