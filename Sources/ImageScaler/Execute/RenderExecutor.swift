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
/// Runs `RenderPlan`s over one decoder as planned: decoder rows -> resamplers -> stages ->
/// encoders. It decides nothing: the decodes outputs share, and how each uses a second
/// core, are the `DecodePass`es it is given; each other output runs the `SoloRoute` its
/// plan's path names; each encoder's options come with its output. Outputs that decode
/// at the same shrink factor share one pass over the union of their windows, so a PNG
/// is decoded once for any number of outputs and a JPEG once per factor. The one place
/// that starts threads, from `threads`: with 2 or more, each pass decodes on a thread of
/// its own (a region in two parts at once where the plan split it, the bottom part
/// resampling its own band of every output's rows) while each output resamples and
/// encodes on another, so a large output's encode overlaps everything else; `threads` of
/// them finish at once, largest first (`EncodeGate`). The bytes are the same at any
/// thread count.
package struct RenderExecutor: Sendable {
    let decoder: any RowDecoder
    let plans: [RenderPlan]
    /// The decodes the plans on shared paths take their rows from.
    let passes: [DecodePass]
    let options: DecodeOptions
    let threads: Int
    /// Encoders that may finish at once (`RenderSchedule.permits`).
    let permits: Int
    /// Whether each finished encoder's freed memory is given back (`RenderSchedule.tight`).
    let trims: Bool

    package init(decoder: any RowDecoder, plans: [RenderPlan], passes: [DecodePass], options: DecodeOptions, threads: Int,
                 permits: Int? = nil, trims: Bool = false) {
        self.decoder = decoder
        self.plans = plans
        self.passes = passes
        self.options = options
        self.threads = threads
        self.permits = max(1, min(permits ?? threads, threads))
        self.trims = trims
    }

    /// The plans run with the passes `DecodePass.planned` gives them.
    package init(decoder: any RowDecoder, plans: [RenderPlan], options: DecodeOptions, threads: Int, splitRegions: Bool) {
        self.init(decoder: decoder, plans: plans,
                  passes: DecodePass.planned(plans, decoder: decoder, options: options, threads: threads, splitRegions: splitRegions),
                  options: options, threads: threads)
    }

    /// One plan, for its pixels, on this thread.
    init(decoder: any RowDecoder, plan: RenderPlan, options: DecodeOptions) {
        self.init(decoder: decoder, plans: [plan], passes: [], options: options, threads: 1)
    }

    private var plan: RenderPlan { plans[0] }
    private var concurrent: Bool { threads > 1 }

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
        for (i, plan) in plans.enumerated() {
            if let route = plan.path.soloRoute(plan, decoder: decoder, options: options) { results[i] = try route.render(outputs[i]) }
        }
        var sinks: [Int: OutputSink] = [:]
        for pass in passes {
            for i in pass.outputs { sinks[i] = OutputSink(plan: plans[i], format: outputs[i].format, encoding: outputs[i].encoding) }
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
                let decoded = try decode(pass, bands: [], begin: { region in each { try $0.begin(region) } },
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
    private func runConcurrently(_ passes: [DecodePass], sinks: [Int: OutputSink]) throws -> [(Int, Result<RenderResult, Error>)] {
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
            let bands = lowerBands(pass)
            // Bands are attached before any thread starts, and only read once the pass's
            // decode (which waits for its bottom part) has closed the pipes.
            for (i, band) in zip(pass.outputs, bands) { sinks[i]!.lowerBand = band }
            DispatchQueue(label: "imgscale.decode").async(group: group) { [self] in
                do {
                    let begin = { (region: DecodedRegion) in pipes.forEach { $0.begin(region) } }
                    let rows = { (chunk: RowChunk) in try ChunkPipe.broadcast(chunk, to: pipes) }
                    let info = try decode(pass, bands: bands, begin: begin, rows: rows)
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
        if let route = plan.path.soloRoute(plan, decoder: decoder, options: options) { return try route.image() }
        // Only the held path shares decodes when pixels, not a file, are wanted: it resamples.
        guard let resample = plan.resample else { return try WholeRoute(decoder: decoder, plan: plan, options: options).image() }
        let sink = OutputSink(plan: plan, format: nil, encoding: { _ in EncodeOptions() })
        let pass = DecodePass(shrink: resample.shrink, window: resample.window, outputs: [0])
        let decoded = try decode(pass, bands: [], begin: { try sink.begin($0) }, rows: { try sink.add($0) })
        return (try sink.image(), decoded)
    }

    /// Each output's lower band where the pass is split with bands, in the pass's order.
    private func lowerBands(_ pass: DecodePass) -> [LowerBand] {
        guard case .parts(let row, _, true, _) = pass.split, let window = pass.window else { return [] }
        // Invariant: the plan split it with bands only when every member has one.
        return pass.outputs.map { LowerBand(plans[$0].resample!, window: window, split: row)! }
    }

    /// The pass's rows at 1/`shrink`, run as its split says.
    private func decode(_ pass: DecodePass, bands: [LowerBand], begin: (DecodedRegion) throws -> Void,
                        rows: (RowChunk) throws -> Void) throws -> ImageInfo {
        switch pass.split {
        case .oneThread:
            return try decoder.decode(region: pass.window, shrink: pass.shrink, options: options, begin: begin, rows: rows)
        case .lentThread:
            return try decoder.decode(region: pass.window, shrink: pass.shrink, options: options, lending: RenderExecutor.lentThread(),
                                      begin: begin, rows: rows)
        case .parts(_, _, let banded, let halves):
            return banded ? try RenderExecutor.decode(halves, bands: bands, begin: begin, rows: rows)
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
        if split, let region, DecodePass.buffers(region), let halves = decoder.halves(of: region, shrink: shrink, options: options) {
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
