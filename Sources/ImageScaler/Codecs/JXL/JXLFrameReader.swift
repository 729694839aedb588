import CJXLShim

/// A JPEG XL animation's frames through libjxl, each composited on the canvas (libjxl's
/// coalescing), durations from the frame headers in the file's ticks.
final class JXLFrameReader: FrameReader {
    private let data: [UInt8]
    private let handle: OpaquePointer
    private let size: Size
    private let failOn: FailOn
    let loopCount: Int

    init(_ data: [UInt8], canvas size: Size, failOn: FailOn) throws {
        self.data = data
        self.size = size
        self.failOn = failOn
        var loops: UInt32 = 0
        var message = ShimMessage()
        // libjxl reads `data` in place: the array is kept (and never mutated) for its life.
        guard let h = data.withUnsafeBufferPointer({ d in
            message.with { cjxl_frames_open(d.baseAddress, d.count, UInt32(size.width), UInt32(size.height), &loops, $0, $1) }
        }) else { throw DecodeError.invalid(.jxl, message.text) }
        handle = h
        loopCount = Int(loops)
    }

    deinit { cjxl_frames_close(handle) }

    func next() throws -> (canvas: PixelBuffer, milliseconds: Int)? {
        var pixels = PixelBuffer.samples(count: size.width * size.height * 4)
        var ms: Int32 = 0
        var message = ShimMessage()
        let status = pixels.withUnsafeMutableBufferPointer { out in message.with { cjxl_frames_next(handle, out.baseAddress, &ms, $0, $1) } }
        if status == 1 { return nil }
        if status == -2 {
            guard failOn.tolerates(.truncated) else { throw DecodeError.refusing(.invalid(.jxl, message.text), damage: .truncated) }
            return nil
        }
        guard status == 0 else { throw DecodeError.invalid(.jxl, message.text) }
        return (PixelBuffer(width: size.width, height: size.height, channels: 4, validPixels: pixels), Int(ms))
    }
}
