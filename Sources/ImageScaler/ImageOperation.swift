import Dispatch

/// One geometric operation on an upright image, and the whole path from file bytes to
/// its result: decode (JPEG shrink-on-load when it cannot hurt), orient, then apply.
/// All geometry is in the upright image's coordinates.
public enum ImageOperation: Sendable {
    case fill(Size, from: Rect?, origin: CoordinateOrigin, gravity: Gravity)
    case crop(Rect, origin: CoordinateOrigin)
    /// Fit inside the size; with `pad`, letterbox to exactly that size on the colour.
    case fit(Size, pad: RGBColor? = nil)
    case convert

    /// The size the operation asks for, when it has one (`{w}`/`{h}` in output names).
    public var requestedSize: Size? {
        switch self {
        case .fill(let size, _, _, _), .fit(let size, _): return size
        case .crop(let rect, _): return rect.size
        case .convert: return nil
        }
    }

    /// Applies the operation to an already upright image.
    public func apply(_ image: PixelBuffer) throws -> PixelBuffer {
        switch self {
        case .fill(let size, let from, let origin, let gravity):
            return try Scaling.scaleToFill(image, in: size, from: from, origin: origin, gravity: gravity)
        case .crop(let rect, let origin):
            return try Scaling.crop(image, to: rect, origin: origin)
        case .fit(let size, _):
            return padded(try Scaling.scaleToFit(image, in: size))
        case .convert:
            return image
        }
    }

    /// Decodes `data` and applies the operation. Scaling operations stream: rows go
    /// from the decoder straight into the resampler, so the source is never held whole.
    /// A JPEG is decoded only as far as needed: at 1/2, 1/4 or 1/8 size when that still
    /// leaves the triangle filter at least 2x (`ShrinkOnLoad`), and only over the rows
    /// and columns the filter reads. Resampling runs in stored orientation and the small
    /// result is turned upright.
    public func perform(on data: [UInt8], decode: DecodeOptions = DecodeOptions(), autoOrient: Bool = true) throws -> (PixelBuffer, ImageInfo) {
        let info = try ImageCodec.info(data)
        try decode.check(info.size)
        try checkOutput(for: info, autoOrient: autoOrient, limit: decode.maxPixels)
        try MemoryBudget.check(try memoryNeeded(for: info, dataBytes: data.count, autoOrient: autoOrient, streaming: false),
                               budget: decode.maxMemory)
        return try perform(on: data, info: info, decode: decode, autoOrient: autoOrient)
    }

    /// `perform` once the header is read and the limits checked.
    private func perform(on data: [UInt8], info: ImageInfo, decode: DecodeOptions, autoOrient: Bool) throws -> (PixelBuffer, ImageInfo) {
        guard let plan = try streamPlan(for: info, autoOrient: autoOrient) else {
            if case .crop(let rect, let origin) = self, info.format == .jpeg {
                return try cropJPEG(data, rect, origin: origin, info: info, decode: decode, autoOrient: autoOrient)
            }
            return try decodeAndApply(data, decode: decode, autoOrient: autoOrient)
        }
        let (resampler, decoded) = try stream(data, plan, decode: decode, onRows: nil)
        return (padded(Orienter.upright(resampler.finish(), plan.orientation)), decoded)
    }

    /// Decodes, applies and encodes: the whole job from input bytes to output bytes.
    /// When the result needs no turning, the encoder takes rows as soon as the
    /// resampler makes them; with `threads` > 1, on a second thread, so that a single
    /// large image keeps two cores busy (decoding one, encoding on the other). The
    /// bytes are the same either way. With `carryProfile`, an input ICC profile that
    /// fits the output's colour space is embedded unchanged.
    public func render(_ data: [UInt8], as format: ImageFormat, decode: DecodeOptions = DecodeOptions(),
                       encode: EncodeOptions = EncodeOptions(), settings: RenderSettings = RenderSettings()) throws -> RenderResult {
        let info = try ImageCodec.info(data)
        try decode.check(info.size)
        try checkOutput(for: info, autoOrient: settings.autoOrient, limit: decode.maxPixels, format: format)
        let streaming = (info.channels == 1 || info.channels == 3) && !isPadded && !(encode.palette && format == .png)
        try MemoryBudget.check(try memoryNeeded(for: info, dataBytes: data.count, autoOrient: settings.autoOrient, streaming: streaming),
                               budget: decode.maxMemory)
        let autoOrient = settings.autoOrient, concurrent = settings.threads > 1
        var decode = decode
        decode.parallel = concurrent && settings.splitRegions
        var options = encode
        if settings.keepMetadata {
            let size = try outputSize(for: info, autoOrient: settings.autoOrient)
            options.exif = info.exif.flatMap { ExifEditor.forUprightOutput($0, size: size) }
            options.xmp = info.xmp.map(ExifEditor.xmpForUprightOutput)
        }
        func withProfile(_ channels: Int) -> EncodeOptions {
            var o = options
            // Converted pixels are sRGB, which is what a file without a profile means.
            if settings.carryProfile, !decode.toSRGB, let icc = info.iccProfile, ICCProfile.fits(icc, channels: channels) { o.iccProfile = icc }
            return o
        }
        // Streaming needs a result that is final row by row: upright as stored, no
        // letterbox, and no alpha that might turn out to be all opaque and be dropped.
        let streamable = info.channels == 1 || info.channels == 3
        guard streamable, !isPadded, !(options.palette && format == .png),
              let plan = try streamPlan(for: info, autoOrient: autoOrient), plan.orientation == .up else {
            let (image, decoded) = try perform(on: data, info: info, decode: decode, autoOrient: autoOrient)
            let final = image.droppingOpaqueAlpha()
            return RenderResult(bytes: try RowEncoder.encode(final, as: format, options: withProfile(final.channels)), size: final.size, info: decoded)
        }
        options = withProfile(info.channels)
        let writer = ResampledRowWriter(format: format, target: plan.target, options: options)
        if !concurrent {
            let (_, decoded) = try stream(data, plan, decode: decode) { try writer.drain($0) }
            return RenderResult(bytes: try writer.finish(), size: plan.target, info: decoded)
        }
        // Two threads: this one resamples and encodes what the other decodes.
        let pipe = ChunkPipe(capacity: 8)
        var producerError: Error? = nil
        var decoded = info
        let producer = DispatchWorkItem {
            do {
                decoded = try self.decodeRows(data, plan, decode: decode, begin: { pipe.begin($0) }, rows: { try pipe.push($0) })
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
                                             rect: plan.localSampling(in: region), target: plan.storedTarget)
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

    /// The size of the result, from the header alone.
    func outputSize(for info: ImageInfo, autoOrient: Bool) throws -> Size {
        let source = autoOrient ? info.uprightSize : info.size
        switch self {
        case .fill(let size, _, _, _): return size
        case .fit(let box, let pad): return pad != nil ? box : try AspectFill.fitSize(source, in: box)
        case .crop(let rect, let origin): return try AspectFill.clip(rect, origin: origin, to: source).size
        case .convert: return source
        }
    }

    /// `render` off the caller's thread: the work runs on a Dispatch worker, so a server's
    /// cooperative thread pool is never blocked by decoding.
    public func render(_ data: [UInt8], as format: ImageFormat, decode: DecodeOptions = DecodeOptions(),
                       encode: EncodeOptions = EncodeOptions(), settings: RenderSettings = RenderSettings()) async throws -> RenderResult {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try self.render(data, as: format, decode: decode, encode: encode, settings: settings) })
            }
        }
    }

    /// The pixel limit applies to what is made as well as to what is read, and the
    /// output format's own limits are checked too: a huge `--size` or a JPEG wider than
    /// 65535 is refused before any pixel memory is allocated. (Intermediate buffers are
    /// the memory budget's concern.)
    private func checkOutput(for info: ImageInfo, autoOrient: Bool, limit: Int, format: ImageFormat? = nil) throws {
        let output = try outputSize(for: info, autoOrient: autoOrient)
        if let format, output.width > format.maxSide || output.height > format.maxSide {
            throw GeometryError.outputTooLargeForFormat(output, format)
        }
        guard limit > 0, !isConvert else { return }
        let (pixels, overflow) = output.width.multipliedReportingOverflow(by: output.height)
        if overflow || pixels > limit { throw GeometryError.outputTooLarge(output, limit: limit) }
    }

    private var isConvert: Bool {
        if case .convert = self { return true }
        return false
    }

    /// About the most bytes the job holds at once, from the header alone: the file, the
    /// decoder's own buffers, then either the streaming pipeline (a chunk of decoded
    /// rows, the vertical filter's ring, the output and its encoding) or, for `crop`
    /// and `convert`, the whole decoded image, its result and the encoding. Worked in
    /// floating point: a hostile header's products must not overflow.
    private func memoryNeeded(for info: ImageInfo, dataBytes: Int, autoOrient: Bool, streaming: Bool) throws -> Int {
        let channels = Double(info.channels)
        var total = Double(dataBytes) + Double(info.workingBytes)
        if let plan = try streamPlan(for: info, autoOrient: autoOrient) {
            let f = Double(plan.factor)
            let rows = plan.window.map { Double($0.width) } ?? (Double(info.size.width) / f).rounded(.up)
            let height = plan.window.map { Double($0.height) } ?? (Double(info.size.height) / f).rounded(.up)
            let rowBytes = rows * channels
            // A chunk of decoded rows: 16 of a photo, one of a very wide strip.
            total += max(rowBytes, min(rowBytes * 16, Double(4 << 20)))
            let vScale = max(plan.sampling.height / Double(plan.storedTarget.height), 1)
            let taps = min(2 * vScale.rounded(.up) + 1, height)
            let tempWidth = min(Double(plan.storedTarget.width), rows)
            // Alpha makes premultiplied copies of a row; 4 channels bound every case.
            total += taps * tempWidth * 4 + rowBytes
            let target = Double(plan.storedTarget.width) * Double(plan.storedTarget.height) * 4
            total += streaming ? 2 * target : 4 * target
            if case .fit(let box, .some) = self { total += Double(box.width) * Double(box.height) * 4 }
        } else {
            var pixels = Double(info.size.width) * Double(info.size.height)
            if case .crop(let rect, let origin) = self {
                let clipped = try AspectFill.clip(rect, origin: origin, to: autoOrient ? info.uprightSize : info.size)
                if info.workingBytes == 0 || info.format == .jpeg { pixels = Double(clipped.width) * Double(clipped.height) }
            }
            total += 3 * pixels * channels
        }
        return total >= Double(Int.max / 2) ? Int.max / 2 : Int(total)
    }

    private var isPadded: Bool {
        if case .fit(_, .some) = self { return true }
        return false
    }

    /// What streaming needs, worked out from the header: the rect to sample in stored
    /// (and, for JPEG, shrunk) pixels, the output size in stored orientation, the
    /// shrink factor and the rows and columns to decode.
    struct StreamPlan {
        let sampling: SamplingRect
        let storedTarget: Size
        let target: Size
        let orientation: Orientation
        let factor: Int
        let window: Rect?

        /// The sampling rect relative to the part of the image a decoder delivers.
        func localSampling(in region: DecodedRegion) -> SamplingRect {
            SamplingRect(x: sampling.x - Double(region.rect.x), y: sampling.y - Double(region.rect.y),
                         width: sampling.width, height: sampling.height)
        }
    }

    private func streamPlan(for info: ImageInfo, autoOrient: Bool) throws -> StreamPlan? {
        guard let (rect, target) = try samplingPlan(for: info, autoOrient: autoOrient) else { return nil }
        let orientation = autoOrient ? info.orientation : .up
        let factor = info.format == .jpeg ? ShrinkOnLoad.factor(sampling: rect.size, into: target) : 1
        // libjpeg maps stored x to x/factor exactly, so the plan goes to stored
        // coordinates first and is scaled there.
        let sampling = orientation.storedRect(SamplingRect(rect), stored: info.size).scaled(by: 1 / Double(factor))
        let storedTarget = orientation.swapsAxes ? Size(width: target.height, height: target.width) : target
        let reduced = Size(width: (info.size.width + factor - 1) / factor, height: (info.size.height + factor - 1) / factor)
        let window = info.format == .jpeg ? ShrinkOnLoad.window(of: sampling, into: storedTarget, within: reduced) : nil
        return StreamPlan(sampling: sampling, storedTarget: storedTarget, target: target, orientation: orientation,
                          factor: factor, window: window)
    }

    /// Decodes into a `RowResampler`, calling `onRows` after every chunk of rows.
    private func stream(_ data: [UInt8], _ plan: StreamPlan, decode: DecodeOptions,
                        onRows: ((RowResampler) throws -> Void)?) throws -> (RowResampler, ImageInfo) {
        var resampler: RowResampler? = nil
        let info = try decodeRows(data, plan, decode: decode, begin: { region in
            resampler = RowResampler(source: region.rect.size, channels: region.channels,
                                     rect: plan.localSampling(in: region), target: plan.storedTarget)
        }, rows: { chunk in
            resampler!.add(chunk)
            try onRows?(resampler!)
        })
        return (resampler!, info)
    }

    /// The plan's rows from whichever decoder the data needs.
    /// Returns the decoder's view of the image, warnings included.
    @discardableResult
    private func decodeRows(_ data: [UInt8], _ plan: StreamPlan, decode: DecodeOptions,
                            begin: (DecodedRegion) throws -> Void, rows: (RowChunk) throws -> Void) throws -> ImageInfo {
        if ImageFormat.sniff(data) == .jpeg {
            var options = decode
            options.shrink = plan.factor
            return try JPEGCodec.decodeRows(data, options: options, region: plan.window, begin: begin, rows: rows)
        }
        return try PNGCodec.decodeRows(data, options: decode, begin: begin, rows: rows)
    }

    /// `fit --pad`'s letterbox; every other operation's result is final as it is.
    private func padded(_ image: PixelBuffer) -> PixelBuffer {
        guard case .fit(let box, let pad?) = self else { return image }
        return Padder.pad(image, to: box, background: pad)
    }

    /// A JPEG crop decodes only the rows and columns it keeps (plus `cropSlack`, where
    /// a cropped decode may differ from a whole one), and restart intervals outside
    /// them are never read: a small crop of a large photo costs a fraction of a decode.
    private func cropJPEG(_ data: [UInt8], _ rect: Rect, origin: CoordinateOrigin, info: ImageInfo,
                          decode: DecodeOptions, autoOrient: Bool) throws -> (PixelBuffer, ImageInfo) {
        let orientation = autoOrient ? info.orientation : .up
        let clipped = try AspectFill.clip(rect, origin: origin, to: autoOrient ? info.uprightSize : info.size)
        let s = orientation.storedRect(SamplingRect(clipped), stored: info.size)
        let stored = Rect(x: Int(s.x), y: Int(s.y), width: Int(s.width), height: Int(s.height))
        let k = ShrinkOnLoad.cropSlack
        let x0 = max(0, stored.x - k), y0 = max(0, stored.y - k)
        let window = Rect(x: x0, y: y0, width: min(info.size.width, stored.maxX + k) - x0, height: min(info.size.height, stored.maxY + k) - y0)
        var options = decode
        options.shrink = 1
        let (part, at, decoded) = try JPEGCodec.decode(data, options: options, region: window)
        let kept = try Scaling.crop(part, to: Rect(x: stored.x - at.x, y: stored.y - at.y, width: stored.width, height: stored.height))
        return (Orienter.upright(kept, orientation), decoded)
    }

    private func decodeAndApply(_ data: [UInt8], decode: DecodeOptions, autoOrient: Bool) throws -> (PixelBuffer, ImageInfo) {
        let (decoded, info) = try ImageCodec.decode(data, options: decode)
        let image = autoOrient ? Orienter.upright(decoded, info.orientation) : decoded
        return (try apply(image), info)
    }

    /// The source rect and output size of a scaling operation, from the header alone.
    private func samplingPlan(for info: ImageInfo, autoOrient: Bool) throws -> (Rect, Size)? {
        let size = autoOrient ? info.uprightSize : info.size
        switch self {
        case .fill(let target, let from, let origin, let gravity):
            return (try Scaling.plan(source: size, target: target, from: from, origin: origin, gravity: gravity), target)
        case .fit(let box, _):
            return (Rect(size: size), try AspectFill.fitSize(size, in: box))
        case .crop, .convert:
            return nil
        }
    }
}
