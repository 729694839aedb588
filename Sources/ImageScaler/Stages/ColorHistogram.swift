/// The distinct colours of an image, premultiplied RGBA packed R | G << 8 | B << 16 |
/// A << 24, each with its pixel count, in order of first appearance (so everything
/// built on it is deterministic). Gray is replicated into R, G and B; missing alpha is 255.
/// Past `limit` distinct colours (noise, huge photos) colours are pooled by their top
/// bits, one bit fewer at a time until they fit, each pool standing as its pixels'
/// rounded mean: what the palette is cut from stays bounded however many colours come in.
struct ColorHistogram {
    /// About a 1600x1200 photo's distinct colours; the test photos at 800 wide have 49k-217k.
    static let limit = 1 << 18

    var colors: [UInt32] = []
    var counts: [Int] = []

    /// The image's pixels premultiplied and packed, in pixel order.
    static func packed(_ image: PixelBuffer) -> [UInt32] {
        let rgba = image.rgba()
        return [UInt32](unsafeUninitializedCapacity: image.width * image.height) { out, n in
            rgba.withUnsafeBufferPointer { p in
                for i in 0..<(image.width * image.height) {
                    let a = UInt32(p[4 * i + 3])
                    let r = (UInt32(p[4 * i]) * a + 127) / 255, g = (UInt32(p[4 * i + 1]) * a + 127) / 255
                    let b = (UInt32(p[4 * i + 2]) * a + 127) / 255
                    out[i] = r | g << 8 | b << 16 | a << 24
                }
            }
            n = image.width * image.height
        }
    }

    /// Counts `pixels` in an open-addressed table of twice `limit` slots, starting over
    /// with a bit fewer a channel whenever more than `limit` colours turn up.
    init(_ pixels: [UInt32]) {
        let capacity = 2 * ColorHistogram.limit, mask = capacity - 1
        var dropped: UInt32 = 0
        while true {
            let keep = ((UInt32(0xFF) >> dropped) << dropped) * 0x0101_0101
            // Slot holds index + 1 into `keys`; 0 is empty.
            var slots = [Int32](repeating: 0, count: capacity)
            var keys: [UInt32] = [], counts: [Int] = [], sums: [Int] = []
            var overflowed = false
            slots.withUnsafeMutableBufferPointer { s in
                for c in pixels {
                    let key = c & keep
                    var h = Int(truncatingIfNeeded: (key &* 0x9E37_79B1) >> 7) & mask
                    while true {
                        let v = Int(s[h])
                        if v == 0 {
                            keys.append(key)
                            counts.append(0)
                            sums += [0, 0, 0, 0]
                            s[h] = Int32(keys.count)
                        } else if keys[v - 1] != key {
                            h = (h + 1) & mask
                            continue
                        }
                        let i = Int(s[h]) - 1
                        counts[i] += 1
                        if dropped > 0 {
                            for ch in 0..<4 { sums[4 * i + ch] += Int(c >> (8 * UInt32(ch)) & 255) }
                        }
                        break
                    }
                    if keys.count > ColorHistogram.limit && dropped < 7 { overflowed = true; break }
                }
            }
            if overflowed {
                dropped += 1
                continue
            }
            colors = dropped == 0 ? keys : keys.indices.map { i in
                var c: UInt32 = 0
                for ch in 0..<4 { c |= UInt32((sums[4 * i + ch] + counts[i] / 2) / counts[i]) << (8 * UInt32(ch)) }
                return c
            }
            self.counts = counts
            return
        }
    }
}
