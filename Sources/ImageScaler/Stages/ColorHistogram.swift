/// The distinct colours of an image, premultiplied RGBA packed R | G << 8 | B << 16 |
/// A << 24, each with its pixel count, in order of first appearance (so everything
/// built on it is deterministic). Gray is replicated into R, G and B; missing alpha is 255.
struct ColorHistogram {
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

    /// Counts `pixels` in an open-addressed table twice their number (a power of two).
    init(_ pixels: [UInt32]) {
        var capacity = 1024
        while capacity < 2 * pixels.count { capacity <<= 1 }
        let mask = capacity - 1
        // Slot holds index + 1 into `colors`; 0 is empty.
        var slots = [Int32](repeating: 0, count: capacity)
        var colors: [UInt32] = [], counts: [Int] = []
        slots.withUnsafeMutableBufferPointer { s in
            for c in pixels {
                var h = Int(truncatingIfNeeded: (c &* 0x9E37_79B1) >> 7) & mask
                while true {
                    let v = Int(s[h])
                    if v == 0 {
                        colors.append(c)
                        counts.append(1)
                        s[h] = Int32(colors.count)
                        break
                    }
                    if colors[v - 1] == c {
                        counts[v - 1] += 1
                        break
                    }
                    h = (h + 1) & mask
                }
            }
        }
        self.colors = colors
        self.counts = counts
    }
}
