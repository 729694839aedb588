import Glibc
import CJXLShim

/// JPEG XL from rows (or a whole 16-bit image) through libjxl: lossy at a Butteraugli distance made from
/// `options.quality` (default 75, libvips's) or lossless, at effort `options.effort`
/// (libjxl's 1-9, default 7), alpha kept (gray becomes RGB), the ICC profile carried
/// (else sRGB), EXIF and XMP in boxes. libjxl encodes a whole picture, so rows are
/// gathered first. libjxl is given no thread pool: one thread, so the same bytes on
/// every run and machine.
final class JXLEncoder: RowEncoder {
    static let defaultQuality = 75
    static let defaultEffort = 7
    private let collector: RGBRows
    private let options: EncodeOptions

    /// libvips's mapping for libjxl before 0.9 (which has none of its own), after
    /// cjxl's: quality 30-100 falls linearly from distance 6.4 to 0.1, and below 30 a
    /// parabola reaches 25 at quality 0. Quality 75 is distance 2.35; 90 is 1.0, cjxl's
    /// default.
    static func distance(quality q: Int) -> Float {
        let q = Float(min(max(q, 0), 100))
        return q >= 30 ? 0.1 + (100 - q) * 0.09 : 53 / 3000 * q * q - 23 / 20 * q + 25
    }

    /// `--effort` as libjxl's 1-9 (0, which libjxl lacks, is its fastest).
    static func effort(_ e: Int?) -> Int { min(max(e ?? defaultEffort, 1), 9) }

    /// What libjxl holds while it encodes `pixels` at `effort`, by the release loaded,
    /// from the peak RSS of `fit --format jxl --threads 1` of the street photo at 1024,
    /// 2048 and 3840 wide (0.8, 3.1 and 11 MP). Efforts 8 and 9 search far more in both
    /// releases: 838-874 MB lossy and 267-444 MB lossless at 3 MP. Below 8, 0.7 takes 46
    /// bytes a pixel lossy, twice that at effort 7 past about 5 MP (1 GB at 11 MP), and up
    /// to 100 lossless (70 at effort 3: 725 MB and 999 MB at 11 MP); 0.11 takes 50-72
    /// bytes a pixel, but past about 4 MP (3 MP lossless) about 22 more a pixel, 4
    /// lossless (2560, 3200 and 3840 wide at effort 7: 277, 335 and 404 MB).
    static func workingBytes(pixels: Int, effort: Int, lossless: Bool) -> Int {
        // The library's own pages and heap, at any size (lossless codes without the
        // lossy path's tables).
        let own = lossless && effort < 8 ? 4 << 20 : 10 << 20
        if effort >= 8 { return own + pixels * (lossless ? (effort == 9 && cjxl_release() < 9 ? 150 : 100) : 290) }
        guard cjxl_release() >= 9 else {
            return own + pixels * (lossless ? (effort <= 3 ? 70 : 100) : effort >= 7 && pixels > 5_000_000 ? 92 : 46)
        }
        // Past the size it codes in groups, each further pixel costs libjxl 0.11 far less.
        let (near, grouped, far) = lossless ? (72, 3_200_000, 4) : (effort >= 7 ? 72 : 52, 4_000_000, 24)
        return own + min(pixels, grouped) * near + max(0, pixels - grouped) * far
    }

    /// A JPEG file's coded data as JPEG XL, with what djxl needs to give the same JPEG
    /// bytes back; about a fifth smaller (libjxl's claim).
    static func recompress(_ jpeg: [UInt8], effort: Int) throws -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        var message = ShimMessage()
        let status = jpeg.withUnsafeBufferPointer { j in
            message.with { cjxl_recompress_jpeg(j.baseAddress, j.count, Int32(effort), &out, &size, $0, $1) }
        }
        guard status == 0, let bytes = out else { throw EncodeError.failed(.jxl, message.text) }
        defer { free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: size))
    }

    /// A 16-bit image (gray made RGB, as for 8 bits), every sample kept when lossless.
    static func encode(_ image: WideImage, options: EncodeOptions) throws -> [UInt8] {
        let (width, height, channels) = (image.width, image.height, image.channels == 2 || image.channels == 4 ? 4 : 3)
        var samples = image.samples
        if image.channels <= 2 {
            samples = [UInt16](repeating: 0, count: width * height * channels)
            for i in 0..<(width * height) {
                let g = image.samples[i * image.channels]
                samples[i * channels] = g
                samples[i * channels + 1] = g
                samples[i * channels + 2] = g
                if channels == 4 { samples[i * channels + 3] = image.samples[i * 2 + 1] }
            }
        }
        var settings = cjxl_encode_options(distance: distance(quality: options.quality ?? defaultQuality),
                                           effort: Int32(effort(options.effort)), lossless: options.lossless ? 1 : 0, sample_bytes: 2)
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        var message = ShimMessage()
        let status = samples.withUnsafeBytes { p in
            options.withMetadata { i, e, x in
                message.with {
                    cjxl_encode(p.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt32(width), UInt32(height), Int32(channels),
                                width * channels * 2, &settings, i.baseAddress, i.count, e.baseAddress, e.count, x.baseAddress, x.count,
                                &out, &size, $0, $1)
                }
            }
        }
        guard status == 0, let bytes = out else { throw EncodeError.failed(.jxl, message.text) }
        defer { free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: size))
    }

    init(width: Int, height: Int, channels: Int, options: EncodeOptions) {
        collector = RGBRows(width: width, height: height, channels: channels)
        self.options = options
    }

    func write(_ rows: UnsafePointer<UInt8>, count: Int, bytesPerRow: Int) throws {
        collector.add(rows, count: count, bytesPerRow: bytesPerRow)
    }

    func finish() throws -> [UInt8] {
        var settings = cjxl_encode_options(distance: JXLEncoder.distance(quality: options.quality ?? JXLEncoder.defaultQuality),
                                           effort: Int32(JXLEncoder.effort(options.effort)), lossless: options.lossless ? 1 : 0,
                                           sample_bytes: 1)
        return try collector.encode(as: .jxl, metadata: options, { p, w, h, c, stride, i, e, x, out, size, m, n in
            cjxl_encode(p, w, h, c, stride, &settings, i.baseAddress, i.count, e.baseAddress, e.count, x.baseAddress, x.count, out, size, m, n)
        }, free: { free($0) })
    }
}
