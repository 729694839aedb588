/// `--animated`: every frame of an animated input through the same plan, into an
/// animated output. The plan is made once, for the canvas; each frame the decoder
/// composites is run through it as a still would be (`FrameDecoder`), then handed to
/// the output format's animation encoder with its delay, and the loop count is kept.
/// Memory: the reader's canvases and one planned frame at a time, besides the encoder's
/// own; the frame count is checked against `DecodeOptions.maxFrames` from the header and
/// again as frames arrive.
enum AnimationRender {
    /// Where an output names no format: the first that writes animations losslessly.
    private static let fallback = ImageFormat.allCases.first {
        $0.codec.writer?.animation != nil && $0.codec.writer?.options.contains(.lossless) == true
    }!

    /// Whether an output of `format` (nil: none named) is made as an animation; the
    /// others of an animated input get its first frame, as without `--animated`.
    static func animates(_ format: ImageFormat?) -> Bool { (format ?? fallback).codec.writer?.animation != nil }

    /// What such an output's result says.
    static func firstFrameOnly(_ format: ImageFormat) -> String {
        let holding = ImageFormat.allCases.filter { $0.codec.writer?.animation != nil }.map(\.displayName)
        return "\(format.displayName) holds no animation, so its output is the first frame (--animated writes \(holding.joined(separator: ", ")))"
    }

    /// One output of an animation: its format, the plan every frame runs, its
    /// animation encoder's maker, and the bytes it holds while it is made.
    private struct Planned {
        let format: ImageFormat
        let plan: RenderPlan
        let make: @Sendable (Size, EncodeOptions, Int) throws -> any AnimationEncoder
        let memory: Int
    }

    /// The input's header, its canvas and each output's plan; nil unless `--animated`
    /// was asked for and the input is an animation (not a still, nor a format whose
    /// frames imgscale does not read). Refuses what the render refuses before decoding,
    /// but for the memory budget.
    private static func prepare(_ data: [UInt8], outputs: [RenderOutput], decode: DecodeOptions, settings: RenderSettings,
                                announce: Bool) throws -> (decoder: any RowDecoder, canvas: ImageInfo, outputs: [Planned])? {
        guard settings.animated else { return nil }
        let decoder = try ImageFormat.decoder(for: data, options: decode)
        let info = decoder.info
        guard info.frames > 1 else { return nil }
        if announce { settings.headerRead?(info) }
        if info.frames > decode.maxFrames { throw DecodeError.tooManyFrames(info.frames, limit: decode.maxFrames) }
        try decode.check(info.size)
        // Every frame is composited and planned at the canvas's size: a small file of many
        // frames on a large canvas (900 of 4000x4000 took 72 s; 999 of 2000x2000 to a GIF,
        // 99 s) is held to 4 times the pixel limit in all, from the header: 517 frames of
        // 1920x1080, and about 30 s at the GIF encoder's 20 megapixels a second.
        let perFrame = info.size.width * info.size.height
        if decode.maxPixels > 0, info.frames > (decode.maxPixels * DecodeError.framePixelsFactor) / max(1, perFrame) {
            throw DecodeError.tooManyFramePixels(frames: info.frames, info.size, limit: decode.maxPixels)
        }
        // The canvas as the plan sees it: RGBA, the input's orientation.
        let canvas = ImageInfo(format: info.format, size: info.size, channels: 4, bitDepth: 8, colorModel: .rgba,
                               orientation: info.orientation, interlaced: false, iccProfile: nil, exif: nil, xmp: nil,
                               frames: info.frames, workingBytes: info.size.width * info.size.height * 4)
        return (decoder, canvas, try outputs.map { output in
            let format = output.format ?? fallback
            guard let make = format.codec.writer?.animation else { throw EncodeError.noAnimation(format) }
            let plan = try RenderPlan(output.operation, info: canvas, capabilities: DecoderCapabilities(), dataBytes: data.count,
                                      format: nil, autoOrient: settings.autoOrient, upscale: settings.upscale, filter: settings.filter,
                                      sharpen: settings.sharpen, linear: settings.linear)
            try plan.checkLimits(pixels: decode.maxPixels, format: format)
            // Two canvases in the reader (one kept for disposal), the frame planned, and
            // the encoder's previous and current frames.
            let frameBytes = perFrame * 4, outBytes = plan.output.width * plan.output.height * 4
            return Planned(format: format, plan: plan, make: make, memory: data.count + 3 * frameBytes + plan.memory + 3 * outBytes)
        })
    }

    /// What `render` would do, from the header: each output's frames decoded and planned
    /// as a still's, into its animation encoder. nil where `render` gives nil.
    static func plan(_ data: [UInt8], outputs: [RenderOutput], decode: DecodeOptions, encode: EncodeOptions,
                     settings: RenderSettings) throws -> JobPlan? {
        guard let (decoder, canvas, planned) = try prepare(data, outputs: outputs, decode: decode, settings: settings,
                                                             announce: false) else { return nil }
        let frames = "each of \(canvas.frames) frames composited, " + (settings.threads > 1 ? "the next while one is encoded" : "one thread")
        return JobPlan(input: decoder.info, outputs: planned.map { p in
            JobPlan.Output(operation: p.plan.operation.summary, size: p.plan.output, path: "animation", stages: p.plan.stages,
                           format: p.format, settings: ["animated, \(canvas.frames) frames"] + (p.format.codec.writer?.settings(encode) ?? []),
                           metadata: [], dropped: [])
        }, decodes: planned.indices.map { JobPlan.Decode(shrink: 1, window: nil, split: frames, outputs: [$0]) },
           threads: max(1, settings.threads), libraryThreads: decoder.info.format.codec.libraryThreads,
           memory: planned.map(\.memory).max() ?? 0, budget: decode.maxMemory)
    }

    /// Each output as an animation, or nil when the input is no animation (a still, or
    /// a format whose frames imgscale does not read), which renders as usual.
    static func render(_ data: [UInt8], outputs: [RenderOutput], decode: DecodeOptions, encode: EncodeOptions,
                       settings: RenderSettings) throws -> [RenderResult]? {
        guard let (decoder, canvas, planned) = try prepare(data, outputs: outputs, decode: decode, settings: settings,
                                                             announce: true) else { return nil }
        let info = decoder.info
        return try zip(outputs, planned).map { output, p in
            let plan = p.plan
            // An animation's placeholder is its first frame's, as a viewer shows it before playing.
            let tap = output.preview.map(PreviewTap.init(box:))
            try MemoryBudget.check(p.memory, budget: decode.maxMemory)
            // Opened once the budget allows its canvases.
            guard let frames = try decoder.frames(options: decode) else { throw DecodeError.invalid(info.format, "its frames cannot be read") }
            let reader = Handover(frames)
            let encoder = try p.make(plan.output, encode, reader.value.loopCount)
            // Each frame decoded and planned; with a second thread, while the one before
            // it is encoded (the encoder takes them in order, so the bytes are the same).
            @Sendable func produce(into sink: (PixelBuffer, Int) throws -> Void) throws {
                var count = 0
                while let (frame, ms) = try reader.value.next() {
                    count += 1
                    if count > decode.maxFrames { throw DecodeError.tooManyFrames(count, limit: decode.maxFrames) }
                    try decode.cancellation?.check()
                    let (planned, _) = try RenderExecutor(decoder: FrameDecoder(frame: frame, info: canvas), plan: plan, options: decode).image()
                    if count == 1 { tap?.take(planned) }
                    try sink(planned, ms)
                }
            }
            if settings.threads > 1 {
                // Two planned frames wait at most: a frame's decode and the encode of the
                // one before it take about as long.
                let pipe = FramePipe(capacity: 2)
                let work = RenderExecutor.lentThread().start {
                    do {
                        try produce { try pipe.push($0, milliseconds: $1) }
                        pipe.finish(nil)
                    } catch {
                        pipe.finish(error)
                    }
                }
                do {
                    while let (frame, ms) = try pipe.pop() { try encoder.add(frame, milliseconds: ms) }
                } catch {
                    pipe.cancel()
                    work.wait()
                    throw error
                }
                work.wait()
            } else {
                try produce { try encoder.add($0, milliseconds: $1) }
            }
            var result = RenderResult(bytes: try encoder.finish(), size: plan.output, info: info)
            result.preview = tap?.image
            return result
        }
    }
}

/// A frame reader handed to the thread that produces the frames: used by that thread
/// alone once the render starts it, and by the caller only before.
private struct Handover: @unchecked Sendable {  // one thread at a time, in turn
    let value: any FrameReader
    init(_ value: any FrameReader) { self.value = value }
}
