import CWebPShim

/// WebP through libwebp as a `RowDecoder`: lossy, lossless and alpha; the first frame
/// of an animation (over the canvas, as libwebp's animation decoder composes it); ICC,
/// EXIF and XMP from the RIFF container. Stills decode at 1/2, 1/4 or 1/8 through
/// libwebp's own area-averaging scaler. The frame is decoded whole (libwebp writes
/// into one buffer) and then handed over in chunks: RGB, or RGBA with straight alpha.
/// A truncated file gives the rows it holds when `failOn` tolerates truncation.
struct WebPDecoder: RowDecoder {
    let data: [UInt8]
    let info: ImageInfo
    let capabilities: DecoderCapabilities

    init(_ data: [UInt8]) throws {
        self.data = data
        var raw = cwebp_info()
        var message = ShimMessage()
        let status = data.withUnsafeBufferPointer { d in message.with { cwebp_read_info(d.baseAddress, d.count, &raw, $0, $1) } }
        guard status == 0 else { throw DecodeError.invalid(.webp, message.text) }
        func bytes(_ p: UnsafePointer<UInt8>?, _ n: UInt32) -> [UInt8]? {
            // The chunk pointers point into `data`, which is alive for this call.
            guard let p, n > 0 else { return nil }
            return Array(UnsafeBufferPointer(start: p, count: Int(n)))
        }
        let exif = bytes(raw.exif, raw.exif_length).map(WebPDecoder.tiff)
        var warnings: [String] = []
        var orientation = Orientation.up
        if let exif {
            switch ExifReader.orientation(in: exif) {
            case .success(let o): orientation = o
            case .failure(let e): warnings.append("ignoring broken EXIF (\(e)); orientation 1 assumed")
            }
        }
        let alpha = raw.has_alpha != 0
        let size = Size(width: Int(raw.width), height: Int(raw.height))
        info = ImageInfo(format: .webp, size: size, channels: alpha ? 4 : 3, bitDepth: 8, colorModel: alpha ? .rgba : .rgb,
                         orientation: orientation, interlaced: false, iccProfile: bytes(raw.icc, raw.icc_length), exif: exif,
                         xmp: bytes(raw.xmp, raw.xmp_length), frames: Int(raw.frames),
                         workingBytes: WebPDecoder.workingBytes(size, alpha: alpha, animated: raw.frames > 1), warnings: warnings)
        capabilities = DecoderCapabilities(shrinkFactors: raw.frames > 1 ? [1] : [1, 2, 4, 8])
    }

    /// WebP's EXIF chunk is a TIFF block, though some writers keep JPEG's "Exif\0\0".
    private static func tiff(_ exif: [UInt8]) -> [UInt8] {
        exif.starts(with: Array("Exif\0\0".utf8)) ? Array(exif.dropFirst(6)) : exif
    }

    /// Besides the decoded image: libwebp's animation decoder composes each frame on
    /// an RGBA canvas and keeps the previous one for disposal, two canvases however
    /// small the frames (a 12500-square canvas of two 1x1 frames held 1.2 GB unseen).
    static func workingBytes(_ size: Size, alpha: Bool, animated: Bool) -> Int {
        size.width * size.height * ((alpha ? 4 : 3) + (animated ? 8 : 0))
    }

    func frames(options: DecodeOptions) throws -> (any FrameReader)? {
        info.frames > 1 ? try WebPFrameReader(data, canvas: info.size) : nil
    }

    func decode(region: Rect?, shrink: Int, options: DecodeOptions,
                begin: (DecodedRegion) throws -> Void, rows: (RowChunk) throws -> Void) throws -> ImageInfo {
        var info = self.info
        try options.check(info.size)
        let factor = capabilities.shrinkFactors.contains(shrink) ? shrink : 1
        let width = (info.size.width + factor - 1) / factor, height = (info.size.height + factor - 1) / factor
        let channels = info.channels, rowBytes = width * channels
        // Zeroed: rows a truncated file never reaches stay black (transparent with alpha).
        var pixels = [UInt8](repeating: 0, count: rowBytes * height)
        var done: UInt32 = 0
        var message = ShimMessage()
        let status = data.withUnsafeBufferPointer { d in
            pixels.withUnsafeMutableBufferPointer { out in
                message.with {
                    cwebp_decode(d.baseAddress, d.count, Int32(channels), UInt32(width), UInt32(height), out.baseAddress, rowBytes, &done, $0, $1)
                }
            }
        }
        if status != 0 {
            guard status == -2, options.failOn.tolerates(.truncated) else {
                throw status == -2 ? DecodeError.refusing(.invalid(.webp, message.text), damage: .truncated) : DecodeError.invalid(.webp, message.text)
            }
            info.warnings.append("damaged WebP decoded anyway (fail-on \(options.failOn.rawValue)): \(message.text); "
                                 + "\(done) of \(height) rows decoded, the rest left black")
        }
        try begin(DecodedRegion(rect: Rect(x: 0, y: 0, width: width, height: height), channels: channels))
        try pixels.withUnsafeBufferPointer { try RowChunk.handOver($0, height: height, bytesPerRow: rowBytes, to: rows) }
        return info
    }
}
