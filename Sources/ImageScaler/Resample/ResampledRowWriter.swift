/// Hands a `RowResampler`'s finished output rows to a `RowEncoder` as they appear,
/// each row once and in order, so encoding overlaps decoding (from a band's resampler
/// once the rows above it are written). The encoder is made on
/// the first rows, when the channel count is known. With an unsharp mask the rows pass
/// through it on the way, each leaving a few rows later.
final class ResampledRowWriter {
    private let format: ImageFormat
    private let target: Size
    private let options: EncodeOptions
    private let sharpen: UnsharpMask?
    private var encoder: (any RowEncoder)?
    private var sharpener: UnsharpRows?
    /// Rows taken from the resampler, and rows the encoder has.
    private var written = 0
    private var encoded = 0

    init(format: ImageFormat, target: Size, options: EncodeOptions, sharpen: UnsharpMask? = nil) {
        self.format = format
        self.target = target
        self.options = options
        self.sharpen = sharpen
    }

    /// Encodes every row the resampler has finished since the last call.
    func drain(_ resampler: RowResampler) throws {
        if encoder == nil {
            encoder = try format.encoder(width: target.width, height: target.height, channels: resampler.channels, options: options)
            sharpener = sharpen.map { UnsharpRows($0, width: target.width, height: target.height, channels: resampler.channels) }
        }
        guard written >= resampler.outputRows.lowerBound, let encoder else { return }
        let bytesPerRow = target.width * resampler.channels
        // A streamed resampler's rows wrap around its ring: in up to two runs.
        while resampler.rowsDone > written {
            let count = resampler.contiguousRows(from: written)
            let rows = resampler.outputRow(written)
            if let sharpener {
                for i in 0..<count {
                    try sharpener.add(rows + i * bytesPerRow) { row in
                        try encoder.write(row, count: 1, bytesPerRow: bytesPerRow)
                        encoded += 1
                    }
                }
            } else {
                try encoder.write(rows, count: count, bytesPerRow: bytesPerRow)
                encoded += count
            }
            written += count
        }
    }

    /// The encoded file; every row must have been written.
    func finish() throws -> [UInt8] {
        guard let encoder, encoded == target.height else {
            throw EncodeError.incomplete(rows: encoded, of: target.height)
        }
        return try encoder.finish()
    }
}
