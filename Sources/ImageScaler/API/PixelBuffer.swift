/// An 8-bit image in memory.
///
/// Invariants: `pixels` is row-major with no padding (`bytesPerRow == width * channels`);
/// the first row is the visual top of the image and the first sample of a row its left
/// edge. Channels are interleaved as gray (1), gray+alpha (2), R,G,B (3) or R,G,B,A (4).
/// Colour is straight, never premultiplied; alpha is present only when the source had it.
public struct PixelBuffer: Equatable, Sendable {
    public let width: Int
    public let height: Int
    public let channels: Int
    public var pixels: [UInt8]

    /// Wraps existing samples; the count must be exactly `width * height * channels`,
    /// else it throws `GeometryError.badBuffer` (a caller's mistake never traps).
    public init(width: Int, height: Int, channels: Int, pixels: [UInt8]) throws {
        let samples = try PixelBuffer.sampleCount(width: width, height: height, channels: channels)
        guard pixels.count == samples else {
            throw GeometryError.badBuffer("a \(width)x\(height) image of \(channels) channels holds \(samples) samples, not \(pixels.count)")
        }
        self.init(width: width, height: height, channels: channels, validPixels: pixels)
    }

    /// A buffer with every sample set to `value`.
    public init(width: Int, height: Int, channels: Int, value: UInt8 = 0) throws {
        let samples = try PixelBuffer.sampleCount(width: width, height: height, channels: channels)
        self.init(width: width, height: height, channels: channels, validPixels: [UInt8](repeating: value, count: samples))
    }

    /// For the library's own stages, which make exactly `width * height * channels`
    /// samples: the invariant is theirs, so a mismatch is a bug and traps.
    package init(width: Int, height: Int, channels: Int, validPixels pixels: [UInt8]) {
        precondition(width > 0 && height > 0 && (1...4).contains(channels) && pixels.count == width * height * channels,
                     "a stage made a buffer of the wrong size")
        self.width = width
        self.height = height
        self.channels = channels
        self.pixels = pixels
    }

    /// `width * height * channels`, or why those cannot make an image.
    private static func sampleCount(width: Int, height: Int, channels: Int) throws -> Int {
        guard width > 0, height > 0 else { throw GeometryError.badBuffer("an image of \(width)x\(height) pixels is empty") }
        guard (1...4).contains(channels) else { throw GeometryError.badBuffer("\(channels) channels; an image has 1 to 4") }
        let (pixels, o1) = width.multipliedReportingOverflow(by: height)
        let (samples, o2) = pixels.multipliedReportingOverflow(by: channels)
        guard !o1, !o2 else { throw GeometryError.badBuffer("a \(width)x\(height) image is too large to address") }
        return samples
    }

    /// Storage for `count` samples that a decoder or pass is about to overwrite in full:
    /// skipping the zero fill saves a pass over memory (and its page faults) per image.
    package static func samples(count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
    }

    public var size: Size { Size(width: width, height: height) }
    public var bytesPerRow: Int { width * channels }
    public var hasAlpha: Bool { channels == 2 || channels == 4 }
    public var isGray: Bool { channels <= 2 }

    /// The samples of pixel (x, y), top-left origin.
    public subscript(x: Int, y: Int) -> [UInt8] {
        let start = (y * width + x) * channels
        return Array(pixels[start..<start + channels])
    }

    /// The same image without its alpha channel when every pixel is opaque: alpha is
    /// kept only where it carries something.
    public func droppingOpaqueAlpha() -> PixelBuffer {
        guard hasAlpha else { return self }
        let c = channels
        for i in stride(from: c - 1, to: pixels.count, by: c) where pixels[i] != 255 { return self }
        var out = PixelBuffer.samples(count: width * height * (c - 1))
        for i in 0..<(width * height) {
            for k in 0..<(c - 1) { out[i * (c - 1) + k] = pixels[i * c + k] }
        }
        return PixelBuffer(width: width, height: height, channels: c - 1, validPixels: out)
    }

    /// The same pixels as RGBA: gray is replicated, missing alpha is 255.
    public func rgba() -> [UInt8] { rgba(rows: nil) }

    /// As `rgba()`, but only the rows where `rows` is true are converted (the others are
    /// zero): a comparison converts only the rows that differ.
    public func rgba(rows: [Bool]?) -> [UInt8] {
        if channels == 4 { return pixels }
        let c = channels
        // n pixels from s (c channels) to d (4): one loop a layout, not a branch a pixel.
        func convert(_ s: UnsafePointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, _ n: Int) {
            switch c {
            case 1:
                for i in 0..<n { let v = s[i]; d[4 * i] = v; d[4 * i + 1] = v; d[4 * i + 2] = v; d[4 * i + 3] = 255 }
            case 2:
                for i in 0..<n { let v = s[2 * i]; d[4 * i] = v; d[4 * i + 1] = v; d[4 * i + 2] = v; d[4 * i + 3] = s[2 * i + 1] }
            default:
                // Four bytes read for three, one word written: all but the last pixel.
                let words = UnsafeMutableRawPointer(d)
                for i in 0..<max(n - 1, 0) {
                    let v = UnsafeRawPointer(s + 3 * i).loadUnaligned(as: UInt32.self)
                    words.storeBytes(of: (UInt32(littleEndian: v) | 0xFF00_0000).littleEndian, toByteOffset: 4 * i, as: UInt32.self)
                }
                if n > 0 { let i = n - 1; d[4 * i] = s[3 * i]; d[4 * i + 1] = s[3 * i + 1]; d[4 * i + 2] = s[3 * i + 2]; d[4 * i + 3] = 255 }
            }
        }
        return [UInt8](unsafeUninitializedCapacity: width * height * 4) { buffer, count in
            pixels.withUnsafeBufferPointer { p in
                let s = p.baseAddress!, d = buffer.baseAddress!
                if let rows {
                    for y in 0..<height {
                        if rows[y] { convert(s + y * width * c, d + y * width * 4, width) } else { (d + y * width * 4).initialize(repeating: 0, count: width * 4) }
                    }
                } else {
                    convert(s, d, width * height)
                }
            }
            count = width * height * 4
        }
    }
}
