/// Everything a render will do, worked out from the header, the operation and the
/// options alone - no pixels - so it can be tested and printed on its own. Geometry
/// starts in the upright image's coordinates (the operation's) and is converted once,
/// here, to the decoder's: stored orientation, shrunk by the decode factor.
package struct RenderPlan {
    /// How the executor runs it.
    enum Path: Equatable {
        /// Rows flow decoder -> resampler (if any) -> encoder; nothing is held whole.
        case stream
        /// Rows flow decoder -> resampler; the small result is then oriented, padded,
        /// stripped of opaque alpha or palettised, and encoded.
        case held
        /// No resampling (`crop`, `convert`): the image (or, for a decoder that can, the
        /// crop's region) is decoded, cut, oriented and encoded.
        case whole
        /// A 16-bit output: the image decoded whole at 16 bits (an 8-bit one widened),
        /// then resampled, turned, cut, padded and encoded at 16 bits.
        case wide
        /// Nothing decoded: the output format takes the input's coded data as it is (a
        /// JPEG's DCT coefficients into JPEG XL), for a convert that changes no pixel.
        case recompress

        /// Whether outputs on this path take their rows from a decode they share
        /// (`DecodePass`); on the others each output is made on its own (`SoloRoute`).
        var sharesDecodes: Bool { self == .stream || self == .held }
    }

    /// A resampling step in the decoder's coordinates.
    struct Resample: Equatable {
        /// The source rect, in stored pixels of the image decoded at 1/`shrink`.
        let sampling: SamplingRect
        /// The output in stored orientation (axes swapped for EXIF 5-8).
        let storedTarget: Size
        /// Decode factor, one of the decoder's `shrinkFactors`.
        let shrink: Int
        /// The rows and columns to decode, in the shrunk image; nil = all.
        let window: Rect?
        let filter: ResampleFilter
        /// A box average before the filter (linear light's, `BoxReduction`), applied to
        /// the decoded image; the filter then reads `sampling` in the reduced image's
        /// coordinates, `reducedSampling`.
        var reduction: BoxReduction? = nil

        /// The rect the filter reads: `sampling`, or its place in the reduced image.
        var reducedSampling: SamplingRect { reduction.map { $0.reduced(sampling) } ?? sampling }
    }

    /// Linear light averages blocks before the filter, as vipsthumbnail --linear does
    /// (libvips's resize shrinks by a box to within 2x of the target, then reduces with
    /// its kernel) and Pillow's `thumbnail` (`reducing_gap=2.0`): against libvips 8.18's
    /// linear thumbnails of the camera photos in the same geometry, 44.9-55.9 dB without
    /// it and 51.6-56.1 dB with it, in two thirds of the time.
    static let linearReducingGap = 2.0

    let operation: ImageOperation
    /// The result's size, upright (the letterbox's for `fit --pad`).
    let output: Size
    /// The resampled size, upright (before any letterbox).
    let target: Size
    let orientation: Orientation
    /// The part of the upright picture the output shows, before any letterbox: what a
    /// gain map's geometry is mapped from.
    let shown: Rect
    let resample: Resample?
    let path: Path
    /// For `crop` by a decoder that decodes regions: the stored rect kept, and the
    /// window (with `cropSlack`) to decode around it.
    let cropRegion: (kept: Rect, window: Rect)?
    /// About the most bytes the job holds at once (`MemoryBudget`), but for `encoding`.
    let memory: Int
    /// The bytes the output's encoder library works in while it finishes, beside `memory`:
    /// only so many encoders finish at once (`RenderSchedule`).
    let encoding: Int
    /// Bits per sample from the decoder to the encoder: 8, or 16 on the wide path.
    let depth: Int
    /// Every step from the decoder to the encoder, in order (`Stage`): what the
    /// executor runs and `imgscale plan` prints.
    let stages: [Stage]
    /// On the recompress path, the output's writer of the input's coded data.
    let recompression: (@Sendable ([UInt8]) throws -> [UInt8])?

    /// Plans `operation` for an input with header `info`, decoded by a decoder with
    /// `capabilities`, written as `format` with `encode`'s depth, palette and alpha
    /// choices (nil: only pixels are wanted, as decoded).
    package init(_ operation: ImageOperation, info: ImageInfo, capabilities found: DecoderCapabilities, dataBytes: Int,
         format: ImageFormat?, encode: EncodeOptions = EncodeOptions(), toSRGB: Bool = false, export: ColorTarget? = nil, autoOrient: Bool,
         upscale: Bool = true, filter: ResampleFilter = .bilinear, sharpen: UnsharpMask? = nil, linear: Bool = false) throws {
        self.operation = operation
        let palette = encode.palette, depth = encode.depth
        var wide: Bool
        switch depth {
        case .eight: wide = false
        case .sixteen: wide = format != nil
        case .auto: wide = info.bitDepth > 8 && format?.holdsSixteenBits == true && !(palette && format?.writesPalettes == true)
        }
        // The unsharp mask is Pillow's, which is 8-bit: `auto` then keeps 8 bits.
        if wide && sharpen != nil {
            if depth == .sixteen { throw EncodeError.sharpenedSixteenBits }
            wide = false
        }
        self.depth = wide ? 16 : 8
        // Linear light resamples on the wide path, whatever the output's depth.
        let linearLight: Bool
        switch operation {
        case .fill, .fit: linearLight = linear
        case .crop, .convert: linearLight = false
        }
        // 16 bits and linear light are decoded whole at full size: no decode at a reduced
        // scale or over a region, which would give 8-bit rows averaged in gamma. libvips
        // 8.18 never shrinks on load in linear mode either, and rightly: on the street
        // photo even a 1/2 DCT-scaled decode moved a 128-wide linear thumbnail from 55.7
        // to 42.1 dB of libvips's (1/4 at 32 wide: 38.0), its gamma-encoded averages
        // darkening the lamps' fine highlights. Its price there is 0.23 s against 0.11 s.
        let capabilities = wide || linearLight ? DecoderCapabilities() : found
        let upright = autoOrient ? info.uprightSize : info.size
        orientation = autoOrient ? info.orientation : .up
        var cropRegion: (Rect, Rect)? = nil
        switch operation {
        case .fill(let size, let from, let origin, let gravity, let focus):
            let rect = try Scaling.plan(source: upright, target: size, from: from, origin: origin, gravity: gravity, focus: focus)
            // Without upscaling, a source rect smaller than the target is only cropped:
            // the output is the rect itself, at the target's aspect ratio.
            let fillTarget = !upscale && (rect.width < size.width || rect.height < size.height) ? rect.size : size
            shown = rect
            target = fillTarget
            output = fillTarget
            resample = RenderPlan.resample(rect, into: fillTarget, info: info, capabilities: capabilities, orientation: orientation,
                                           filter: filter, linear: linearLight)
        case .fit(let box, let pad, let from):
            let region = try from.map { try AspectFill.clip($0, origin: .topLeft, to: upright) } ?? Rect(size: upright)
            let fitted = try AspectFill.fitSize(region.size, in: box)
            target = !upscale && (fitted.width > region.width || fitted.height > region.height) ? region.size : fitted
            output = pad != nil ? box : target
            shown = region
            resample = RenderPlan.resample(region, into: target, info: info, capabilities: capabilities,
                                           orientation: orientation, filter: filter, linear: linearLight)
        case .crop(let rect, let origin):
            let clipped = try AspectFill.clip(rect, origin: origin, to: upright)
            shown = clipped
            target = clipped.size
            output = clipped.size
            resample = nil
            if capabilities.decodesRegions {
                // Decoded over the rect plus `cropSlack`, where a cropped decode may
                // differ from a whole one.
                let s = orientation.storedRect(SamplingRect(clipped), stored: info.size)
                let kept = Rect(x: Int(s.x), y: Int(s.y), width: Int(s.width), height: Int(s.height))
                let k = ShrinkOnLoad.cropSlack
                let x0 = max(0, kept.x - k), y0 = max(0, kept.y - k)
                cropRegion = (kept, Rect(x: x0, y: y0, width: min(info.size.width, kept.maxX + k) - x0,
                                         height: min(info.size.height, kept.maxY + k) - y0))
            }
        case .convert:
            shown = Rect(size: upright)
            target = upright
            output = upright
            resample = nil
        }
        self.cropRegion = cropRegion
        // Streaming needs a result that is final row by row: upright as stored, no
        // letterbox, no palette, and no alpha that might turn out to be all opaque.
        let padded: Bool
        if case .fit(_, .some, _) = operation { padded = true } else { padded = false }
        // A searched quality encodes the whole result several times.
        let streams = (info.channels == 1 || info.channels == 3) && !padded && orientation == .up
            && encode.targetSSIM == nil && encode.maxBytes == nil
            && !(palette && format?.writesPalettes == true) && format != nil
        var path: Path
        if wide || linearLight {
            path = .wide
        } else if resample == nil {
            // A convert of such an image streams too: decoded rows go straight to the
            // encoder, which then runs on its own core while the decoder works.
            path = streams && operation.isConvert && sharpen == nil ? .stream : .whole
        } else if streams {
            path = .stream
        } else {
            path = .held
        }
        let stages = RenderPlan.stages(operation, info: info, resample: resample, cropRegion: cropRegion?.0, path: path,
                                       orientation: orientation, depth: self.depth, format: format, encode: encode, toSRGB: toSRGB, export: export,
                                       upright: upright, sharpen: sharpen, linear: linearLight)
        // A convert that would only turn the pixels (a format whose orientation travels
        // with the coded data shows them turned as well) and a writer that takes the
        // input's coded data as it is: nothing is decoded.
        let onlyTurns = stages.allSatisfy { if case .orient = $0 { return true } else { return false } }
        let recompression = operation.isConvert && self.depth == 8 && onlyTurns && (autoOrient || info.orientation == .up) && encode.previewTap == nil
            ? format?.codec.writer?.recompression?(info.format, encode) : nil
        self.recompression = recompression
        if recompression != nil {
            path = .recompress
            self.stages = [.recompress(info.format)]
            memory = dataBytes * 3
            encoding = format?.codec.writer?.recompressionBytes(encode, info.size) ?? 0
        } else {
            self.stages = stages
            // Quantising holds per pixel its packed colour, the dither's error rows and the
            // indices beside the held result (the histogram is bounded:
            // `ColorHistogram.limit`): a 5.6 MP RGBA noise image peaked at 106 MiB over the
            // process's base, a 3840x2880 photo at 159 MiB.
            let quantising = stages.contains { if case .quantise = $0 { return true } else { return false } }
                ? Double(output.width) * Double(output.height) * 6
                  + min(Double(ColorHistogram.limit), Double(output.width) * Double(output.height)) * 64 : 0
            let encoderHeld = Double(format?.codec.writer?.heldBytes(encode, output) ?? 0)
            // A searched quality keeps each probe's file, and for --target-ssim decodes
            // each probe to score it (`SSIM` reads rows) after its encoder has finished,
            // so the decode does not meet the encoder's peak: 3 bytes a pixel. A 3840x2880
            // AVIF search at 0.95 peaked 446 MiB, 135 MiB over the same output streamed.
            let searching = encode.targetSSIM != nil || encode.maxBytes != nil ? Double(output.width) * Double(output.height) * 3 : 0
            let needed = Double(RenderPlan.memoryNeeded(info: info, dataBytes: dataBytes, resample: resample, path: path, output: output,
                                                        cropWindow: cropRegion?.1, capabilities: capabilities)) + quantising + encoderHeld + searching
            memory = needed >= Double(Int.max / 2) ? Int.max / 2 : Int(needed)
            encoding = format?.codec.writer?.workingBytes(encode, output, info.channels) ?? 0
        }
        self.path = path
    }

    /// The steps in the order the pixels meet them: the colour stage after the decoder,
    /// the widening, the resampler or the cut, then what the held, whole and wide paths
    /// finish the result with. Without a format (pixels wanted) alpha is left as it is.
    private static func stages(_ operation: ImageOperation, info: ImageInfo, resample: Resample?, cropRegion: Rect?, path: Path,
                               orientation: Orientation, depth: Int, format: ImageFormat?, encode: EncodeOptions, toSRGB: Bool, export: ColorTarget?,
                               upright: Size, sharpen: UnsharpMask?, linear: Bool) -> [Stage] {
        var stages: [Stage] = []
        if let export, info.channels >= 3 {
            stages.append(.profileTo(export.name, intent: export.intent.rawValue))
        } else if info.colorModel == .cmyk {
            stages.append(.inkToRGB)
        } else if toSRGB && info.iccProfile != nil {
            stages.append(.profileToSRGB)
        }
        if (depth == 16 || linear) && info.bitDepth <= 8 { stages.append(.widen) }
        if let r = resample {
            if linear { stages.append(.toLinear) }
            if let b = r.reduction { stages.append(.reduce(x: b.x, y: b.y, box: b.box)) }
            stages.append(.resample(filter: r.filter, source: r.reducedSampling, target: r.storedTarget))
            if linear { stages.append(.fromLinear(depth: depth)) }
        } else if let kept = cropRegion {
            // A decoder that decodes regions is cut in stored pixels, before turning.
            stages.append(.cut(kept))
        }
        guard path != .stream else {
            // Streamed rows are sharpened through a ring of the rows below (`UnsharpRows`).
            if let sharpen, resample != nil { stages.append(.sharpen(sharpen)) }
            return stages
        }
        if orientation != .up { stages.append(.orient(orientation)) }
        if resample == nil, cropRegion == nil, case .crop(let rect, let origin) = operation,
           let clipped = try? AspectFill.clip(rect, origin: origin, to: upright) {
            stages.append(.cut(clipped))
        }
        if let sharpen { stages.append(.sharpen(sharpen)) }
        if case .fit(let box, let pad?, _) = operation { stages.append(.pad(box, pad)) }
        guard let format else { return stages }
        if info.channels == 2 || info.channels == 4 {
            if encode.flatten {
                stages.append(.flatten(encode.background))
            } else if !format.holdsAlpha {
                stages.append(.dropOpaqueAlpha)
                stages.append(.flatten(encode.background))
            } else {
                stages.append(.dropOpaqueAlpha)
            }
        }
        if encode.palette && format.writesPalettes && depth == 8 {
            stages.append(encode.colors.map { .quantise(colors: $0, dither: encode.dither) } ?? .palettise)
        }
        return stages
    }

    /// The largest decode factor that still leaves the resampler a 2x reduction
    /// (`ShrinkOnLoad`), and the window the filter reads, when the decoder can do them.
    private static func resample(_ rect: Rect, into target: Size, info: ImageInfo, capabilities: DecoderCapabilities,
                                 orientation: Orientation, filter: ResampleFilter, linear: Bool = false) -> Resample {
        // Nearest copies source pixels, which a DCT-scaled decode would have averaged;
        // box barely smooths what DCT scaling changes (measured: 33-40 dB from a full
        // decode even with 2-4x left). Both decode at full size; the others keep 2x their
        // support (bilinear and hamming 2x, bicubic 4x, lanczos 6x: 50-56 dB or exact).
        let factor = filter == .nearest || filter == .box ? 1
            : ShrinkOnLoad.factor(sampling: rect.size, into: target, allowed: capabilities.shrinkFactors, support: filter.support)
        // A DCT-scaling decoder maps stored x to x/factor exactly, so the plan goes to
        // stored coordinates first and is scaled there.
        let sampling = orientation.storedRect(SamplingRect(rect), stored: info.size).scaled(by: 1 / Double(factor))
        let storedTarget = orientation.swapsAxes ? Size(width: target.height, height: target.width) : target
        let reduced = Size(width: (info.size.width + factor - 1) / factor, height: (info.size.height + factor - 1) / factor)
        let window = capabilities.decodesRegions ? ShrinkOnLoad.window(of: sampling, into: storedTarget, within: reduced,
                                                                       support: filter.support) : nil
        let reduction = linear ? BoxReduction(rect: sampling, of: reduced, into: storedTarget, filter: filter, gap: linearReducingGap) : nil
        return Resample(sampling: sampling, storedTarget: storedTarget, shrink: factor, window: window, filter: filter, reduction: reduction)
    }

    /// The pixel limit applies to what is made as well as to what is read, and the
    /// output format's own limits too: a huge `--size` or a JPEG wider than 65535 is
    /// refused before any pixel memory is allocated. (Then the memory budget, over all
    /// of an input's plans: `memory(of:dataBytes:)`.)
    func checkLimits(pixels limit: Int, format: ImageFormat?) throws {
        if let format, depth == 16, !format.holdsSixteenBits { throw EncodeError.noSixteenBits(format) }
        if let format, output.width > format.maxSide || output.height > format.maxSide {
            throw GeometryError.outputTooLargeForFormat(output, format)
        }
        if limit > 0, !operation.isConvert {
            let (pixels, overflow) = output.width.multipliedReportingOverflow(by: output.height)
            if overflow || pixels > limit { throw GeometryError.outputTooLarge(output, limit: limit) }
        }
    }

    /// The bytes several plans of one input hold when run together: the file once, and
    /// each plan's decoder and pipeline (concurrent passes each hold a decoder).
    static func memory(of plans: [RenderPlan], dataBytes: Int) -> Int {
        let total = plans.reduce(Double(dataBytes)) { $0 + Double($1.memory - dataBytes) }
        return total >= Double(Int.max / 2) ? Int.max / 2 : Int(total)
    }

    /// About the most bytes the job holds at once, from the header alone: the file, the
    /// decoder's own buffers, then either the resampling pipeline (a chunk of decoded
    /// rows, the vertical filter's ring, the output and its encoding) or, for `crop`
    /// and `convert`, the whole decoded image, its result and the encoding. Worked in
    /// floating point: a hostile header's products must not overflow.
    private static func memoryNeeded(info: ImageInfo, dataBytes: Int, resample: Resample?, path: Path, output: Size,
                                     cropWindow: Rect?, capabilities: DecoderCapabilities) -> Int {
        let channels = Double(info.channels)
        var total = Double(dataBytes) + Double(info.workingBytes)
        if path == .wide, let r = resample, let b = r.reduction, info.bitDepth <= 8 {
            // Linear light's rows go into the reduction as they arrive (`WideRender`):
            // a 16-bit row and the block sums, the reduced image, then as below.
            let red = b.reducedSize
            let samples = Double(red.width) * Double(red.height) * channels
            total += Double(info.size.width) * channels * 10 + samples * 3 * 2
                + Double(red.height) * Double(r.storedTarget.width) * channels * 4
                + Double(r.storedTarget.width) * Double(r.storedTarget.height) * channels * 8
                + Double(output.width) * Double(output.height) * 4 * 2 * 4
            return total >= Double(Int.max / 2) ? Int.max / 2 : Int(total)
        }
        if path == .wide {
            // The 8-bit image and its widening (or the decoder's 16-bit image), then the
            // resampler's 32-bit rows between passes, its 64-bit sums and the 16-bit
            // result's stages and encoding; or, unscaled, a cut or turned copy, its
            // big-endian bytes and the file.
            let f = Double(resample?.shrink ?? 1)
            let decodedHeight = (Double(info.size.height) / f).rounded(.up)
            let samples = (Double(info.size.width) / f).rounded(.up) * decodedHeight * channels
            total += samples * 3
            if let r = resample {
                let outSamples = Double(output.width) * Double(output.height) * 4
                total += decodedHeight * Double(r.storedTarget.width) * channels * 4
                    + Double(r.storedTarget.width) * Double(r.storedTarget.height) * channels * 8 + outSamples * 2 * 4
            } else {
                total += samples * 2 * 3
            }
            return total >= Double(Int.max / 2) ? Int.max / 2 : Int(total)
        }
        if let r = resample {
            let f = Double(r.shrink)
            let rows = r.window.map { Double($0.width) } ?? (Double(info.size.width) / f).rounded(.up)
            let height = r.window.map { Double($0.height) } ?? (Double(info.size.height) / f).rounded(.up)
            let rowBytes = rows * channels
            // A chunk of decoded rows: 16 of a photo, one of a very wide strip.
            total += max(rowBytes, min(rowBytes * 16, Double(4 << 20)))
            let vScale = max(r.sampling.height / Double(r.storedTarget.height), 1)
            let taps = min(2 * (r.filter.support * vScale).rounded(.up) + 1, height)
            let tempWidth = min(Double(r.storedTarget.width), rows)
            // Alpha makes premultiplied copies of a row; 4 channels bound every case.
            total += taps * tempWidth * 4 + rowBytes
            // Streamed, rows go on to the encoder (an encoder of whole pictures gathers them:
            // its `heldBytes`); held, the result and a finished copy (measured: 8.6 bytes a
            // pixel for an EXIF-turned RGB photo, 21 for RGBA noise with its file). Gray
            // and gray-alpha count as 4 channels: their stages may widen them.
            let c = channels >= 3 ? channels : 4
            let target = Double(r.storedTarget.width) * Double(r.storedTarget.height) * c
            total += path == .stream ? 0 : 2 * target + Double(output.width) * Double(output.height) * c
        } else if path == .stream {
            // A streamed convert's decoded rows go straight on to the encoder: a chunk of
            // them at a time (a 60 MP JPEG to PNG peaked at 132 MiB, its encoder's share
            // counted apart, where three whole images were counted: 676 MiB, refused).
            let rowBytes = Double(info.size.width) * channels
            total += max(rowBytes, min(rowBytes * 16, Double(4 << 20)))
        } else {
            let window = cropWindow ?? Rect(size: info.size)
            let pixels = info.workingBytes == 0 || cropWindow != nil ? Double(window.width) * Double(window.height)
                                                                      : Double(info.size.width) * Double(info.size.height)
            total += 3 * pixels * channels
        }
        return total >= Double(Int.max / 2) ? Int.max / 2 : Int(total)
    }
}
