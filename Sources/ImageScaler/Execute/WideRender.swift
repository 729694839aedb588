/// The wide path of one `RenderPlan` (`RenderPlan.Path.wide`): the image decoded whole
/// at 16 bits - by the decoder where its file has more than 8, else its 8-bit decode
/// widened exactly - then resampled (`WideResampler`), turned upright, cut (`crop`) and
/// letterboxed (`fit --pad`) at 16 bits. Runs on the calling thread.
struct WideRender {
    let decoder: any RowDecoder
    let plan: RenderPlan
    let options: DecodeOptions

    /// The result, upright, straight alpha, and the header as the decode saw it.
    func image() throws -> (WideImage, ImageInfo) {
        var (image, info): (WideImage, ImageInfo)
        if let decoded = try decoder.decodeWide(options: options) {
            (image, info) = decoded
        } else {
            let (narrow, _, header) = try RenderExecutor.collect(decoder, region: nil, shrink: 1, options: options, split: false)
            (image, info) = (WideImage(widening: narrow), header)
        }
        if let r = plan.resample {
            image = WideResampler.resample(image, from: r.sampling, to: r.storedTarget, filter: r.filter)
        }
        image = image.upright(plan.orientation)
        switch plan.operation {
        case .crop(let rect, let origin):
            image = image.cropped(to: try AspectFill.clip(rect, origin: origin, to: image.size))
        case .fit(let box, let pad?):
            image = image.padded(to: box, on: pad)
        default:
            break
        }
        return (image, info)
    }
}
