/// The wide path of one `RenderPlan` (`RenderPlan.Path.wide`): the image decoded whole
/// at 16 bits - by the decoder where its file has more than 8, else its 8-bit decode
/// widened exactly - then resampled (`WideResampler`) and finished by the plan's stages
/// (`Finisher`) at 16 bits. Linear light with a box reduction takes an 8-bit decode's
/// rows to linear light and into the reduction as they arrive, so neither the 8-bit nor
/// the 16-bit image is held whole: the same samples as widening, mapping and reducing it
/// whole. Runs on the calling thread.
struct WideRender: SoloRoute {
    let decoder: any RowDecoder
    let plan: RenderPlan
    let options: DecodeOptions

    /// In linear light it may decode at a reduced scale.
    var decodes: (shrink: Int, window: Rect?)? { (plan.resample?.shrink ?? 1, plan.cropRegion?.window) }

    /// The result narrowed to 8 bits, as pixels are wanted.
    func image() throws -> (PixelBuffer, ImageInfo) {
        let (final, decoded) = try wideImage()
        return (final.narrowed(), decoded)
    }

    /// The output at the plan's depth; linear light into 8 bits is resampled wide and
    /// written narrow.
    func render(_ output: RenderExecutor.Output) throws -> Result<RenderResult, Error> {
        let (final, decoded) = try wideImage()
        return Result {
            guard plan.depth == 8 else {
                return RenderResult(bytes: try output.format.encode(final, options: output.encoding(final.channels)), size: final.size,
                                    info: decoded)
            }
            let narrow = final.narrowed()
            let encoded = try output.format.encodeReporting(narrow, palettise: plan.stages.contains { $0.palettes },
                                                            options: output.encoding(narrow.channels))
            return RenderResult(encoded, size: narrow.size, info: decoded)
        }
    }

    /// The finished result, straight alpha, and the header as the decode saw it.
    func wideImage() throws -> (WideImage, ImageInfo) {
        var (image, info): (WideImage, ImageInfo)
        let shrink = plan.resample?.shrink ?? 1
        let linear = plan.stages.contains(.toLinear)
        var reduced = false
        if shrink == 1, let decoded = try decoder.decodeWide(options: options) {
            (image, info) = decoded
        } else if linear, let r = plan.resample, let b = r.reduction {
            (image, info) = try reduceInLinearLight(b, shrink: shrink)
            reduced = true
        } else {
            let (narrow, _, header) = try RenderExecutor.collect(decoder, region: nil, shrink: shrink, options: options, split: false)
            (image, info) = (WideImage(widening: narrow), header)
        }
        if linear && !reduced { image = LinearLight.map(image, LinearLight.toLinear) }
        if let r = plan.resample {
            if let b = r.reduction, !reduced { image = RowReducer.reduce(image, b) }
            image = WideResampler.resample(image, from: r.reducedSampling, to: r.storedTarget, filter: r.filter)
        }
        if linear { image = LinearLight.map(image, LinearLight.toSRGB) }
        image = try Finisher.apply(plan.stages, to: image)
        return (image, info)
    }

    /// The 8-bit decode's rows, each widened and taken to linear light by one table
    /// lookup per sample (alpha only widened), into `reduction`.
    private func reduceInLinearLight(_ reduction: BoxReduction, shrink: Int) throws -> (WideImage, ImageInfo) {
        var reducer: RowReducer?
        var line: [UInt16] = []
        var width = 0
        let colour = LinearLight.fromEightBits
        let info = try decoder.decode(region: nil, shrink: shrink, options: options, begin: { region in
            reducer = RowReducer(reduction, channels: region.channels)
            width = region.rect.width
            line = [UInt16](repeating: 0, count: width * region.channels)
        }, rows: { chunk in
            guard let reducer else { return }
            let ch = reducer.channels, alpha = ch == 2 || ch == 4
            line.withUnsafeMutableBufferPointer { l in
                colour.withUnsafeBufferPointer { t in
                    for i in 0..<chunk.count {
                        let row = chunk.pixels + i * chunk.bytesPerRow
                        for p in stride(from: 0, to: width * ch, by: ch) {
                            for c in 0..<ch { l[p + c] = alpha && c == ch - 1 ? UInt16(row[p + c]) &* 257 : t[Int(row[p + c])] }
                        }
                        reducer.add(row: chunk.firstRow + i, l.baseAddress!)
                    }
                }
            }
        })
        guard let reducer else { throw DecodeError.empty }
        return (reducer.finish(), info)
    }
}
