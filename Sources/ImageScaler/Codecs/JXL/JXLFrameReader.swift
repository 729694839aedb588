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
        try Self.frame(of: size, format: .jxl, failOn: failOn) { cjxl_frames_next(handle, $0, $1, $2, $3) }
    }
}
