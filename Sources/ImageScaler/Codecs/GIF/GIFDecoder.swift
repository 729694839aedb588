import CGIFShim

/// GIF through giflib as a `RowDecoder`: the first frame over the logical screen (grown
/// to hold that frame where it reaches past the screen, as Pillow and browsers show it), its
/// transparent index becoming alpha 0 (RGBA; RGB when it has none), interlaced rows put
/// in place; `info` counts the frames. giflib decodes to indices row by row, but an
/// interlaced image's rows arrive out of order, so the frame is made whole first.
/// Truncated data gives the rows it holds when `failOn` tolerates truncation.
struct GIFDecoder: RowDecoder {
    let data: [UInt8]
    let info: ImageInfo
    let capabilities = DecoderCapabilities()
    /// The first image's own size: giflib decodes every one of its pixels, so the pixel
    /// limit covers it too (the canvas holds it, so this is also checked there).
    let frame: Size

    init(_ data: [UInt8]) throws {
        self.data = data
        var raw = cgif_info()
        var message = ShimMessage()
        let status = data.withUnsafeBufferPointer { d in message.with { cgif_read_info(d.baseAddress, d.count, &raw, $0, $1) } }
        guard status == 0 else { throw DecodeError.invalid(.gif, message.text) }
        let alpha = raw.transparent != 0
        let size = Size(width: Int(raw.width), height: Int(raw.height))
        frame = Size(width: Int(raw.frame_width), height: Int(raw.frame_height))
        info = ImageInfo(format: .gif, size: size, channels: alpha ? 4 : 3, bitDepth: 8, colorModel: .palette, orientation: .up,
                         interlaced: raw.interlaced != 0, iccProfile: nil, exif: nil, xmp: nil, frames: Int(raw.frames),
                         workingBytes: size.width * size.height * (alpha ? 4 : 3) + size.width)
    }

    func frames(options: DecodeOptions) throws -> (any FrameReader)? {
        info.frames > 1 ? try GIFFrameReader(data, canvas: info.size, failOn: options.failOn) : nil
    }

    func decode(region: Rect?, shrink: Int, options: DecodeOptions,
                begin: (DecodedRegion) throws -> Void, rows: (RowChunk) throws -> Void) throws -> ImageInfo {
        var info = self.info
        try options.check(info.size)
        if frame.width > 0 && frame.height > 0 { try options.check(frame) }
        let (width, height, channels) = (info.size.width, info.size.height, info.channels)
        let rowBytes = width * channels
        var pixels = PixelBuffer.samples(count: rowBytes * height)
        var done: UInt32 = 0
        var message = ShimMessage()
        let status = data.withUnsafeBufferPointer { d in
            pixels.withUnsafeMutableBufferPointer { out in
                message.with { cgif_decode(d.baseAddress, d.count, UInt32(width), UInt32(height), Int32(channels), out.baseAddress, rowBytes,
                                           &done, $0, $1) }
            }
        }
        if status != 0 {
            let damage: FailOn = status == -2 ? .truncated : .error
            guard options.failOn.tolerates(damage) else { throw DecodeError.refusing(.invalid(.gif, message.text), damage: damage) }
            info.warnings.append("damaged GIF decoded anyway (fail-on \(options.failOn.rawValue)): \(message.text); "
                                 + "\(done) of \(height) rows decoded, the rest left as background")
        }
        try begin(DecodedRegion(rect: Rect(size: info.size), channels: channels))
        try pixels.withUnsafeBufferPointer { try RowChunk.handOver($0, height: height, bytesPerRow: rowBytes, to: rows) }
        return info
    }
}
