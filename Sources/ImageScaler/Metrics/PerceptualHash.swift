#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The 64-bit perceptual hashes of Python's `imagehash` (aHash, dHash, pHash), computed
/// as it computes them, so the same image gives the same hash: the picture to 8-bit luma
/// with Pillow's weights (`(19595 R + 38470 G + 7471 B + 32768) >> 16`, alpha ignored,
/// gray kept), shrunk with Pillow's Lanczos (this resampler is Pillow's, byte for byte),
/// then:
/// - aHash: 8x8, each pixel above the mean (compared in integers: 64 p > the sum);
/// - dHash: 9x8, each pixel brighter than the one to its left;
/// - pHash: 32x32, scipy's unnormalised type-II DCT down the columns then along the rows,
///   each of the 8x8 lowest frequencies above their median. Where one lies within a
///   billionth of the largest of the median (a frequency a flat picture lacks), its bit
///   is 0: imagehash's bit there is the FFT's rounding.
/// Bits go row by row, the first the most significant, which is the hex imagehash prints.
/// Near-duplicates differ in few bits: `distance` counts them.
public enum PerceptualHash: String, CaseIterable, Sendable {
    case ahash, dhash, phash

    /// The hash of `image`, as stored (turn it upright first for what a viewer shows).
    public func hash(_ image: PixelBuffer) -> UInt64 { hash(luma: PerceptualHash.luma(image)) }

    /// Several hashes of one image, its luma made once.
    public static func hashes(_ kinds: [PerceptualHash], of image: PixelBuffer) -> [UInt64] {
        let luma = luma(image)
        return kinds.map { $0.hash(luma: luma) }
    }

    private func hash(luma: PixelBuffer) -> UInt64 {
        switch self {
        case .ahash:
            let p = Resampler.resample(luma, from: SamplingRect(Rect(size: luma.size)), to: Size(width: 8, height: 8), filter: .lanczos).pixels
            let sum = p.reduce(0) { $0 + Int($1) }
            return PerceptualHash.bits(p.map { 64 * Int($0) > sum })
        case .dhash:
            let p = Resampler.resample(luma, from: SamplingRect(Rect(size: luma.size)), to: Size(width: 9, height: 8), filter: .lanczos).pixels
            return PerceptualHash.bits((0..<8).flatMap { y in (0..<8).map { x in p[y * 9 + x + 1] > p[y * 9 + x] } })
        case .phash:
            let n = 32
            let p = Resampler.resample(luma, from: SamplingRect(Rect(size: luma.size)), to: Size(width: n, height: n), filter: .lanczos).pixels
            // cos(pi k (2i + 1) / 2N), the same table both ways.
            var table = [Double](repeating: 0, count: n * n)
            for k in 0..<n { for i in 0..<n { table[k * n + i] = cos(Double.pi * Double(k * (2 * i + 1)) / Double(2 * n)) } }
            // Down the columns (numpy axis 0), for the 8 lowest vertical frequencies.
            var columns = [Double](repeating: 0, count: 8 * n)
            for k in 0..<8 {
                for x in 0..<n {
                    var s = 0.0
                    for y in 0..<n { s += Double(p[y * n + x]) * table[k * n + y] }
                    columns[k * n + x] = 2 * s
                }
            }
            // Then along the rows (axis 1), for the 8 lowest horizontal ones.
            var low = [Double](repeating: 0, count: 64)
            for k in 0..<8 {
                for l in 0..<8 {
                    var s = 0.0
                    for x in 0..<n { s += columns[k * n + x] * table[l * n + x] }
                    low[k * 8 + l] = 2 * s
                }
            }
            let sorted = low.sorted()
            let median = (sorted[31] + sorted[32]) / 2
            // A frequency the picture lacks (a flat or synthetic image) is 0 give or take
            // rounding, which no two DCTs round alike: within a billionth of the largest
            // it counts as the median, not above it.
            let tie = 1e-9 * max(1, low.map(abs).max() ?? 0)
            return PerceptualHash.bits(low.map { $0 - median > tie })
        }
    }

    /// How many of 64 bits differ.
    public static func distance(_ a: UInt64, _ b: UInt64) -> Int { (a ^ b).nonzeroBitCount }

    /// 16 hex digits, as imagehash prints a hash.
    public static func hex(_ hash: UInt64) -> String {
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    private static func bits(_ flags: [Bool]) -> UInt64 {
        flags.reduce(0) { $0 << 1 | ($1 ? 1 : 0) }
    }

    /// One channel of luma as Pillow's `convert("L")` makes it.
    private static func luma(_ image: PixelBuffer) -> PixelBuffer {
        let c = image.channels
        guard c >= 3 else {
            // Gray, or gray and alpha: the gray channel.
            let gray = stride(from: 0, to: image.pixels.count, by: c).map { image.pixels[$0] }
            return PixelBuffer(width: image.width, height: image.height, channels: 1, validPixels: gray)
        }
        var out = [UInt8](repeating: 0, count: image.width * image.height)
        image.pixels.withUnsafeBufferPointer { p in
            for i in 0..<out.count {
                let r = UInt32(p[i * c]), g = UInt32(p[i * c + 1]), b = UInt32(p[i * c + 2])
                out[i] = UInt8((r * 19595 + g * 38470 + b * 7471 + 0x8000) >> 16)
            }
        }
        return PixelBuffer(width: image.width, height: image.height, channels: 1, validPixels: out)
    }
}
