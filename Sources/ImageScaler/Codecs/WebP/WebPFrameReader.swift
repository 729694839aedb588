import CWebPShim

/// An animated WebP's frames through libwebp's animation decoder, which composites each
/// on the canvas (disposal and blending as the file says), on one thread.
final class WebPFrameReader: FrameReader {
    private let data: [UInt8]
    private let handle: OpaquePointer
    private let size: Size
    let loopCount: Int

    init(_ data: [UInt8], canvas size: Size) throws {
        self.data = data
        self.size = size
        var loops: UInt32 = 0
        var message = ShimMessage()
        // The decoder reads `data` in place: the array is kept (and never mutated) for its life.
        guard let h = data.withUnsafeBufferPointer({ d in message.with { cwebp_frames_open(d.baseAddress, d.count, &loops, $0, $1) } }) else {
            throw DecodeError.invalid(.webp, message.text)
        }
        handle = h
        loopCount = Int(loops)
    }

    deinit { cwebp_frames_close(handle) }

    /// libwebp's reader never reports a file cut short apart from other damage.
    func next() throws -> (canvas: PixelBuffer, milliseconds: Int)? {
        try Self.frame(of: size, format: .webp, failOn: .warning) {
            cwebp_frames_next(handle, UInt32(size.width), UInt32(size.height), $0, $1, $2, $3)
        }
    }
}
