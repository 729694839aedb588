/// An animation's frames, one at a time, each composited on the canvas as its format
/// says (disposal, blending, transparency): RGBA with straight alpha, the canvas's size
/// (`ImageInfo.size`), stored orientation. A decoder gives one for a file of several
/// frames (`RowDecoder.frames`).
package protocol FrameReader: AnyObject {
    /// How often the animation plays: 0 is forever.
    var loopCount: Int { get }
    /// The next frame's canvas and how long it shows, in ms; nil after the last.
    func next() throws -> (canvas: PixelBuffer, milliseconds: Int)?
}

extension FrameReader {
    /// One frame from a C reader's `next` (`call`, given the canvas to fill, where to put
    /// the frame's ms and room for its message; 0 a frame, 1 the end, -2 the data ends
    /// early, else a failure): a file cut short ends the animation after its last whole
    /// frame when `failOn` tolerates truncation, as a still decode would.
    static func frame(of size: Size, format: ImageFormat, failOn: FailOn,
                      _ call: (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<Int32>, UnsafeMutablePointer<CChar>, Int) -> Int32)
        throws -> (canvas: PixelBuffer, milliseconds: Int)? {
        var pixels = PixelBuffer.samples(count: size.width * size.height * 4)
        var ms: Int32 = 0
        var message = ShimMessage()
        let status = pixels.withUnsafeMutableBufferPointer { out in message.with { call(out.baseAddress!, &ms, $0, $1) } }
        if status == 1 { return nil }
        if status == -2 {
            guard failOn.tolerates(.truncated) else { throw DecodeError.refusing(.invalid(format, message.text), damage: .truncated) }
            return nil
        }
        guard status == 0 else { throw DecodeError.invalid(format, message.text) }
        return (PixelBuffer(width: size.width, height: size.height, channels: 4, validPixels: pixels), Int(ms))
    }
}
