import Dispatch

/// Runs a `RenderPlan`: decoder rows -> resampler -> stages -> encoder. The one place
/// that decides to use a second core, from `threads`: decoding ahead on another thread
/// while this one resamples and encodes, and decoding a region's two halves at once
/// where the decoder can split it. The bytes are the same either way.
struct RenderExecutor {
    let decoder: any RowDecoder
    let plan: RenderPlan
    let options: DecodeOptions
    let threads: Int
    let splitRegions: Bool

    private var concurrent: Bool { threads > 1 }

    /// The encoded output. `encoding(channels)` gives the encoder's options for a
    /// result of that many channels (the ICC profile fits or it does not).
    /// With `flattenOnto`, alpha is composited onto that colour first (the stream path
    /// never carries alpha).
    func render(as format: ImageFormat, flattenOnto: RGBColor? = nil, encoding: (Int) -> EncodeOptions) throws -> RenderResult {
        guard plan.path == .stream, let resample = plan.resample else {
            let (image, decoded) = try image()
            let final = flattenOnto.map { Flattener.flatten(image, onto: $0) } ?? image.droppingOpaqueAlpha()
            return RenderResult(bytes: try format.encode(final, options: encoding(final.channels)),
                                size: final.size, info: decoded)
        }
        let writer = ResampledRowWriter(format: format, target: plan.target, options: encoding(decoder.info.channels))
        if !concurrent {
            let (_, decoded) = try resampled(resample) { try writer.drain($0) }
            return RenderResult(bytes: try writer.finish(), size: plan.target, info: decoded)
        }
        // Two threads: this one resamples and encodes what the other decodes.
        let pipe = ChunkPipe(capacity: 8)
        var producerError: Error? = nil
        var decoded = decoder.info
        let producer = DispatchWorkItem {
            do {
                decoded = try self.decodeRows(resample, begin: { pipe.begin($0) }, rows: { try pipe.push($0) })
            } catch {
                producerError = error
            }
            pipe.close()
        }
        DispatchQueue.global().async(execute: producer)
        var resampler: RowResampler? = nil
        var consumerError: Error? = nil
        while let item = pipe.pop() {
            do {
                switch item {
                case .begin(let region):
                    resampler = RowResampler(source: region.rect.size, channels: region.channels,
                                             rect: resample.localSampling(in: region), target: resample.storedTarget,
                                             filter: resample.filter)
                case .rows(let firstRow, let count, let bytesPerRow, let pixels):
                    guard let r = resampler else { continue }
                    pixels.withUnsafeBufferPointer {
                        r.add(RowChunk(firstRow: firstRow, count: count, bytesPerRow: bytesPerRow, pixels: $0.baseAddress!))
                    }
                    try writer.drain(r)
                }
            } catch {
                consumerError = error
                pipe.cancel()
                break
            }
        }
        producer.wait()
        if let producerError, !(producerError is CancellationError) { throw producerError }
        if let consumerError { throw consumerError }
        return RenderResult(bytes: try writer.finish(), size: plan.target, info: decoded)
    }

    /// The result as pixels: resampled and then turned upright and letterboxed, or, with
    /// no resampling, the decoded image (or region) cut and turned upright.
    func image() throws -> (PixelBuffer, ImageInfo) {
        if let resample = plan.resample {
            let (resampler, decoded) = try resampled(resample, onRows: nil)
            return (plan.operation.padded(Orienter.upright(resampler.finish(), plan.orientation)), decoded)
        }
        var collector = RowCollector()
        let decoded = try decoder.decode(region: plan.cropRegion?.window, shrink: 1, options: options,
                                         begin: { collector.begin($0) }, rows: { collector.add($0) })
        if let (kept, _) = plan.cropRegion {
            let at = collector.region.rect
            let part = try Scaling.crop(collector.image, to: Rect(x: kept.x - at.x, y: kept.y - at.y, width: kept.width, height: kept.height))
            return (Orienter.upright(part, plan.orientation), decoded)
        }
        return (try plan.operation.apply(Orienter.upright(collector.image, plan.orientation)), decoded)
    }

    /// Decodes into a `RowResampler`, calling `onRows` after every chunk of rows.
    private func resampled(_ resample: RenderPlan.Resample,
                           onRows: ((RowResampler) throws -> Void)?) throws -> (RowResampler, ImageInfo) {
        var resampler: RowResampler? = nil
        let info = try decodeRows(resample, begin: { region in
            resampler = RowResampler(source: region.rect.size, channels: region.channels,
                                     rect: resample.localSampling(in: region), target: resample.storedTarget,
                                             filter: resample.filter)
        }, rows: { chunk in
            resampler!.add(chunk)
            try onRows?(resampler!)
        })
        return (resampler!, info)
    }

    /// The plan's rows, split in two halves decoded at once when there is a core to spare
    /// and the decoder can split the window.
    private func decodeRows(_ resample: RenderPlan.Resample, begin: (DecodedRegion) throws -> Void,
                            rows: (RowChunk) throws -> Void) throws -> ImageInfo {
        if concurrent && splitRegions && decoder.capabilities.splitsRegions, let window = resample.window,
           let halves = decoder.halves(of: window, shrink: resample.shrink, options: options) {
            return try RenderExecutor.decode(halves, begin: begin, rows: rows)
        }
        return try decoder.decode(region: resample.window, shrink: resample.shrink, options: options, begin: begin, rows: rows)
    }

    /// Runs `work` on a Dispatch worker and awaits it, so that an async caller's
    /// cooperative thread is never blocked by decoding.
    static func offload<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// `region` decoded whole into memory - split in halves decoded at once when `split`
    /// and the decoder can - with where it sits in the shrunk image.
    static func collect(_ decoder: any RowDecoder, region: Rect?, shrink: Int, options: DecodeOptions,
                        split: Bool) throws -> (PixelBuffer, Rect, ImageInfo) {
        var collector = RowCollector()
        let info: ImageInfo
        if split, let region, let halves = decoder.halves(of: region, shrink: shrink, options: options) {
            info = try decode(halves, begin: { collector.begin($0) }, rows: { collector.add($0) })
        } else {
            info = try decoder.decode(region: region, shrink: shrink, options: options,
                                      begin: { collector.begin($0) }, rows: { collector.add($0) })
        }
        return (collector.image, collector.region.rect, info)
    }

    /// The bottom half decodes on another thread into a buffer while the top half
    /// streams; then the buffered rows follow. Both halves have the same columns, so
    /// they deliver the same column range.
    static func decode(_ halves: RegionHalves, begin: (DecodedRegion) throws -> Void,
                       rows: (RowChunk) throws -> Void) throws -> ImageInfo {
        var lower = RowCollector()
        var lowerError: Error? = nil
        var lowerWarnings: [String] = []
        let work = DispatchWorkItem {
            do {
                lowerWarnings = try halves.decodeBottom({ lower.begin($0) }, { lower.add($0) }).warnings
            } catch {
                lowerError = error
            }
        }
        DispatchQueue.global().async(execute: work)
        var upper: DecodedRegion? = nil
        var info: ImageInfo
        do {
            info = try halves.decodeTop({ region in
                upper = region
                var whole = region.rect
                whole.height += halves.bottom.height
                try begin(DecodedRegion(rect: whole, channels: region.channels))
            }, rows)
        } catch {
            // The other half reads the same data and `lower`: it must end first (and
            // libdispatch allows one wait per work item).
            work.wait()
            throw error
        }
        work.wait()
        if let lowerError { throw lowerError }
        info.warnings += lowerWarnings.filter { !info.warnings.contains($0) }
        let got = lower.region
        guard let upper, got.channels == upper.channels, got.rect.x == upper.rect.x, got.rect.width == upper.rect.width,
              got.rect.y == upper.rect.maxY, got.rect.height == halves.bottom.height else {
            throw DecodeError.inconsistentHalves
        }
        let bytesPerRow = got.rect.width * got.channels
        let image = lower.image
        try image.pixels.withUnsafeBufferPointer { pixels in
            for y in stride(from: 0, to: got.rect.height, by: 16) {
                try rows(RowChunk(firstRow: upper.rect.height + y, count: min(16, got.rect.height - y), bytesPerRow: bytesPerRow,
                                  pixels: pixels.baseAddress! + y * bytesPerRow))
            }
        }
        return info
    }
}
