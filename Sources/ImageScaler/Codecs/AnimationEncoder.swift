/// An animated file made frame by frame, for a format that holds animations
/// (`CodecDescriptor.Writer.animation`): frames are RGBA with straight alpha, all of the
/// size the encoder was made for, each shown for its ms. Deterministic: one thread.
protocol AnimationEncoder: AnyObject {
    func add(_ frame: PixelBuffer, milliseconds: Int) throws
    func finish() throws -> [UInt8]
}
