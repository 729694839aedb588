import CGIFShim

/// A GIF's frames through giflib, record by record, composited on the canvas as browsers
/// show them (`cgif_frames_next`): a frame is decoded only when asked for, so a long GIF
/// holds two canvases, never all its frames. A file that ends early ends the animation
/// after its last whole frame when `failOn` tolerates truncation.
final class GIFFrameReader: FrameReader {
    private let data: [UInt8]
    private let handle: OpaquePointer
    private let size: Size
    private let failOn: FailOn
    let loopCount: Int

    init(_ data: [UInt8], canvas size: Size, failOn: FailOn) throws {
        self.data = data
        self.size = size
        self.failOn = failOn
        var loops: UInt32 = 1
        var message = ShimMessage()
        // giflib reads `data` in place: the array is kept (and never mutated) for its life.
        guard let h = data.withUnsafeBufferPointer({ d in
            message.with { cgif_frames_open(d.baseAddress, d.count, UInt32(size.width), UInt32(size.height), &loops, $0, $1) }
        }) else { throw DecodeError.invalid(.gif, message.text) }
        handle = h
        loopCount = Int(loops)
    }

    deinit { cgif_frames_close(handle) }

    func next() throws -> (canvas: PixelBuffer, milliseconds: Int)? {
        try Self.frame(of: size, format: .gif, failOn: failOn) { cgif_frames_next(handle, $0, $1, $2, $3) }
    }
}
