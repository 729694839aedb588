/// An animated GIF, frame by frame (`GIFFrameWriter`): each frame whole, replacing the
/// one before (libcgif writes no frame over another), under one global colour table where
/// the frames' colours fit it, else each with its own; delays rounded to hundredths of a
/// second.
final class GIFAnimationEncoder: AnimationEncoder {
    private let writer: GIFFrameWriter
    private let size: Size

    init(size: Size, loopCount: Int) throws {
        self.size = size
        writer = try GIFFrameWriter(size: size, loopCount: loopCount)
    }

    func add(_ frame: PixelBuffer, milliseconds: Int) throws {
        guard frame.size == size else { throw EncodeError.failed(.gif, "a frame of \(frame.size) in an animation of \(size)") }
        try writer.add(rgba: GIFEncoder.rgba(frame.pixels, channels: frame.channels), milliseconds: milliseconds)
    }

    func finish() throws -> [UInt8] { try writer.finish() }
}
