/// One output of a decode: its own resampler over the rows of whatever region the
/// decode delivers (its window, or the union of several outputs' windows: the weights
/// are the image's either way, so the bytes are the same), then its stages and its
/// encoder. On the stream path rows are encoded as soon as they are resampled; on the
/// held path the small result is finished by the plan's stages (`Finisher`) and encoded
/// at `finish`. A streamed convert has no resampler: the
/// decoded rows (the whole image, in order) go to the encoder as they come. Used by
/// one thread at a time; a `lowerBand`, when the executor splits the decode, is fed on
/// another and makes the bottom output rows.
final class OutputSink {
    let plan: RenderPlan
    private let resample: RenderPlan.Resample?
    /// nil when the pixels are wanted, not a file (`image()`).
    private let format: ImageFormat?
    private let encoding: (Int) -> EncodeOptions
    private var resampler: RowResampler?
    private var writer: ResampledRowWriter?
    private var copier: (encoder: any RowEncoder, rows: Int)?
    /// Set before decoding starts; then this output's resampler makes only the rows above it.
    var lowerBand: LowerBand?

    /// `encoding(channels)` gives the encoder's options for a result of that many channels.
    init(plan: RenderPlan, format: ImageFormat?, encoding: @escaping (Int) -> EncodeOptions) {
        self.plan = plan
        self.resample = plan.resample
        self.format = format
        self.encoding = encoding
    }

    func begin(_ region: DecodedRegion) throws {
        guard let resample else {
            guard let format else { throw EncodeError.incomplete(rows: 0, of: plan.target.height) }
            copier = (try format.encoder(width: plan.target.width, height: plan.target.height, channels: region.channels,
                                         options: encoding(region.channels)), 0)
            return
        }
        // The stream path carries no alpha, so flattening never applies to it; its rows
        // are encoded as they are made, so the resampler keeps only the last few.
        let streams = plan.path == .stream && format != nil
        resampler = RowResampler(region: region.rect, channels: region.channels, rect: resample.sampling,
                                 target: resample.storedTarget, filter: resample.filter, band: lowerBand.map { 0..<$0.firstOutputRow },
                                 streamed: streams)
        if streams, let format {
            writer = ResampledRowWriter(format: format, target: plan.target, options: encoding(region.channels))
        }
    }

    func add(_ chunk: RowChunk) throws {
        if let (encoder, rows) = copier {
            try encoder.write(chunk.pixels, count: chunk.count, bytesPerRow: chunk.bytesPerRow)
            copier!.rows = rows + chunk.count  // Invariant: inside `if let copier`.
            return
        }
        guard let resampler else { return }
        guard let writer else { return resampler.add(chunk) }
        try resampler.add(chunk) { try writer.drain(resampler) }
    }

    /// The encoded output; every row of the region must have been added.
    func finish(info: ImageInfo) throws -> RenderResult {
        if let (encoder, rows) = copier {
            guard rows == plan.target.height else { throw EncodeError.incomplete(rows: rows, of: plan.target.height) }
            return RenderResult(bytes: try encoder.finish(), size: plan.target, info: info, decodeScale: 1)
        }
        guard let resample, let resampler else { throw EncodeError.incomplete(rows: 0, of: plan.target.height) }
        let lower = lowerBand?.resampler
        if lowerBand != nil && !(lowerBand!.isComplete && resampler.rowsDone == resampler.outputRows.upperBound) {
            throw EncodeError.incomplete(rows: resampler.rowsDone, of: plan.target.height)
        }
        if let writer {
            if let lower { try writer.drain(lower) }
            return RenderResult(bytes: try writer.finish(), size: plan.target, info: info, decodeScale: resample.shrink)
        }
        let final = try Finisher.apply(plan.stages, to: resampler.finish(below: lower))
        guard let format else { throw EncodeError.incomplete(rows: 0, of: plan.target.height) }
        let (bytes, warnings) = try format.encodeReporting(final, palettise: plan.stages.contains(.palettise),
                                                           options: encoding(final.channels))
        var reported = info
        reported.warnings += warnings.filter { !reported.warnings.contains($0) }
        return RenderResult(bytes: bytes, size: final.size, info: reported, decodeScale: resample.shrink)
    }

    /// The resampled pixels, finished (no encoding).
    func image() throws -> PixelBuffer {
        // Invariant: asked only of a sink that resamples (the whole path's own image()).
        try Finisher.apply(plan.stages, to: resampler!.finish())
    }
}
