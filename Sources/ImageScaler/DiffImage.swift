/// A picture of where two same-sized images differ, for a person to look at: the
/// expected image dimmed to grey, and every pixel differing by more than the tolerance
/// painted red, from pale (a difference of 1) to full red (64 or more).
/// Output is RGB, same size, top-left origin.
public enum DiffImage {
    public static func render(expected: PixelBuffer, actual: PixelBuffer, tolerance: Int = 0) -> PixelBuffer {
        precondition(expected.size == actual.size, "diff same-sized images")
        let a = expected.rgba(), b = actual.rgba()
        var out = PixelBuffer.samples(count: expected.width * expected.height * 3)
        for i in 0..<(expected.width * expected.height) {
            let p = i * 4
            var d = 0
            if !(a[p + 3] == 0 && b[p + 3] == 0) {
                for c in 0..<4 { d = max(d, abs(Int(a[p + c]) - Int(b[p + c]))) }
            }
            if d > tolerance {
                // 64 levels of difference span pale pink to pure red.
                let fade = UInt8(max(0, 192 - 3 * min(d, 64)))
                out[i * 3] = 255
                out[i * 3 + 1] = fade
                out[i * 3 + 2] = fade
            } else {
                // Rec. 601 luma, halved and lifted, so red always stands out against it.
                let luma = (299 * Int(a[p]) + 587 * Int(a[p + 1]) + 114 * Int(a[p + 2])) / 1000
                let grey = UInt8(64 + luma * Int(a[p + 3]) / 255 / 2)
                out[i * 3] = grey
                out[i * 3 + 1] = grey
                out[i * 3 + 2] = grey
            }
        }
        return PixelBuffer(width: expected.width, height: expected.height, channels: 3, pixels: out)
    }
}
