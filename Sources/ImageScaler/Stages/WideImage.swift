/// A 16-bit image in memory, for outputs written at 16 bits: the layout of
/// `PixelBuffer` with two-byte samples. Row-major with no padding, the first row the
/// visual top and the first sample of a row its left edge; gray (1), gray+alpha (2),
/// RGB (3) or RGBA (4) interleaved; straight alpha; samples 0-65535, native byte order.
package struct WideImage: Equatable, Sendable {
    package let width: Int
    package let height: Int
    package let channels: Int
    package var samples: [UInt16]

    /// The library's own stages make exactly `width * height * channels` samples.
    package init(width: Int, height: Int, channels: Int, samples: [UInt16]) {
        precondition(width > 0 && height > 0 && (1...4).contains(channels) && samples.count == width * height * channels,
                     "a stage made a 16-bit image of the wrong size")
        self.width = width
        self.height = height
        self.channels = channels
        self.samples = samples
    }

    /// 8-bit samples at 16 bits: v becomes v * 257, the same fraction of full scale.
    package init(widening image: PixelBuffer) {
        self.init(width: image.width, height: image.height, channels: image.channels,
                  samples: image.pixels.map { UInt16($0) &* 257 })
    }

    package var size: Size { Size(width: width, height: height) }

    /// Rounded to nearest 8-bit levels (the inverse of `widening` for its images).
    package func narrowed() -> PixelBuffer {
        PixelBuffer(width: width, height: height, channels: channels,
                    validPixels: samples.map { UInt8((UInt32($0) * 255 + 32767) / 65535) })
    }
    package var hasAlpha: Bool { channels == 2 || channels == 4 }

    /// The rect `r` (inside the image), unscaled.
    func cropped(to r: Rect) -> WideImage {
        var out: [UInt16] = []
        out.reserveCapacity(r.width * r.height * channels)
        for y in r.y..<r.maxY {
            let start = (y * width + r.x) * channels
            out += samples[start..<start + r.width * channels]
        }
        return WideImage(width: r.width, height: r.height, channels: channels, samples: out)
    }

    /// Turned upright (`Orienter`).
    func upright(_ orientation: Orientation) -> WideImage {
        let (turned, size) = Orienter.upright(samples, size: self.size, channels: channels, orientation)
        return WideImage(width: size.width, height: size.height, channels: channels, samples: turned)
    }

    /// Letterboxed on `background` (`Padder`).
    func padded(to box: Size, on background: RGBColor) -> WideImage {
        if size == box { return self }
        let (canvas, c) = Padder.pad(samples, size: size, channels: channels, to: box, background: background)
        return WideImage(width: box.width, height: box.height, channels: c, samples: canvas)
    }

    /// Alpha composited onto the opaque `background` (`Flattener`'s rule at 16 bits):
    /// gray stays gray on a gray background, else RGB.
    func flattened(onto background: RGBColor) -> WideImage {
        guard hasAlpha else { return self }
        let outChannels = Flattener.channels(flattening: channels, onto: background)
        let bg = [background.red, background.green, background.blue].map { Int($0) * 257 }
        var out = [UInt16](repeating: 0, count: width * height * outChannels)
        for i in 0..<(width * height) {
            let a = Int(samples[i * channels + channels - 1])
            for k in 0..<outChannels {
                let s = Int(samples[i * channels + (channels == 2 ? 0 : k)])
                // +32767 rounds the /65535 to nearest.
                out[i * outChannels + k] = UInt16((s * a + bg[k] * (65535 - a) + 32767) / 65535)
            }
        }
        return WideImage(width: width, height: height, channels: outChannels, samples: out)
    }

    /// Without its alpha channel when every pixel is opaque.
    func droppingOpaqueAlpha() -> WideImage {
        guard hasAlpha else { return self }
        let c = channels
        for i in stride(from: c - 1, to: samples.count, by: c) where samples[i] != 65535 { return self }
        var out = [UInt16](repeating: 0, count: width * height * (c - 1))
        for i in 0..<(width * height) {
            for k in 0..<(c - 1) { out[i * (c - 1) + k] = samples[i * c + k] }
        }
        return WideImage(width: width, height: height, channels: c - 1, samples: out)
    }

    /// The samples most significant byte first, as PNG and PNM store them.
    func bigEndianBytes() -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: samples.count * 2) { out, initialized in
            for (i, v) in samples.enumerated() {
                out[2 * i] = UInt8(v >> 8)
                out[2 * i + 1] = UInt8(v & 0xff)
            }
            initialized = samples.count * 2
        }
    }
}
