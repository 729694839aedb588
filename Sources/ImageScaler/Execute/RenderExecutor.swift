import Dispatch

/// Runs `RenderPlan`s over one decoder: decoder rows -> resamplers -> stages ->
/// encoders. Outputs that decode at the same shrink factor share one pass over the
/// union of their windows, so a PNG is decoded once for any number of outputs and a
/// JPEG once per factor. The one place that starts threads, from `threads`: with 2 or
/// more, each pass decodes on a thread of its own (a region in two parts at once where
/// the decoder can split it, the bottom part resampling its own band of every output's
/// rows) while each output resamples and encodes on another, so a large output's encode
/// overlaps everything else; `threads` of them finish at once, largest first
/// (`EncodeGate`). The bytes are the same at any thread count.
package struct RenderExecutor: Sendable {
    let decoder: any RowDecoder
    let plans: [RenderPlan]
    let options: DecodeOptions
    let threads: Int
    let splitRegions: Bool
    /// Encoders that may finish at once (`RenderSchedule.permits`).
    let permits: Int
    /// Whether each finished encoder's freed memory is given back (`RenderSchedule.tight`).
    let trims: Bool

    package init(decoder: any RowDecoder, plans: [RenderPlan], options: DecodeOptions, threads: Int, splitRegions: Bool,
         permits: Int? = nil, trims: Bool = false) {
        self.decoder = decoder
        self.plans = plans
        self.options = options
        self.threads = threads
        self.splitRegions = splitRegions
        self.permits = max(1, min(permits ?? threads, threads))
        self.trims = trims
    }

    init(decoder: any RowDecoder, plan: RenderPlan, options: DecodeOptions, threads: Int, splitRegions: Bool) {
        self.init(decoder: decoder, plans: [plan], options: options, threads: threads, splitRegions: splitRegions)
    }

    private var plan: RenderPlan { plans[0] }
    private var concurrent: Bool { threads > 1 }

    /// One decode feeding several outputs: the plans (by index) that decode at one
    /// shrink factor, over the union of their windows (nil: the whole image).
    package struct Pass: Equatable, Sendable {
        package let shrink: Int
        package let window: Rect?
        package let outputs: [Int]
    }

    /// The decodes the resampling plans need: one per distinct shrink factor, smallest
    /// factor (the most work) first. A streamed convert joins the full-size pass over
    /// the whole image; other plans without resampling decode on their own.
    package static func passes(_ plans: [RenderPlan]) -> [Pass] {
        var byShrink: [Int: [Int]] = [:]
        for (i, plan) in plans.enumerated() where plan.path != .wide && plan.path != .recompress {
            if let r = plan.resample {
                byShrink[r.shrink, default: []].append(i)
            } else if plan.path == .stream {
                byShrink[1, default: []].append(i)
            }
        }
        return byShrink.keys.sorted().map { shrink in
            // Invariant: the keys iterated are byShrink's own; the sinks below are made
            // for every plan the passes hold.
            let members = byShrink[shrink]!
            let windows = members.map { plans[$0].resample?.window }
            var union: Rect? = nil
            if windows.allSatisfy({ $0 != nil }) {
                let w = windows.map { $0! }
                let x0 = w.map(\.x).min()!, y0 = w.map(\.y).min()!
                union = Rect(x: x0, y: y0, width: w.map(\.maxX).max()! - x0, height: w.map(\.maxY).max()! - y0)
            }
            return Pass(shrink: shrink, window: union, outputs: members)
        }
    }

    /// How one plan's result is written.
    package struct Output {
        let format: ImageFormat
        /// The encoder's options for a result of that many channels (the ICC profile
        /// fits or it does not).
        let encoding: (Int) -> EncodeOptions
        /// For a plan on the `recompress` path: the input's coded data, recompressed.
        var recompressed: (() throws -> [UInt8])? = nil

        package init(format: ImageFormat, encoding: @escaping (Int) -> EncodeOptions, recompressed: (() throws -> [UInt8])? = nil) {
            self.format = format
            self.encoding = encoding
            self.recompressed = recompressed
        }
    }

    /// Every plan's encoded output, or why its own resampling or encoding failed, in the
    /// plans' order: one output's failure leaves the others to finish. A decode's failure
    /// is the input's, and is thrown.
    package func render(_ outputs: [Output]) throws -> [Result<RenderResult, Error>] {
        precondition(outputs.count == plans.count, "one output per plan")
        var results = [Result<RenderResult, Error>?](repeating: nil, count: plans.count)
        for (i, plan) in plans.enumerated() where plan.path == .whole {
            let (final, decoded) = try RenderExecutor(decoder: decoder, plan: plan, options: options, threads: threads,
                                                      splitRegions: splitRegions).image()
            let o = outputs[i]
            results[i] = Result {
                RenderResult(try o.format.encodeReporting(final, palettise: plan.stages.contains { $0.palettes },
                                                          options: o.encoding(final.channels)), size: final.size, info: decoded)
            }
        }
        for (i, plan) in plans.enumerated() where plan.path == .recompress {
            // Invariant: `ImageOperation.render` gives every recompress plan its closure.
            results[i] = Result { RenderResult(bytes: try outputs[i].recompressed!(), size: plan.output, info: decoder.info) }
        }
        for (i, plan) in plans.enumerated() where plan.path == .wide {
            let (final, decoded) = try WideRender(decoder: decoder, plan: plan, options: options).image()
            let o = outputs[i]
            results[i] = Result {
                guard plan.depth == 8 else {
                    return RenderResult(bytes: try o.format.encode(final, options: o.encoding(final.channels)), size: final.size,
                                        info: decoded)
                }
                // Linear light into 8 bits: resampled wide, written narrow.
                let narrow = final.narrowed()
                let encoded = try o.format.encodeReporting(narrow, palettise: plan.stages.contains { $0.palettes },
                                                           options: o.encoding(narrow.channels))
                return RenderResult(encoded, size: narrow.size, info: decoded)
            }
        }
        let passes = RenderExecutor.passes(plans)
        var sinks: [Int: OutputSink] = [:]
        for (i, plan) in plans.enumerated() where ![.whole, .wide, .recompress].contains(plan.path) {
            sinks[i] = OutputSink(plan: plan, format: outputs[i].format, encoding: outputs[i].encoding)
        }
        if concurrent {
            for (i, result) in try runConcurrently(passes, sinks: sinks) { results[i] = result }
        } else {
            for pass in passes {
                // An output that fails takes no more rows; the others go on.
                var failed: [Int: Error] = [:]
                func each(_ body: (OutputSink) throws -> Void) {
                    for i in pass.outputs where failed[i] == nil {
                        do { try body(sinks[i]!) } catch { failed[i] = error }
                    }
                }
                let decoded = try decode(pass, decide(pass), begin: { region in each { try $0.begin(region) } },
                                         rows: { chunk in each { try $0.add(chunk) } })
                for i in pass.outputs {
                    results[i] = failed[i].map { .failure($0) } ?? Result { try sinks[i]!.finish(info: decoded) }
                    if trims { GlibcMalloc.trim() }
                }
            }
        }
        return results.map { $0! }
    }

    /// Each pass decodes on a thread of its own into one pipe per output; each output
    /// resamples and encodes on a thread of its own, the last one on this thread. The
    /// threads come from labelled queues, not the shared pool: a decoder blocked on a
    /// full pipe must never wait for a pool worker that its own consumer needs.
    private func runConcurrently(_ passes: [Pass], sinks: [Int: OutputSink]) throws -> [(Int, Result<RenderResult, Error>)] {
        var lanes: [Lane] = []
        for (p, pass) in passes.enumerated() {
            for i in pass.outputs { lanes.append(Lane(index: i, pass: p, sink: sinks[i]!, pipe: ChunkPipe(capacity: 8))) }
        }
        let state = Locked(LaneResults(passes: passes.count))
        let gate = EncodeGate(permits: permits, costs: Dictionary(uniqueKeysWithValues: lanes.map { ($0.index, $0.sink.encodingCost) }),
                              trims: trims)
        let group = DispatchGroup()
        for (p, pass) in passes.enumerated() {
            let pipes = lanes.filter { $0.pass == p }.map(\.pipe)
            let decision = decide(pass)
            // Bands are attached before any thread starts, and only read once the pass's
            // decode (which waits for its bottom part) has closed the pipes.
            for (i, band) in zip(pass.outputs, decision.bands) { sinks[i]!.lowerBand = band }
            DispatchQueue(label: "imgscale.decode").async(group: group) { [self] in
                do {
                    let begin = { (region: DecodedRegion) in pipes.forEach { $0.begin(region) } }
                    let rows = { (chunk: RowChunk) in try ChunkPipe.broadcast(chunk, to: pipes) }
                    let info = try decode(pass, decision, begin: begin, rows: rows)
                    state.withLock { $0.decoded[p] = info }
                } catch {
                    state.withLock { $0.errors.append(error) }
                    pipes.forEach { $0.cancel() }
                }
                pipes.forEach { $0.close() }
            }
        }
        for lane in lanes.dropLast() {
            DispatchQueue(label: "imgscale.output").async(group: group) { lane.run(state, gate: gate) }
        }
        lanes.last?.run(state, gate: gate)
        group.wait()
        let done = state.withLock { $0 }
        if let error = done.errors.first { throw error }
        return done.results
    }

    /// What the threads of `runConcurrently` hand back: each output's result, and the
    /// decodes' errors (the input's).
    private struct LaneResults {
        var decoded: [ImageInfo?]
        var results: [(Int, Result<RenderResult, Error>)] = []
        var errors: [Error] = []

        init(passes: Int) { decoded = Array(repeating: nil, count: passes) }
    }

    /// One output's thread: it takes its pass's rows from its pipe, and finishes.
    private struct Lane: @unchecked Sendable {  // `sink` is used by this lane's one thread only.
        let index: Int
        let pass: Int
        let sink: OutputSink
        let pipe: ChunkPipe

        func run(_ state: Locked<LaneResults>, gate: EncodeGate) {
            // However this lane ends, no cheaper output keeps waiting for it.
            defer { gate.withdraw(index) }
            do {
                while let item = pipe.pop() {
                    switch item {
                    case .begin(let region):
                        try sink.begin(region)
                    case .rows(let firstRow, let count, let bytesPerRow, let pixels):
                        try pixels.withUnsafeBufferPointer {
                            try sink.add(RowChunk(firstRow: firstRow, count: count, bytesPerRow: bytesPerRow, pixels: $0.baseAddress!))
                        }
                    }
                }
                // The pipe closes after the decoder has stored its header, or failed.
                guard let info = state.withLock({ $0.decoded[pass] }) else { return }
                let result = try gate.run(index: index) { try sink.finish(info: info) }
                state.withLock { $0.results.append((index, .success(result))) }
            } catch {
                state.withLock { $0.results.append((index, .failure(error))) }
                // Drained, not cancelled: the pass's other outputs still want its rows.
                while pipe.pop() != nil {}
            }
        }
    }

    /// The result as pixels, finished by the plan's stages: resampled, or with no
    /// resampling the decoded image (or region), then cut, turned, padded and its alpha
    /// settled as the plan lists.
    func image() throws -> (PixelBuffer, ImageInfo) {
        if plan.path == .wide {
            let (final, decoded) = try WideRender(decoder: decoder, plan: plan, options: options).image()
            return (final.narrowed(), decoded)
        }
        if let resample = plan.resample {
            let sink = OutputSink(plan: plan, format: nil, encoding: { _ in EncodeOptions() })
            let pass = Pass(shrink: resample.shrink, window: resample.window, outputs: [0])
            let decoded = try decode(pass, decide(pass, banding: false), begin: { try sink.begin($0) }, rows: { try sink.add($0) })
            return (try sink.image(), decoded)
        }
        var collector = RowCollector()
        let decoded = try decoder.decode(region: plan.cropRegion?.window, shrink: 1, options: options,
                                         begin: { collector.begin($0) }, rows: { collector.add($0) })
        let at = collector.region.rect
        return (try Finisher.apply(plan.stages, to: collector.image, origin: (at.x, at.y)), decoded)
    }

    /// How one pass uses a second core, decided once, here, from the plans and what the
    /// decoder can do: what `imgscale plan` prints is what `render` runs.
    enum Split: Equatable, CustomStringConvertible {
        case oneThread
        /// The decoder may run part of its work on a thread the executor lends it.
        case lentThread
        /// The window decoded in two parts at once, split at row `row`: the bottom part
        /// decodes from `overlap` rows above it straight into each output's lower band
        /// (`banded`), or into a buffer whose rows follow the top part's.
        case parts(row: Int, overlap: Int, banded: Bool)

        var description: String {
            switch self {
            case .oneThread: return "one thread"
            case .lentThread: return "with a lent thread"
            case .parts(let row, _, _): return "two parts at once, split at row \(row)"
            }
        }
    }

    /// A pass's split, with what running it needs: the two parts, and each output's band.
    private struct Decision {
        let split: Split
        var halves: RegionHalves? = nil
        var bands: [LowerBand] = []
    }

    /// Where the decoder can split the window, at the row where it says the work halves
    /// (else the middle): each output's rows below the first whose filter window reaches
    /// the bottom part are made by a `LowerBand` on the bottom part's thread, which starts
    /// decoding at the first row those windows read. Without bands (a member with no
    /// resampler, an empty band, or `banding` off) a window small enough to wait in
    /// memory is split with a buffer instead; else the decoder is lent a thread.
    private func decide(_ pass: Pass, banding: Bool = true) -> Decision {
        guard concurrent else { return Decision(split: .oneThread) }
        guard splitRegions && decoder.capabilities.splitsRegions, let window = pass.window,
              let row = decoder.splitRow(of: window, shrink: pass.shrink, margin: 16) else { return Decision(split: .lentThread) }
        if banding {
            var bands: [LowerBand] = []
            for i in pass.outputs {
                guard let resample = plans[i].resample, let band = LowerBand(resample, window: window, split: row) else { break }
                bands.append(band)
            }
            if bands.count == pass.outputs.count {
                // Nearest's windows skip rows, so the lower band may read nothing above the split.
                let overlap = max(0, row - bands.map(\.firstSourceRow).min()!)
                if let halves = decoder.halves(of: window, shrink: pass.shrink, options: options, split: row, overlap: overlap) {
                    return Decision(split: .parts(row: row, overlap: overlap, banded: true), halves: halves, bands: bands)
                }
            }
        }
        if RenderExecutor.buffers(window),
           let halves = decoder.halves(of: window, shrink: pass.shrink, options: options, split: row, overlap: 0) {
            return Decision(split: .parts(row: row, overlap: 0, banded: false), halves: halves)
        }
        return Decision(split: .lentThread)
    }

    /// How `pass` will use a second core, as `JobPlan` says it.
    func split(of pass: Pass) -> Split { decide(pass).split }

    /// Whether the bottom half of `region` may wait in memory while the top streams: it
    /// must stay small next to streaming's footprint, at most 4 MiB of RGB rows (a 12 MP
    /// photo shrunk 1/2 is 3.4 MiB). Larger regions are split with bands instead.
    private static func buffers(_ region: Rect) -> Bool {
        // A region is asked for, not yet clipped to the image: no product may overflow.
        (1...1 << 16).contains(region.width) && (1...1 << 16).contains(region.height)
            && region.width * (region.height / 2 + 1) * 3 <= 4 << 20
    }

    /// The pass's rows at 1/`shrink`, run as `decision` says.
    private func decode(_ pass: Pass, _ decision: Decision, begin: (DecodedRegion) throws -> Void,
                        rows: (RowChunk) throws -> Void) throws -> ImageInfo {
        switch decision.split {
        case .oneThread:
            return try decoder.decode(region: pass.window, shrink: pass.shrink, options: options, begin: begin, rows: rows)
        case .lentThread:
            return try decoder.decode(region: pass.window, shrink: pass.shrink, options: options, lending: RenderExecutor.lentThread(),
                                      begin: begin, rows: rows)
        case .parts(_, _, let banded):
            // Invariant: `decide` gives parts only with their halves.
            let halves = decision.halves!
            return banded ? try RenderExecutor.decode(halves, bands: decision.bands, begin: begin, rows: rows)
                          : try RenderExecutor.decode(halves, begin: begin, rows: rows)
        }
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
    package static func collect(_ decoder: any RowDecoder, region: Rect?, shrink: Int, options: DecodeOptions,
                        split: Bool) throws -> (PixelBuffer, Rect, ImageInfo) {
        var collector = RowCollector()
        let info: ImageInfo
        if split, let region, buffers(region), let halves = decoder.halves(of: region, shrink: shrink, options: options) {
            info = try decode(halves, begin: { collector.begin($0) }, rows: { collector.add($0) })
        } else {
            info = try decoder.decode(region: region, shrink: shrink, options: options,
                                      begin: { collector.begin($0) }, rows: { collector.add($0) })
        }
        return (collector.image, collector.region.rect, info)
    }

    /// The bottom part decodes on another thread straight into each output's lower band
    /// while the top part streams; the bands are complete when this returns.
    static func decode(_ halves: RegionHalves, bands: [LowerBand], begin: (DecodedRegion) throws -> Void,
                       rows: (RowChunk) throws -> Void) throws -> ImageInfo {
        let (info, _, _) = try decodeParts(halves, into: LowerBands(bands), begin: begin, rows: rows)
        guard bands.allSatisfy(\.isComplete) else { throw DecodeError.inconsistentHalves }
        return info
    }

    /// The bottom half decodes on another thread into a buffer while the top half
    /// streams; then the buffered rows follow.
    static func decode(_ halves: RegionHalves, begin: (DecodedRegion) throws -> Void,
                       rows: (RowChunk) throws -> Void) throws -> ImageInfo {
        guard halves.bottom.y == halves.top.maxY else { throw DecodeError.inconsistentHalves }  // rows would repeat
        let (info, upper, lower) = try decodeParts(halves, into: LowerRows(), begin: begin, rows: rows)
        let got = lower.collector.region
        let bytesPerRow = got.rect.width * got.channels
        let image = lower.collector.image
        try image.pixels.withUnsafeBufferPointer { pixels in
            for y in stride(from: 0, to: got.rect.height, by: 16) {
                try rows(RowChunk(firstRow: upper.rect.height + y, count: min(16, got.rect.height - y), bytesPerRow: bytesPerRow,
                                  pixels: pixels.baseAddress! + y * bytesPerRow))
            }
        }
        return info
    }

    /// What the bottom part's thread hands back through the join.
    private struct LowerOutcome: Sendable {
        var region: DecodedRegion? = nil
        var warnings: [String] = []
        var error: Error? = nil
    }

    /// The bottom part decodes on another thread into `lower` while the top part streams
    /// to `begin` (announced as the whole region) and `rows`; then both parts must have
    /// delivered the same columns and their own rows. Returns the header with both parts'
    /// warnings, what the top part delivered, and `lower`. The other thread's closure is
    /// `@Sendable`: it shares only `halves`, `lower` and a locked outcome with this one.
    private static func decodeParts<Part: LowerPart>(_ halves: RegionHalves, into lower: Part, begin: (DecodedRegion) throws -> Void,
                                                     rows: (RowChunk) throws -> Void) throws -> (ImageInfo, DecodedRegion, Part) {
        let outcome = Locked(LowerOutcome())
        let bottom: @Sendable () -> Void = {
            do {
                let warnings = try halves.decodeBottom({ region in
                    outcome.withLock { $0.region = region }
                    lower.begin(region)
                }, { lower.add($0) }).warnings
                outcome.withLock { $0.warnings = warnings }
            } catch {
                outcome.withLock { $0.error = error }
            }
        }
        let work = DispatchWorkItem(block: bottom)
        DispatchQueue.global().async(execute: work)
        var upper: DecodedRegion? = nil
        var info: ImageInfo
        do {
            info = try halves.decodeTop({ region in
                upper = region
                var whole = region.rect
                whole.height = halves.bottom.maxY - whole.y
                try begin(DecodedRegion(rect: whole, channels: region.channels))
            }, rows)
        } catch {
            // The other part reads the same data and the caller's state: it must end
            // first (and libdispatch allows one wait per work item).
            work.wait()
            throw error
        }
        work.wait()
        let done = outcome.withLock { $0 }
        if let error = done.error { throw error }
        info.warnings += done.warnings.filter { !info.warnings.contains($0) }
        guard let upper, let got = done.region, got.channels == upper.channels, got.rect.x == upper.rect.x,
              got.rect.width == upper.rect.width, got.rect.y == halves.bottom.y, got.rect.maxY == halves.bottom.maxY,
              upper.rect.maxY == halves.top.maxY else {
            throw DecodeError.inconsistentHalves
        }
        return (info, upper, lower)
    }
}
