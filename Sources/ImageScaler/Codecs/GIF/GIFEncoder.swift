/// A still GIF from rows (`GIFFrameWriter`): gathered whole, since the colour table
/// comes from every pixel; gray becomes RGB.
final class GIFEncoder: RowEncoder {
    private let collector: RGBRows
    private let size: Size

    init(width: Int, height: Int, channels: Int) {
        collector = RGBRows(width: width, height: height, channels: channels)
        size = Size(width: width, height: height)
    }

    func write(_ rows: UnsafePointer<UInt8>, count: Int, bytesPerRow: Int) throws {
        collector.add(rows, count: count, bytesPerRow: bytesPerRow)
    }

    func finish() throws -> [UInt8] {
        guard collector.isComplete else { throw EncodeError.incomplete(rows: collector.rows, of: size.height) }
        let writer = try GIFFrameWriter(size: size, loopCount: nil)
        try writer.add(rgba: GIFEncoder.rgba(collector.pixels, channels: collector.channels), milliseconds: 0)
        return try writer.finish()
    }

    /// RGB or RGBA samples as RGBA.
    static func rgba(_ pixels: [UInt8], channels: Int) -> [UInt8] {
        guard channels == 3 else { return pixels }
        var out = [UInt8](repeating: 255, count: pixels.count / 3 * 4)
        for i in 0..<(pixels.count / 3) {
            out[i * 4] = pixels[i * 3]
            out[i * 4 + 1] = pixels[i * 3 + 1]
            out[i * 4 + 2] = pixels[i * 3 + 2]
        }
        return out
    }
}
