/// The wide path of one `RenderPlan` (`RenderPlan.Path.wide`): the image decoded whole
/// at 16 bits - by the decoder where its file has more than 8, else its 8-bit decode
/// widened exactly - then resampled (`WideResampler`) and finished by the plan's stages
/// (`Finisher`) at 16 bits. Runs on the calling thread.
struct WideRender {
    let decoder: any RowDecoder
    let plan: RenderPlan
    let options: DecodeOptions

    /// The finished result, straight alpha, and the header as the decode saw it.
    func image() throws -> (WideImage, ImageInfo) {
        var (image, info): (WideImage, ImageInfo)
        let shrink = plan.resample?.shrink ?? 1
        if shrink == 1, let decoded = try decoder.decodeWide(options: options) {
            (image, info) = decoded
        } else {
            let (narrow, _, header) = try RenderExecutor.collect(decoder, region: nil, shrink: shrink, options: options, split: false)
            (image, info) = (WideImage(widening: narrow), header)
        }
        let linear = plan.stages.contains(.toLinear)
        if linear { image = LinearLight.map(image, LinearLight.toLinear) }
        if let r = plan.resample {
            image = WideResampler.resample(image, from: r.sampling, to: r.storedTarget, filter: r.filter)
        }
        if linear { image = LinearLight.map(image, LinearLight.toSRGB) }
        image = try Finisher.apply(plan.stages, to: image)
        return (image, info)
    }
}
