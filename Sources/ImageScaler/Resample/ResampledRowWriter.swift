/// Hands a `RowResampler`'s finished output rows to a `RowEncoder` as they appear,
/// each row once and in order, so encoding overlaps decoding (from a band's resampler
/// once the rows above it are written). The encoder is made on
/// the first rows, when the channel count is known.
final class ResampledRowWriter {
    private let format: ImageFormat
    private let target: Size
    private let options: EncodeOptions
    private var encoder: (any RowEncoder)?
    private var written = 0

    init(format: ImageFormat, target: Size, options: EncodeOptions) {
        self.format = format
        self.target = target
        self.options = options
    }

    /// Encodes every row the resampler has finished since the last call.
    func drain(_ resampler: RowResampler) throws {
        if encoder == nil {
            encoder = try format.encoder(width: target.width, height: target.height, channels: resampler.channels, options: options)
        }
        guard written >= resampler.outputRows.lowerBound, let encoder else { return }
        // A streamed resampler's rows wrap around its ring: in up to two runs.
        while resampler.rowsDone > written {
            let count = resampler.contiguousRows(from: written)
            try encoder.write(resampler.outputRow(written), count: count, bytesPerRow: target.width * resampler.channels)
            written += count
        }
    }

    /// The encoded file; every row must have been written.
    func finish() throws -> [UInt8] {
        guard let encoder, written == target.height else {
            throw EncodeError.incomplete(rows: written, of: target.height)
        }
        return try encoder.finish()
    }
}
