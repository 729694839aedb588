/// Pillow's `ImageFilter.UnsharpMask(radius, percent, threshold)`, byte for byte, on
/// 8-bit pixels of 1-4 channels (every channel alike, alpha too, as Pillow does to L,
/// LA, RGB and RGBA): a Gaussian blur made of three box blurs a direction (Pillow's
/// `BoxBlur.c`, after Gwosdek et al.: a box of integer radius plus a fractional weight
/// for its two far pixels, 24-bit fixed point, edges extended), then each sample moved
/// away from its blurred value by `percent` of the difference where that difference
/// exceeds `threshold`. The box's radius and weights come from `radius` in 32-bit
/// floats, as Pillow computes them (IEEE arithmetic, the same on every machine); all
/// the per-pixel work is integer.
package struct UnsharpMask: Equatable, Sendable {
    package let radius: Float
    package let percent: Int
    package let threshold: Int

    package init(radius: Float, percent: Int, threshold: Int) {
        self.radius = radius
        self.percent = percent
        self.threshold = threshold
    }

    /// `--sharpen` alone: a light touch for downscaled photos. A radius of 0.5 (a box of
    /// about one pixel) restores the edge contrast a Lanczos or bicubic shrink softens
    /// without the halos larger radii draw around thin lines; 60% is below where skies
    /// and skin turn gritty, and a threshold of 2 leaves flat areas and JPEG noise alone.
    package static let mild = UnsharpMask(radius: 0.5, percent: 60, threshold: 2)

    /// The box blur Pillow derives from a Gaussian radius for `passes` boxes.
    static func boxRadius(_ radius: Float, passes: Int) -> Float {
        let sigma2 = radius * radius / Float(passes)
        let l0 = Float((12.0 * Double(sigma2) + 1.0).squareRoot())
        // Floored in double, then narrowed, as C does it.
        let l = Float(((Double(l0) - 1.0) / 2.0).rounded(.down))
        var a = (2 * l + 1) * (l * (l + 1) - 3 * sigma2)
        a /= 6 * (sigma2 - (l + 1) * (l + 1))
        return l + a
    }

    /// The image sharpened: same size and channels.
    package func apply(to image: PixelBuffer) -> PixelBuffer {
        let (width, height, channels) = (image.width, image.height, image.channels)
        guard width > 0, height > 0 else { return image }
        var blurred = image.pixels
        let box = UnsharpMask.boxRadius(radius, passes: 3)
        blurred.withUnsafeMutableBufferPointer { b in
            let p = b.baseAddress!
            if box != 0 {
                let line = BoxLine(radius: box, length: width)
                for y in 0..<height { line.blur(p + y * width * channels, step: channels, channels: channels, passes: 3) }
            }
            if box != 0 {
                let line = BoxLine(radius: box, length: height)
                for x in 0..<width { line.blur(p + x * channels, step: width * channels, channels: channels, passes: 3) }
            }
        }
        var out = image.pixels
        let (percent, threshold) = (percent, threshold)
        out.withUnsafeMutableBufferPointer { o in
            blurred.withUnsafeBufferPointer { b in
                for i in 0..<o.count {
                    let source = Int(o[i]), diff = source - Int(b[i])
                    guard abs(diff) > threshold else { continue }
                    o[i] = UInt8(clamping: source + diff * percent / 100)
                }
            }
        }
        return PixelBuffer(width: width, height: height, channels: channels, validPixels: out)
    }
}

/// One line's box blur, as Pillow's `ImagingLineBoxBlur` makes it: a running sum of
/// 2r + 1 samples weighted `ww` and its two far neighbours `fw`, in 24-bit fixed point,
/// with the first and last samples repeated past the ends.
private struct BoxLine {
    let radius: Int
    let ww: UInt32
    let fw: UInt32
    let length: Int
    let edgeA: Int
    let edgeB: Int

    init(radius floatRadius: Float, length: Int) {
        radius = Int(floatRadius)
        ww = UInt32(Float(UInt32(1 << 24)) / (floatRadius * 2 + 1))
        fw = (UInt32(1 << 24) &- UInt32(radius * 2 + 1) &* ww) / 2
        self.length = length
        edgeA = min(radius + 1, length)
        edgeB = max(length - radius - 1, 0)
    }

    /// Blurs the line at `start` (`length` pixels `step` bytes apart) in place, each of
    /// its `channels` alone, `passes` times.
    func blur(_ start: UnsafeMutablePointer<UInt8>, step: Int, channels: Int, passes: Int) {
        var a = [UInt8](repeating: 0, count: length), b = [UInt8](repeating: 0, count: length)
        for c in 0..<channels {
            for x in 0..<length { a[x] = start[x * step + c] }
            for _ in 0..<passes {
                once(a, into: &b)
                swap(&a, &b)
            }
            for x in 0..<length { start[x * step + c] = a[x] }
        }
    }

    private func once(_ input: [UInt8], into output: inout [UInt8]) {
        let lastx = length - 1, r = radius
        func at(_ x: Int) -> UInt32 { UInt32(input[x]) }
        var acc = at(0) &* UInt32(r + 1)
        var x = 0
        while x < edgeA - 1 {
            acc &+= at(x)
            x += 1
        }
        acc &+= at(lastx) &* UInt32(truncatingIfNeeded: r - edgeA + 1)
        func step(_ x: Int, subtract: Int, add: Int, left: Int, right: Int) {
            acc = acc &+ at(add) &- at(subtract)
            let bulk = acc &* ww &+ (at(left) &+ at(right)) &* fw
            output[x] = UInt8(truncatingIfNeeded: (bulk &+ (1 << 23)) >> 24)
        }
        if edgeA <= edgeB {
            for x in 0..<edgeA { step(x, subtract: 0, add: x + r, left: 0, right: x + r + 1) }
            for x in edgeA..<max(edgeA, edgeB) { step(x, subtract: x - r - 1, add: x + r, left: x - r - 1, right: x + r + 1) }
            for x in edgeB...lastx { step(x, subtract: x - r - 1, add: lastx, left: x - r - 1, right: lastx) }
        } else {
            for x in 0..<edgeB { step(x, subtract: 0, add: x + r, left: 0, right: x + r + 1) }
            for x in edgeB..<edgeA { step(x, subtract: 0, add: lastx, left: 0, right: lastx) }
            for x in edgeA..<(lastx + 1) { step(x, subtract: x - r - 1, add: lastx, left: x - r - 1, right: lastx) }
        }
    }
}
