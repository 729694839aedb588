/// A luma and a chroma quantisation table for a quality 1-100, natural order, each step
/// 1-255 (baseline). `standard` is ITU T.81 Annex K's pair scaled as libjpeg scales it,
/// which is what the default encoder writes.
package struct QuantizationTables: Sendable {
    package let luma: [UInt16]
    let chroma: [UInt16]

    /// Annex K.1's tables (natural order), measured on what the eye sees at a viewing
    /// distance of six picture heights.
    private static let annexLuma: [Int] = [
        16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55,
        14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62,
        18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
        49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
    ]
    private static let annexChroma: [Int] = [
        17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99,
        24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99, 99, 99, 99, 99, 99,
        99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
        99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
    ]

    /// libjpeg's percentage for a quality: 5000/q below 50, 200 - 2q from there.
    static func scale(quality: Int) -> Int {
        let q = min(max(quality, 1), 100)
        return q < 50 ? 5000 / q : 200 - 2 * q
    }

    private static func scaled(_ base: [Int], _ percent: Int) -> [UInt16] {
        base.map { UInt16(min(max(($0 * percent + 50) / 100, 1), 255)) }
    }

    package static func standard(quality: Int) -> QuantizationTables {
        let s = scale(quality: quality)
        return QuantizationTables(luma: scaled(annexLuma, s), chroma: scaled(annexChroma, s))
    }

    /// `--optimize`'s tables: Annex K's, its luma table drawn toward its own mean as the
    /// quality rises past 50, by up to a quarter at 90 and over; chroma as it is. Of the
    /// tables mozjpeg offers, Annex K's luma gave the smallest files at equal SSIM on the
    /// camera photos up to SSIM 0.98 and a flat one from 0.99: the blend follows that,
    /// 2-5% smaller than either from 0.97 up, the same below.
    static func optimized(quality: Int) -> QuantizationTables {
        let k = standard(quality: quality)
        let pull = min(max(quality - 50, 0), 40) * 64 / 40  // of 256
        let mean = k.luma.reduce(0) { $0 + Int($1) } / 64
        let luma = k.luma.map { UInt16(min(max((Int($0) * (256 - pull) + mean * pull + 128) >> 8, 1), 255)) }
        return QuantizationTables(luma: luma, chroma: k.chroma)
    }
}
