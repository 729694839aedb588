/// An animation's frames, one at a time, each composited on the canvas as its format
/// says (disposal, blending, transparency): RGBA with straight alpha, the canvas's size
/// (`ImageInfo.size`), stored orientation. A decoder gives one for a file of several
/// frames (`RowDecoder.frames`).
protocol FrameReader: AnyObject {
    /// How often the animation plays: 0 is forever.
    var loopCount: Int { get }
    /// The next frame's canvas and how long it shows, in ms; nil after the last.
    func next() throws -> (canvas: PixelBuffer, milliseconds: Int)?
}
