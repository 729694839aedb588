import ImageScaler

#if canImport(Glibc)
import Glibc
#endif
/// A picture of where two same-sized images differ, for a person to look at, from an
/// `ImageDifference` that kept its pixel classes. Top-left origin.
/// - `overlay` (RGB): the expected image dimmed to grey; differing pixels red, from pale
///   (a difference of 1) to full red (64 or more); anti-aliasing yellow; pixels not
///   compared (masked, ignored) tinted blue.
/// - `mask` (RGBA): transparent, with only the red and yellow pixels.
/// - `sideBySide` (RGBA): expected | actual | overlay, each the images' width.
public enum DiffImage {
    public enum Style: String, Sendable, CaseIterable {
        case overlay, mask
        case sideBySide = "side-by-side"
    }

    public static func render(expected: PixelBuffer, actual: PixelBuffer, tolerance: Int = 0) throws -> PixelBuffer {
        let d = try ImageDifference(expected: expected, actual: actual, comparison: ImageComparison(rule: .tolerance(tolerance)), keepClasses: true)
        return try render(expected: expected, actual: actual, difference: d, style: .overlay)
    }

    public static func render(expected: PixelBuffer, actual: PixelBuffer, difference: ImageDifference, style: Style) throws -> PixelBuffer {
        guard expected.size == actual.size else { throw CompareError.sizeMismatch("the images are \(expected.size) and \(actual.size)") }
        guard difference.classes.count == expected.width * expected.height else {
            throw CompareError.sizeMismatch("\(difference.classes.count) pixel classes for a \(expected.size) image (keepClasses)")
        }
        let a = expected.rgba(), b = actual.rgba()
        let n = expected.width * expected.height
        let overlayChannels = style == .overlay ? 3 : 4
        var overlay = PixelBuffer.samples(count: n * overlayChannels)
        for i in 0..<n {
            let p = i * 4, o = i * overlayChannels
            var colour: (UInt8, UInt8, UInt8, UInt8)
            switch difference.classes[i] {
            case .differs:
                var d = 0
                for c in 0..<4 { d = max(d, abs(Int(a[p + c]) - Int(b[p + c]))) }
                // 64 levels of difference span pale pink to pure red.
                let fade = UInt8(max(0, 192 - 3 * min(d, 64)))
                colour = (255, fade, fade, 255)
            case .antialiased:
                colour = (255, 255, 0, 255)
            case .same, .notCompared:
                if style == .mask {
                    colour = (0, 0, 0, 0)
                    break
                }
                // Rec. 601 luma, halved and lifted, so red always stands out against it.
                let luma = (299 * Int(a[p]) + 587 * Int(a[p + 1]) + 114 * Int(a[p + 2])) / 1000
                let grey = UInt8(64 + luma * Int(a[p + 3]) / 255 / 2)
                colour = difference.classes[i] == .notCompared ? (grey / 2, grey / 2, grey, 255) : (grey, grey, grey, 255)
            }
            overlay[o] = colour.0
            overlay[o + 1] = colour.1
            overlay[o + 2] = colour.2
            if overlayChannels == 4 { overlay[o + 3] = colour.3 }
        }
        guard style == .sideBySide else {
            return PixelBuffer(width: expected.width, height: expected.height, channels: overlayChannels, validPixels: overlay)
        }
        let w = expected.width
        var out = PixelBuffer.samples(count: n * 12)
        for y in 0..<expected.height {
            for (k, part) in [a, b, overlay].enumerated() {
                let src = y * w * 4, dst = (y * w * 3 + k * w) * 4
                out.replaceSubrange(dst..<(dst + w * 4), with: part[src..<(src + w * 4)])
            }
        }
        return PixelBuffer(width: w * 3, height: expected.height, channels: 4, validPixels: out)
    }

    /// `image` on a transparent canvas of `size` (at least its own), top-left aligned,
    /// so images of different sizes can be compared and shown on the larger canvas.
    public static func canvas(_ image: PixelBuffer, size: Size) -> PixelBuffer {
        let rgba = image.rgba()
        var out = [UInt8](repeating: 0, count: size.width * size.height * 4)
        for y in 0..<min(image.height, size.height) {
            let n = min(image.width, size.width) * 4
            out.replaceSubrange(y * size.width * 4..<(y * size.width * 4 + n), with: rgba[(y * image.width * 4)..<(y * image.width * 4 + n)])
        }
        return PixelBuffer(width: size.width, height: size.height, channels: 4, validPixels: out)
    }
}
