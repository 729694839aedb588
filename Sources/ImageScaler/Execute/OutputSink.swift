/// One output of a decode: what its plan's path says, with nothing left to decide. The
/// stream path resamples rows and encodes each as soon as it is made; the held path
/// resamples, then finishes the small result by the plan's stages (`Finisher`) and
/// encodes it at `finish`; a streamed convert (no resampler) hands the decoded rows, the
/// whole image in order, to the encoder as they come. The resampler works over the rows
/// of whatever region the decode delivers (its window, or the union of several outputs'
/// windows: the weights are the image's either way, so the bytes are the same). Used by
/// one thread at a time; a `lowerBand`, when the executor splits the decode, is fed on
/// another and makes the bottom output rows.
final class OutputSink {
    let plan: RenderPlan
    /// nil when the pixels are wanted, not a file (`image()`).
    private let format: ImageFormat?
    private let encoding: (Int) -> EncodeOptions
    /// Set before decoding starts; then this output's resampler makes only the rows above it.
    var lowerBand: LowerBand?

    /// What the sink does with rows, fixed at `begin` from the plan.
    private enum Mode {
        case waiting
        case copy(any RowEncoder, rows: Int)
        case stream(RowResampler, ResampledRowWriter)
        case hold(RowResampler)
    }
    private var mode = Mode.waiting

    /// `encoding(channels)` gives the encoder's options for a result of that many channels.
    init(plan: RenderPlan, format: ImageFormat?, encoding: @escaping (Int) -> EncodeOptions) {
        self.plan = plan
        self.format = format
        self.encoding = encoding
    }

    /// The work of encoding this output, to order encodes by (`EncodeGate`).
    var encodingCost: Int { plan.target.width * plan.target.height * (format?.encodeWork ?? 1) }

    func begin(_ region: DecodedRegion) throws {
        switch (plan.path, plan.resample, format) {
        case (.stream, nil, let format?):
            mode = .copy(try format.encoder(width: plan.target.width, height: plan.target.height, channels: region.channels,
                                            options: encoding(region.channels)), rows: 0)
        case (.stream, let r?, let format?):
            // Encoded as they are made, so the resampler keeps only the last few rows.
            mode = .stream(resampler(r, region, streamed: true),
                           ResampledRowWriter(format: format, target: plan.target, options: encoding(region.channels),
                                              sharpen: plan.stages.lazy.compactMap(\.unsharpMask).first))
        case (_, let r?, _):
            mode = .hold(resampler(r, region, streamed: false))
        default:
            throw EncodeError.incomplete(rows: 0, of: plan.target.height)
        }
    }

    private func resampler(_ r: RenderPlan.Resample, _ region: DecodedRegion, streamed: Bool) -> RowResampler {
        RowResampler(region: region.rect, channels: region.channels, rect: r.sampling, target: r.storedTarget, filter: r.filter,
                     band: lowerBand.map { 0..<$0.firstOutputRow }, streamed: streamed)
    }

    func add(_ chunk: RowChunk) throws {
        switch mode {
        case .waiting:
            return
        case .copy(let encoder, let rows):
            try encoder.write(chunk.pixels, count: chunk.count, bytesPerRow: chunk.bytesPerRow)
            mode = .copy(encoder, rows: rows + chunk.count)
        case .stream(let resampler, let writer):
            try resampler.add(chunk) { try writer.drain(resampler) }
        case .hold(let resampler):
            resampler.add(chunk)
        }
    }

    /// The encoded output; every row of the region must have been added.
    func finish(info: ImageInfo) throws -> RenderResult {
        switch mode {
        case .waiting:
            throw EncodeError.incomplete(rows: 0, of: plan.target.height)
        case .copy(let encoder, let rows):
            guard rows == plan.target.height else { throw EncodeError.incomplete(rows: rows, of: plan.target.height) }
            return RenderResult(bytes: try encoder.finish(), size: plan.target, info: info, decodeScale: 1)
        case .stream(let resampler, let writer):
            try checkComplete(resampler)
            if let lower = lowerBand?.resampler { try writer.drain(lower) }
            return RenderResult(bytes: try writer.finish(), size: plan.target, info: info, decodeScale: plan.resample?.shrink ?? 1)
        case .hold(let resampler):
            try checkComplete(resampler)
            let final = try Finisher.apply(plan.stages, to: resampler.finish(below: lowerBand?.resampler))
            guard let format else { throw EncodeError.incomplete(rows: 0, of: plan.target.height) }
            let encoded = try format.encodeReporting(final, palettise: plan.stages.contains { $0.palettes }, options: encoding(final.channels))
            return RenderResult(encoded, size: final.size, info: info, decodeScale: plan.resample?.shrink ?? 1)
        }
    }

    /// A split decode's two bands must both be made.
    private func checkComplete(_ resampler: RowResampler) throws {
        if let band = lowerBand, !(band.isComplete && resampler.rowsDone == resampler.outputRows.upperBound) {
            throw EncodeError.incomplete(rows: resampler.rowsDone, of: plan.target.height)
        }
    }

    /// The resampled pixels, finished (no encoding).
    func image() throws -> PixelBuffer {
        guard case .hold(let resampler) = mode else { throw EncodeError.incomplete(rows: 0, of: plan.target.height) }
        return try Finisher.apply(plan.stages, to: resampler.finish())
    }
}
