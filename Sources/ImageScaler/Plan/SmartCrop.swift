#if canImport(Glibc)
import Glibc
#endif

/// `--gravity entropy`: the fill crop slides along its free axis to where the window
/// holds the most information - the highest Shannon entropy of its luminance histogram -
/// searched on a small preview (at most 256 pixels a side), as libvips's `interesting`
/// entropy does. Deterministic: ties go to the offset nearest the centre.
enum SmartCrop {
    /// The crop rect, in the image's upright top-left coordinates, for filling `target`
    /// from `region` (the whole image or --from, clipped).
    static func rect(in region: Rect, filling target: Size, preview: PixelBuffer, imageSize: Size) throws -> Rect {
        let centred = try AspectFill.rect(in: region, filling: target, gravity: .centre)
        let horizontal = centred.width < region.width
        guard horizontal || centred.height < region.height else { return centred }
        let sx = Double(preview.width) / Double(imageSize.width), sy = Double(preview.height) / Double(imageSize.height)
        let luma = luminance(preview)
        // Candidate offsets one preview pixel apart, in source pixels.
        let span = horizontal ? region.width - centred.width : region.height - centred.height
        let step = max(1, Int((1 / (horizontal ? sx : sy)).rounded(.down)))
        var best = (entropy: -1.0, offset: 0, distance: Int.max)
        let centre = horizontal ? centred.x - region.x : centred.y - region.y
        for offset in stride(from: 0, through: span, by: step) + (span % step == 0 ? [] : [span]) {
            let r = horizontal ? Rect(x: region.x + offset, y: centred.y, width: centred.width, height: centred.height)
                               : Rect(x: centred.x, y: region.y + offset, width: centred.width, height: centred.height)
            let e = entropy(luma, width: preview.width, height: preview.height,
                            x0: Int(Double(r.x) * sx), y0: Int(Double(r.y) * sy),
                            x1: Int((Double(r.maxX) * sx).rounded(.up)), y1: Int((Double(r.maxY) * sy).rounded(.up)))
            let distance = abs(offset - centre)
            // Entropies are compared to 1e-9: the order of summation must not decide.
            if e > best.entropy + 1e-9 || (abs(e - best.entropy) <= 1e-9 && distance < best.distance) {
                best = (e, offset, distance)
            }
        }
        return horizontal ? Rect(x: region.x + best.offset, y: centred.y, width: centred.width, height: centred.height)
                          : Rect(x: centred.x, y: region.y + best.offset, width: centred.width, height: centred.height)
    }

    /// Rec. 601 luma, in integers (the weights times 1000), one byte a pixel.
    private static func luminance(_ image: PixelBuffer) -> [UInt8] {
        let c = image.channels
        return (0..<image.width * image.height).map { i in
            let p = image.pixels[i * c ..< i * c + c]
            if c <= 2 { return p[p.startIndex] }
            let r = Int(p[p.startIndex]), g = Int(p[p.startIndex + 1]), b = Int(p[p.startIndex + 2])
            return UInt8((299 * r + 587 * g + 114 * b + 500) / 1000)
        }
    }

    private static func entropy(_ luma: [UInt8], width: Int, height: Int, x0: Int, y0: Int, x1: Int, y1: Int) -> Double {
        var histogram = [Int](repeating: 0, count: 256)
        let xa = max(0, x0), xb = min(width, max(x1, xa + 1)), ya = max(0, y0), yb = min(height, max(y1, ya + 1))
        for y in ya..<yb {
            for x in xa..<xb { histogram[Int(luma[y * width + x])] += 1 }
        }
        let n = Double((xb - xa) * (yb - ya))
        var e = 0.0
        for count in histogram where count > 0 {
            let p = Double(count) / n
            e -= p * log2(p)
        }
        return e
    }
}
