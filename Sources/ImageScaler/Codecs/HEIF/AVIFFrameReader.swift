import CAVIFShim

/// An AVIF image sequence's frames through libavif, in order: each a whole canvas (AV1
/// frames code the picture, not a patch over the last), RGBA with straight alpha, and
/// how long it shows. The file's bytes are held while the reader lives.
final class AVIFFrameReader: FrameReader {
    /// A sequence's `moov` says nothing of looping that libavif surfaces: it plays forever,
    /// as browsers play one.
    let loopCount = 0
    private let data: [UInt8]
    private let reader: OpaquePointer
    private let canvas: Size
    private let failOn: FailOn

    init(_ data: [UInt8], canvas: Size, options: DecodeOptions) throws {
        self.data = data
        // libavif reads from the bytes it is given for as long as the reader lives: the
        // array is kept in `data`, whose storage does not move.
        let (raw, reader) = try AVIFSequenceDecoder.open(self.data, options: options)
        guard raw.width == canvas.width, raw.height == canvas.height else {
            cavif_close(reader)
            throw DecodeError.invalid(.avif, "the sequence's size changed between two reads")
        }
        self.reader = reader
        self.canvas = canvas
        failOn = options.failOn
    }

    deinit { cavif_close(reader) }

    func next() throws -> (canvas: PixelBuffer, milliseconds: Int)? {
        let width = canvas.width
        return try Self.frame(of: canvas, format: .avif, failOn: failOn) { out, ms, err, size in
            var duration: UInt32 = 0
            let status = cavif_next(reader, 4, 1, out, width * 4, &duration, err, size)
            ms.pointee = Int32(clamping: duration)
            return status
        }
    }
}
