/// One frame of an animation as a `RowDecoder`, so that it runs through the plan every
/// still does: `info` is the animation's (its canvas size, RGBA, its orientation), and
/// the frame's rows are handed over as they are.
struct FrameDecoder: RowDecoder {
    let frame: PixelBuffer
    let info: ImageInfo
    let capabilities = DecoderCapabilities()

    func decode(region: Rect?, shrink: Int, options: DecodeOptions,
                begin: (DecodedRegion) throws -> Void, rows: (RowChunk) throws -> Void) throws -> ImageInfo {
        try begin(DecodedRegion(rect: Rect(size: frame.size), channels: frame.channels))
        try frame.pixels.withUnsafeBufferPointer { p in
            for y in stride(from: 0, to: frame.height, by: 16) {
                try rows(RowChunk(firstRow: y, count: min(16, frame.height - y), bytesPerRow: frame.bytesPerRow,
                                  pixels: p.baseAddress! + y * frame.bytesPerRow))
            }
        }
        return info
    }
}
