/// The whole path of one `RenderPlan` (`RenderPlan.Path.whole`): no resampling, so the
/// image (or, for a decoder that can, the crop's region) is decoded into memory, then
/// cut, turned, padded and its alpha settled by the plan's stages (`Finisher`).
struct WholeRoute: SoloRoute {
    let decoder: any RowDecoder
    let plan: RenderPlan
    let options: DecodeOptions

    var decodes: (shrink: Int, window: Rect?)? { (1, plan.cropRegion?.window) }

    func image() throws -> (PixelBuffer, ImageInfo) {
        var collector = RowCollector()
        let decoded = try decoder.decode(region: plan.cropRegion?.window, shrink: 1, options: options,
                                         begin: { collector.begin($0) }, rows: { collector.add($0) })
        let at = collector.region.rect
        return (try Finisher.apply(plan.stages, to: collector.image, origin: (at.x, at.y)), decoded)
    }

    func render(_ output: RenderExecutor.Output) throws -> Result<RenderResult, Error> {
        let (final, decoded) = try image()
        return Result {
            RenderResult(try output.format.encodeReporting(final, palettise: plan.stages.contains { $0.palettes },
                                                           options: output.encoding(final.channels)), size: final.size, info: decoded)
        }
    }
}
