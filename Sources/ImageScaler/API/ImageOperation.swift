/// One geometric operation on an upright image, and the whole path from file bytes to
/// its result, as a straight line: the decoder reads the header, `RenderPlan` works out
/// everything from it (decode factor and window, resampling, limits, memory), and
/// `RenderExecutor` runs decoder -> resampler -> stages -> encoder. All geometry is in
/// the upright image's coordinates.
public enum ImageOperation: Sendable {
    /// Fill the size, cropping what overflows: where `gravity` says, or centred on `focus`.
    case fill(Size, from: Rect? = nil, origin: Rect.Origin = .topLeft, gravity: ImageOperation.Gravity = .centre, focus: FocusPoint? = nil)
    case crop(Rect, origin: Rect.Origin = .topLeft)
    /// Fit inside the size; with `pad`, letterbox to exactly that size on the colour;
    /// with `from`, only that part of the upright image (what `--trim` keeps).
    case fit(Size, pad: RGBColor? = nil, from: Rect? = nil)
    case convert

    /// The size the operation asks for, when it has one (`{w}`/`{h}` in output names).
    public var requestedSize: Size? {
        switch self {
        case .fill(let size, _, _, _, _), .fit(let size, _, _): return size
        case .crop(let rect, _): return rect.size
        case .convert: return nil
        }
    }

    /// Applies the operation to an already upright image.
    public func apply(_ image: PixelBuffer) throws -> PixelBuffer {
        switch self {
        case .fill(let size, let from, let origin, let gravity, let focus):
            return try Scaling.scaleToFill(image, in: size, from: from, origin: origin, gravity: gravity, focus: focus)
        case .crop(let rect, let origin):
            return try Scaling.crop(image, to: rect, origin: origin)
        case .fit(let size, _, let from):
            let part = try from.map { try Scaling.crop(image, to: $0, origin: .topLeft) } ?? image
            return padded(try Scaling.scaleToFit(part, in: size))
        case .convert:
            return image
        }
    }

    /// Decodes `data` and applies the operation, giving pixels. Scaling operations
    /// stream: rows go from the decoder straight into the resampler, so the source is
    /// never held whole, and a decoder that can (JPEG) decodes at 1/2, 1/4 or 1/8 when
    /// that still leaves the filter a 2x reduction (`ShrinkOnLoad`), and only over the
    /// rows and columns the filter reads. The small result is turned upright.
    /// `options` gives the limits, the orientation, the filter and the colour stage.
    public func perform(on data: [UInt8], options: RenderOptions = RenderOptions()) throws -> (PixelBuffer, ImageInfo) {
        try perform(on: data, decode: options.decode, autoOrient: options.input.autoOrient, filter: options.resize.filter,
                    sharpen: options.resize.sharpen?.mask)
    }

    package func perform(on data: [UInt8], decode: DecodeOptions, autoOrient: Bool = true,
                         filter: Filter = .bilinear, sharpen: UnsharpMask? = nil) throws -> (PixelBuffer, ImageInfo) {
        let (decoder, drawn) = try VectorPlacement.drawing(self, from: try ImageFormat.decoder(for: data, options: decode), upscale: true)
        try decode.check(decoder.info.size)
        let operation = try drawn.resolvingPixelGravity(data, info: decoder.info, decode: decode, autoOrient: autoOrient)
        let plan = try RenderPlan(operation, info: decoder.info, capabilities: decoder.capabilities, dataBytes: data.count,
                                  format: nil, autoOrient: autoOrient, filter: filter, sharpen: sharpen)
        try plan.checkLimits(pixels: decode.maxPixels, format: nil)
        try MemoryBudget.check(plan.memory, budget: decode.maxMemory)
        return try RenderExecutor(decoder: decoder, plan: plan, options: decode).image()
    }

    /// Decodes, applies and encodes: the whole job from input bytes to output bytes.
    /// When the result needs no turning, the encoder takes rows as soon as the
    /// resampler makes them; with `threads` > 1, decoding runs on a second thread. The
    /// bytes are the same either way. With `carryProfile`, an input ICC profile that
    /// fits the output's colour space is embedded unchanged.
    public func render(_ data: [UInt8], as format: ImageFormat, options: RenderOptions = RenderOptions()) throws -> RenderResult {
        try render(data, as: format, decode: options.decode, encode: options.encode, settings: options.settings)
    }

    package func render(_ data: [UInt8], as format: ImageFormat, decode: DecodeOptions,
                        encode: EncodeOptions = EncodeOptions(), settings: RenderSettings = RenderSettings()) throws -> RenderResult {
        try ImageOperation.render(data, outputs: [RenderOutput(self, as: format)], decode: decode, encode: encode,
                                  settings: settings)[0]
    }

    /// Several outputs from one input, in the order given, each byte for byte what
    /// `render` gives for it alone. The header is read once; outputs that decode at the
    /// same scale share one decode (a PNG is decoded once, a JPEG once per shrink
    /// factor), and with `threads` > 1 the outputs resample and encode at once. Every
    /// output's limits, and the memory of all of them together, are checked before
    /// any pixel is decoded.
    public static func render(_ data: [UInt8], outputs: [ImageOperation.Output], options: RenderOptions = RenderOptions()) throws -> [RenderResult] {
        try render(data, outputs: outputs, decode: options.decode, encode: options.encode, settings: options.settings)
    }

    package static func render(_ data: [UInt8], outputs: [ImageOperation.Output], decode: DecodeOptions,
                               encode: EncodeOptions = EncodeOptions(), settings: RenderSettings = RenderSettings()) throws -> [RenderResult] {
        try renderEach(data, outputs: outputs, decode: decode, encode: encode, settings: settings).map { try $0.get() }
    }

    /// `render`, each output on its own: an output whose encoder fails is that output's
    /// failure, and the others are still made. What fails the input (its header, its
    /// decode, the budget) is thrown.
    package static func renderEach(_ data: [UInt8], outputs: [ImageOperation.Output], decode: DecodeOptions,
                                   encode: EncodeOptions = EncodeOptions(),
                                   settings: RenderSettings = RenderSettings()) throws -> [Result<RenderResult, Error>] {
        // An animation's outputs in a format of stills are its first frame, so a WebP
        // beside its JPEG fallback is still made.
        let moving = outputs.indices.filter { AnimationRender.animates(outputs[$0].format) }
        if let animations = try AnimationRender.render(data, outputs: moving.map { outputs[$0] }, decode: decode, encode: encode,
                                                       settings: settings) {
            var results = [Result<RenderResult, Error>?](repeating: nil, count: outputs.count)
            for (i, r) in zip(moving, animations) { results[i] = .success(r) }
            let stills = outputs.indices.filter { results[$0] == nil }
            if !stills.isEmpty {
                var still = settings
                still.animated = false
                for (i, r) in zip(stills, try renderEach(data, outputs: stills.map { outputs[$0] }, decode: decode, encode: encode, settings: still)) {
                    results[i] = r.map { r in
                        var r = r
                        r.info.warnings.append(AnimationRender.firstFrameOnly(outputs[i].format ?? r.info.format))
                        return r
                    }
                }
            }
            return results.map { $0! }
        }
        // A drawn picture's outputs are drawn one after another, each within the budget.
        let parts = try JobPreparation.parts(data, outputs: outputs, decode: decode, encode: encode, settings: settings)
        if let info = parts.first?.info { settings.headerRead?(info) }
        for job in parts { try MemoryBudget.check(job.memory, budget: decode.maxMemory) }
        return try parts.flatMap { job in
            // The schedule's rounds run in turn, each decoding again; results in output order.
            var results = [Result<RenderResult, Error>?](repeating: nil, count: job.plans.count)
            for (round, passes) in zip(job.schedule.rounds, job.passes) {
                for (i, r) in zip(round, try render(data, job: job, outputs: round, passes: passes, decode: decode, settings: settings)) {
                    results[i] = r
                }
            }
            return results.map { $0! }
        }
    }

    /// The outputs `wanted` (indices into the job's) of one round, rendered together.
    private static func render(_ data: [UInt8], job: JobPreparation, outputs wanted: [Int], passes: [DecodePass],
                               decode: DecodeOptions, settings: RenderSettings) throws -> [Result<RenderResult, Error>] {
        let executor = RenderExecutor(decoder: job.decoder, plans: wanted.map { job.plans[$0] }, passes: passes, options: decode,
                                      threads: settings.threads, permits: job.schedule.permits, trims: job.schedule.tight)
        // What an output format could not carry; the encodings may be asked for on
        // several threads.
        let dropped = Locked<[String]>(job.notices + GainMapRender.inputNotices(job.info, keep: settings.keepGainMap))
        let rendered: [Result<RenderResult, Error>]
        do {
            rendered = try executor.render(wanted.map { i in
                RenderExecutor.Output(format: job.formats[i], encoding: { channels in
                    let (kept, warnings) = job.encoding(i, channels: channels)
                    dropped.withLock { list in list += warnings.filter { !list.contains($0) } }
                    return kept
                }, recompressed: job.plans[i].recompression.map { recompress in { try recompress(data) } })
            })
        } catch let error as DecodeError {
            throw DamageProbe.truthful(error, data: data, options: decode)
        }
        // An HDR photo's gain map, resized to each output whose format holds one.
        let gainMap = settings.keepGainMap ? job.info.gainMap.map {
            GainMapRender($0, info: job.info, autoOrient: settings.autoOrient, decode: decode, filter: settings.filter)
        } : nil
        var mapped: [Int: [UInt8]] = [:]
        if let gainMap {
            let made = zip(wanted, rendered).filter { if case .success = $0.1 { true } else { false } }.map(\.0)
            let whys = GainMapRender.dropped(made.map { job.formats[$0] }, plans: made.map { job.plans[$0] })
            dropped.withLock { list in list += whys.filter { !list.contains($0) } }
            for (i, result) in zip(wanted, rendered) {
                guard case .success(let r) = result, GainMapRender.keeps(job.formats[i], plan: job.plans[i]) else { continue }
                do {
                    mapped[i] = try gainMap.attach(to: r.bytes, format: job.formats[i], plan: job.plans[i])
                } catch {
                    // The picture is whole without it.
                    let why = "gain map dropped: \(error)"
                    dropped.withLock { list in if !list.contains(why) { list.append(why) } }
                }
            }
        }
        let warnings = dropped.withLock { $0 }
        return zip(wanted, rendered).map { i, result in
            result.map { r in
                var r = r
                r.preview = job.taps[i]?.image
                if let bytes = mapped[i] { r.bytes = bytes }
                r.info.warnings += warnings.filter { !r.info.warnings.contains($0) }
                return r
            }
        }
    }

    /// What `render` with the same arguments would do, worked out from the header alone
    /// (an `entropy` gravity decodes its small preview): each output's decode, stages and
    /// encoder, the threads and the memory. Refuses what `render` refuses before decoding,
    /// apart from the memory budget, which the plan reports against.
    package static func plan(_ data: [UInt8], outputs: [RenderOutput], decode: DecodeOptions = DecodeOptions(),
                             encode: EncodeOptions = EncodeOptions(), settings: RenderSettings = RenderSettings()) throws -> JobPlan {
        try plan(data, outputs: outputs, decode: decode, encode: encode, settings: settings, numbered: Array(outputs.indices))
    }

    /// `plan`, the schedule naming output `i` by `numbered[i]` (the still outputs of an
    /// animated input are a part of its outputs).
    private static func plan(_ data: [UInt8], outputs: [RenderOutput], decode: DecodeOptions, encode: EncodeOptions,
                             settings: RenderSettings, numbered: [Int]) throws -> JobPlan {
        let moving = outputs.indices.filter { AnimationRender.animates(outputs[$0].format) }
        if let animated = try AnimationRender.plan(data, outputs: moving.map { outputs[$0] }, decode: decode, encode: encode,
                                                   settings: settings) {
            let stills = outputs.indices.filter { !moving.contains($0) }
            guard !stills.isEmpty else { return animated }
            // As `renderEach` makes them: the first frame, after the animations.
            var still = settings
            still.animated = false
            let first = try plan(data, outputs: stills.map { outputs[$0] }, decode: decode, encode: encode, settings: still,
                                 numbered: stills.map { numbered[$0] })
            var merged = [JobPlan.Output?](repeating: nil, count: outputs.count)
            for (i, o) in zip(moving, animated.outputs) { merged[i] = o }
            for (i, o) in zip(stills, first.outputs) {
                merged[i] = JobPlan.Output(operation: o.operation, size: o.size, path: o.path, stages: o.stages, format: o.format,
                                           settings: o.settings, metadata: o.metadata,
                                           dropped: o.dropped + [AnimationRender.firstFrameOnly(o.format)])
            }
            let decodes = animated.decodes.map { JobPlan.Decode(shrink: $0.shrink, window: $0.window, split: $0.split, outputs: $0.outputs.map { moving[$0] }, drawn: $0.drawn) }
                + first.decodes.map { JobPlan.Decode(shrink: $0.shrink, window: $0.window, split: $0.split, outputs: $0.outputs.map { stills[$0] }, drawn: $0.drawn) }
            return JobPlan(input: animated.input, outputs: merged.map { $0! }, decodes: decodes, threads: animated.threads,
                           libraryThreads: animated.libraryThreads, memory: max(animated.memory, first.memory), budget: animated.budget,
                           schedule: first.schedule)
        }
        let parts = try JobPreparation.parts(data, outputs: outputs, decode: decode, encode: encode, settings: settings)
        var decodes: [JobPlan.Decode] = [], planned: [JobPlan.Output] = []
        for job in parts {
            let (d, o) = plan(job, decode: decode, settings: settings, firstOutput: planned.count)
            decodes += d
            planned += o
        }
        // A drawn picture's header is its own; each part's is its drawing's.
        let input = try parts.first?.input ?? ImageFormat.decoder(for: data, options: decode).info
        // Each part's schedule, its outputs numbered as the plan numbers them.
        var first = 0
        let schedules: [String] = parts.compactMap { job in
            defer { first += job.plans.count }
            guard let reason = job.schedule.reason else { return nil }
            let rounds = job.schedule.rounds.map { $0.map { "\(numbered[$0 + first] + 1)" }.joined(separator: ", ") }
            return reason + (rounds.count > 1 ? ": outputs " + rounds.joined(separator: "; ") : "")
        }
        return JobPlan(input: input, outputs: planned, decodes: decodes, threads: max(1, settings.threads),
                       libraryThreads: input.format.codec.libraryThreads, memory: parts.map(\.memory).max() ?? 0,
                       budget: decode.maxMemory, schedule: schedules.isEmpty ? nil : schedules.joined(separator: "; "))
    }

    /// One part's decodes and outputs, its outputs numbered from `firstOutput`: the
    /// passes of each round as planned, then each output made on its own.
    private static func plan(_ job: JobPreparation, decode: DecodeOptions, settings: RenderSettings,
                             firstOutput: Int) -> ([JobPlan.Decode], [JobPlan.Output]) {
        var decodes: [JobPlan.Decode] = []
        for (round, passes) in zip(job.schedule.rounds, job.passes) {
            decodes += passes.map { pass in
                JobPlan.Decode(shrink: pass.shrink, window: pass.window, split: pass.split.description,
                               outputs: pass.outputs.map { round[$0] + firstOutput }, drawn: job.drawn)
            }
        }
        for (i, plan) in job.plans.enumerated() {
            guard let read = plan.path.soloRoute(plan, decoder: job.decoder, options: decode)?.decodes else { continue }
            decodes.append(JobPlan.Decode(shrink: read.shrink, window: read.window, split: DecodeSplit.oneThread.description,
                                          outputs: [i + firstOutput], drawn: job.drawn))
        }
        // An HDR photo's gain map, as the render resizes it (GainMapRender) or says why not.
        let map = settings.keepGainMap ? job.info.gainMap : nil
        let outputs = job.plans.indices.map { i in
            let plan = job.plans[i], format = job.formats[i]
            let (options, dropped) = job.encoding(i, channels: job.channels(i))
            var metadata = plan.stages.lazy.compactMap(\.keptMetadata).first.map { [$0] }
                ?? [options.iccProfile.map { "ICC \($0.count) bytes" }, options.exif.map { "EXIF \($0.count) bytes" },
                    options.xmp.map { "XMP \($0.count) bytes" }].compactMap { $0 }
            var warnings = dropped + GainMapRender.inputNotices(job.info, keep: settings.keepGainMap)
            if let map {
                if GainMapRender.keeps(format, plan: plan) {
                    metadata.append("gain map \(GainMapRender.plannedSize(of: map, info: job.info, autoOrient: settings.autoOrient, plan: plan))")
                } else {
                    warnings += GainMapRender.dropped([format], plans: [plan])
                }
            }
            return JobPlan.Output(operation: plan.operation.summary, size: plan.output, path: "\(plan.path)", stages: job.stages(i),
                                  format: format, settings: (plan.depth == 16 ? ["16-bit"] : []) + (format.codec.writer?.settings(options) ?? []),
                                  metadata: metadata,
                                  dropped: warnings)
        }
        return (decodes, outputs)
    }

    /// "fill 256x256 from 10,20,300,200 (bottom-left), gravity north": the operation as `plan` names it.
    var summary: String {
        switch self {
        case .fill(let size, let from, let origin, let gravity, let focus):
            return "fill \(size)" + (from.map { " from \($0)" + (origin == .topLeft ? "" : " (\(origin.rawValue))") } ?? "")
                + (gravity == .centre ? "" : ", gravity \(gravity.rawValue)") + (focus.map { ", focus \($0.text)" } ?? "")
        case .crop(let rect, let origin): return "crop \(rect)" + (origin == .topLeft ? "" : " (\(origin.rawValue))")
        case .fit(let size, let pad, let from):
            // A one-sided box, as --size 800x gives it.
            let box = (size.width == Size.unbounded ? "" : "\(size.width)") + "x" + (size.height == Size.unbounded ? "" : "\(size.height)")
            return "fit \(box)" + (from.map { " from \($0)" } ?? "") + (pad.map { ", padded with \($0.hex)" } ?? "")
        case .convert: return "convert"
        }
    }

    /// `render` off the caller's thread: the work runs on a Dispatch worker, so a server's
    /// cooperative thread pool is never blocked by decoding. Cancelling the task stops
    /// the decode between row chunks, with `CancellationError`.
    public func render(_ data: [UInt8], as format: ImageFormat, options: RenderOptions = RenderOptions()) async throws -> RenderResult {
        let flag = CancellationFlag()
        let (encode, settings) = (options.encode, options.settings)
        var cancellable = options.decode
        cancellable.cancellation = flag
        let options = cancellable
        return try await withTaskCancellationHandler {
            try await RenderExecutor.offload { try self.render(data, as: format, decode: options, encode: encode, settings: settings) }
        } onCancel: {
            flag.set()
        }
    }

    /// A fill whose gravity needs the pixels (`entropy`) becomes a fill from the rect
    /// `SmartCrop` picks on a small preview; every other operation is itself.
    func resolvingPixelGravity(_ data: [UInt8], info: ImageInfo, decode: DecodeOptions, autoOrient: Bool) throws -> ImageOperation {
        guard case .fill(let size, let from, let origin, .entropy, _) = self else { return self }
        let upright = autoOrient ? info.uprightSize : info.size
        let region = try from.map { try AspectFill.clip($0, origin: origin, to: upright) } ?? Rect(size: upright)
        let (preview, _) = try ImageOperation.fit(Size(width: 256, height: 256)).perform(on: data, decode: decode, autoOrient: autoOrient)
        let rect = try SmartCrop.rect(in: region, filling: size, preview: preview, imageSize: upright)
        return .fill(size, from: rect, origin: .topLeft, gravity: .centre)
    }

    /// The operation on the part of the upright image `rect` keeps (`--trim`): a fill's
    /// region and a crop's rect within it, a fit of it (a fill at the size it fits), or
    /// the part itself.
    func trimmed(to rect: Rect, upright: Size) throws -> ImageOperation {
        switch self {
        case .fill(let size, let from, let origin, let gravity, let focus):
            let region = try from.map { try AspectFill.clip($0, origin: origin, to: upright).intersection(rect) ?? rect } ?? rect
            return .fill(size, from: region, origin: .topLeft, gravity: gravity, focus: focus)
        case .fit(let box, let pad, let from):
            let part = try from.map { try AspectFill.clip($0, origin: .topLeft, to: upright).intersection(rect) ?? rect } ?? rect
            // A letterbox stays the box, the part kept fitted inside it.
            guard let pad else { return .fill(try AspectFill.fitSize(part.size, in: box), from: part, origin: .topLeft) }
            return .fit(box, pad: pad, from: part)
        case .crop(let r, let origin):
            let inside = try AspectFill.clip(r, origin: origin, to: rect.size)
            return .crop(Rect(x: rect.x + inside.x, y: rect.y + inside.y, width: inside.width, height: inside.height), origin: .topLeft)
        case .convert:
            return .crop(rect, origin: .topLeft)
        }
    }

    /// Whether the output is the requested size whatever the pixels hold (a fill, a
    /// letterboxed fit), unless `--no-upscale` keeps a smaller image's own.
    package var makesItsSize: Bool {
        switch self {
        case .fill: return true
        case .fit(_, let pad, _): return pad != nil
        case .crop, .convert: return false
        }
    }

    var isConvert: Bool {
        if case .convert = self { return true }
        return false
    }

    /// `fit --pad`'s letterbox; every other operation's result is final as it is.
    func padded(_ image: PixelBuffer) -> PixelBuffer {
        guard case .fit(let box, let pad?, _) = self else { return image }
        return Padder.pad(image, to: box, background: pad)
    }
}
