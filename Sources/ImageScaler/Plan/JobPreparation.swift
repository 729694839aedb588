/// What `ImageOperation.render` and `ImageOperation.plan` share, so the printed plan is
/// the render's own: the header read once, each output planned and checked against the
/// limits, the memory of all of them with their metadata, and each output's encoder
/// options (the ICC profile, EXIF and XMP it carries). Pure: no pixel is decoded,
/// except the preview an `entropy` gravity needs.
struct JobPreparation {
    let decoder: any RowDecoder
    let info: ImageInfo
    let outputs: [RenderOutput]
    /// Each output's format, the input's own where the output named none.
    let formats: [ImageFormat]
    let plans: [RenderPlan]
    /// What the job says once of the input, beside the encoders' warnings (a --trim
    /// that found nothing to trim).
    private(set) var notices: [String] = []
    /// Which outputs run together and how many encoders finish at once, within the budget.
    let schedule: RenderSchedule
    /// Each round's decodes, its outputs numbered within the round.
    let passes: [[DecodePass]]
    /// Each output's encoder options, resolved.
    private(set) var encoders: [EncoderChoice] = []
    /// What watches each output's encoded pixels, where a preview was asked for.
    let taps: [PreviewTap?]
    /// The estimate of the schedule's largest round.
    var memory: Int { schedule.memory }
    /// The input's own header (a drawn picture's, not its drawing's).
    let input: ImageInfo
    /// The size the decoder draws its picture at, or nil for stored pixels.
    var drawn: Size? { VectorPlacement.drawnSize(decoder) }
    private let encode: EncodeOptions
    private let settings: RenderSettings
    private let toSRGB: Bool
    /// `--export-profile`: RGB outputs embed its profile.
    private let export: ColorTarget?
    /// Rewritten once for the input, however many outputs share it.
    private let uprightXMP: [UInt8]?
    /// Each output's EXIF, rewritten once for its size (nil without `keepMetadata`).
    private let uprightEXIF: [[UInt8]?]

    /// The preparations one render runs, in output order: one for stored pixels; for a
    /// drawn picture (SVG) one per output, each drawing it at the size that output needs
    /// (`VectorPlacement`), so the pixel limit and the budget apply to each drawing.
    static func parts(_ data: [UInt8], outputs: [RenderOutput], decode: DecodeOptions, encode: EncodeOptions,
                      settings: RenderSettings) throws -> [JobPreparation] {
        // The image's thread budget is the encoders' too.
        var encode = encode
        encode.threads = max(1, settings.threads)
        let found = try ImageFormat.decoder(for: data, options: decode)
        var outputs = outputs, settings = settings, notices: [String] = []
        if let trim = settings.trim, VectorPlacement.drawnSize(found) != nil {
            // A drawing is trimmed at its own size and each output then drawn at the
            // size the part it keeps needs, not the whole drawing's.
            var kept: Rect? = nil
            switch try TrimScan.bounds(found, options: trim, decode: decode, orientation: .up) {
            case .box(let box): kept = box
            case .uniform: break
            case .unsupported:
                let (whole, _) = try ImageOperation.convert.perform(on: data, decode: decode, autoOrient: settings.autoOrient)
                kept = TrimFinder.bounds(whole, options: trim)
            }
            if let kept {
                outputs = try outputs.map { output in
                    var trimmed = output
                    trimmed.operation = try output.operation.trimmed(to: kept, upright: found.info.size)
                    return trimmed
                }
            } else {
                notices.append(JobPreparation.untrimmed)
            }
            settings.trim = nil
        }
        return try VectorPlacement.sources(outputs, from: found, upscale: settings.upscale).map { source in
            var job = try JobPreparation(data, decoder: source.decoder, input: found.info, outputs: source.outputs, decode: decode,
                                         encode: encode, settings: settings)
            job.notices += notices
            return job
        }
    }

    /// What a job adds to the process beyond its buffers: the pages of the libraries it
    /// runs, the heap's slack (measured: a 3840-wide streamed JPEG peaks 5.3 MiB over the
    /// process's base with 3.3 MiB of file and 2 MiB of its own).
    static let processBytes = 3 << 20
    /// What a --trim that found only border says.
    static let untrimmed = "it is all one colour within --trim's threshold, so it was left whole"
    /// A second thread's stack and malloc arena (measured: 4 MiB at any size).
    static let threadBytes = 4 << 20
    /// Each output's own thread with more than one: its stack, its pipe's rows and the
    /// heap's slack between two dozen of them (a 12 MP srcset of 19 outputs at once
    /// peaked 40 MiB over the sum of their single estimates).
    static let laneBytes = 2 << 20

    init(_ data: [UInt8], decoder found: any RowDecoder, input: ImageInfo, outputs: [RenderOutput], decode: DecodeOptions,
         encode: EncodeOptions, settings: RenderSettings) throws {
        decoder = decode.cancellation.map { CancellableDecoder(inner: found, flag: $0) } ?? found
        info = decoder.info
        self.input = input
        try decode.check(info.size)
        var plans: [RenderPlan] = []
        // A format imgscale only reads (SVG) is written losslessly where no format is named.
        let own = found.info.format.isWritable ? found.info.format : ImageFormat.lossless
        let formats = outputs.map { $0.format ?? own }
        // --trim looks at the whole upright picture once, before any output is planned.
        var trimmedTo: Rect? = nil
        if let trim = settings.trim {
            switch try TrimScan.bounds(decoder, options: trim, decode: decode, orientation: settings.autoOrient ? info.orientation : .up) {
            case .box(let kept): trimmedTo = kept
            case .uniform: break
            case .unsupported:
                let (whole, _) = try ImageOperation.convert.perform(on: data, decode: decode, autoOrient: settings.autoOrient)
                trimmedTo = TrimFinder.bounds(whole, options: trim)
            }
            if trimmedTo == nil { notices.append(JobPreparation.untrimmed) }
        }
        let upright = settings.autoOrient ? info.uprightSize : info.size
        let taps = outputs.map { $0.preview.map(PreviewTap.init(box:)) }
        for (output, (format, tap)) in zip(outputs, zip(formats, taps)) {
            // A watched output's pixels are encoded, so it is never a recompression.
            var encode = encode
            encode.previewTap = tap
            var operation = try output.operation.resolvingPixelGravity(data, info: info, decode: decode, autoOrient: settings.autoOrient)
            if let trimmedTo { operation = try operation.trimmed(to: trimmedTo, upright: upright) }
            let plan = try RenderPlan(operation, info: info, capabilities: decoder.capabilities, dataBytes: data.count,
                                      format: format, encode: encode, toSRGB: decode.toSRGB, export: decode.export, autoOrient: settings.autoOrient,
                                      upscale: settings.upscale, filter: settings.filter, sharpen: settings.sharpen,
                                      linear: settings.linear)
            try plan.checkLimits(pixels: decode.maxPixels, format: format)
            plans.append(plan)
        }
        self.outputs = outputs
        self.taps = taps
        self.formats = formats
        self.plans = plans
        // Every output's encoder holds the metadata it carries, and its file holds it
        // again, all at once on the stream path: an 8 MB profile in 30 AVIF sizes was
        // 0.95 GB the plans did not count.
        let carried = (settings.carryProfile && !decode.toSRGB ? info.iccProfile?.count ?? 0 : 0)
            + (settings.keepMetadata ? (info.exif?.count ?? 0) + (info.xmp?.count ?? 0) : 0)
        // The file, and every output's file (its metadata), kept until the last round ends;
        // a round's outputs hold their metadata twice more while they are made. A split
        // decode's bottom part makes each streamed output's lower half while the top
        // streams: half the rows wait (2 bytes a pixel, measured 22 MB at 3840x2880), and
        // the second thread has its stack and malloc arena.
        let threads = max(1, settings.threads)
        let banded = threads > 1 && settings.splitRegions && decoder.capabilities.splitsRegions
        schedule = RenderSchedule(held: plans.map { plan in
            // A held result holds those rows anyway.
            let band = banded && plan.resample != nil && plan.path == .stream
                ? Int.saturatingProduct(plan.target.width, plan.target.height, 2) : 0
            let lane = threads > 1 ? JobPreparation.laneBytes : 0
            return Int.saturatingSum(Int.saturatingSum(plan.memory - data.count, Int.saturatingProduct(carried, 2)), band + lane)
        }, encoding: plans.map(\.encoding),
           base: Int.saturatingSum(Int.saturatingSum(data.count, Int.saturatingProduct(carried, plans.count)),
                                   JobPreparation.processBytes + (threads > 1 ? JobPreparation.threadBytes : 0)),
           threads: threads, budget: decode.maxMemory)
        self.encode = encode
        self.settings = settings
        toSRGB = decode.toSRGB
        export = decode.export
        uprightXMP = settings.keepMetadata ? info.xmp.map(ExifEditor.xmpForUprightOutput) : nil
        let exif = settings.keepMetadata ? info.exif : nil
        uprightEXIF = plans.map { plan in exif.flatMap { ExifEditor.forUprightOutput($0, size: plan.output) } }
        let source = decoder, split = settings.splitRegions
        passes = schedule.rounds.map { round in
            DecodePass.planned(round.map { plans[$0] }, decoder: source, options: decode, threads: threads, splitRegions: split)
        }
        let resolved = plans.indices.map { i in EncoderChoice { channels in self.resolve(i, channels: channels) } }
        encoders = resolved
    }

    /// Output `index`'s encoder options for a result of `channels` channels, and a
    /// warning for each block its format cannot carry.
    func encoding(_ index: Int, channels: Int) -> (EncodeOptions, [String]) {
        encoders[index].options(channels: channels)
    }

    private func resolve(_ index: Int, channels: Int) -> (EncodeOptions, [String]) {
        var o = encode
        o.previewTap = taps[index]
        if settings.keepMetadata {
            o.exif = uprightEXIF[index]
            o.xmp = uprightXMP
        }
        // Converted pixels are sRGB, which is what a file without a profile means.
        if let export, channels >= 3 {
            o.iccProfile = export.icc
        } else if settings.carryProfile, !toSRGB, let icc = info.iccProfile, ICCProfile.fits(icc, channels: channels) {
            o.iccProfile = icc
        }
        return formats[index].carriable(o, channels: channels)
    }

    /// The colour onto which output `index`'s alpha is composited before its encoder, if any.
    func flattenOnto(_ index: Int) -> RGBColor? { encode.flatten ? encode.background : nil }

    /// Output `index`'s stages, in the order the pixels meet them (its plan's).
    func stages(_ index: Int) -> [Stage] { plans[index].stages }

    /// The channels output `index` is encoded with when its alpha is kept (`info`'s
    /// channels are the decoder's output, after the colour stage).
    func channels(_ index: Int) -> Int {
        flattenOnto(index) != nil && info.channels % 2 == 0 ? info.channels - 1 : info.channels
    }
}
