/// An output made on its own, apart from the decodes outputs share (`DecodePass`): the
/// image decoded whole and cut (`WholeRoute`), the wide path at 16 bits (`WideRender`),
/// or the input's coded data recompressed (`RecompressRoute`). Its plan's path names the
/// route, and nothing else in the executor asks which one it is.
protocol SoloRoute {
    /// The finished pixels, 8 bits, and the header as the decode saw it.
    func image() throws -> (PixelBuffer, ImageInfo)
    /// The output encoded as `output` says; a decode's failure is thrown (the input's).
    func render(_ output: RenderExecutor.Output) throws -> Result<RenderResult, Error>
    /// The decode it runs, on one thread: at 1/`shrink`, over `window` (nil: whole); nil
    /// when it decodes nothing.
    var decodes: (shrink: Int, window: Rect?)? { get }
}

extension RenderPlan.Path {
    /// The route that makes `plan`'s output on its own, or nil when it shares a decode.
    func soloRoute(_ plan: RenderPlan, decoder: any RowDecoder, options: DecodeOptions) -> (any SoloRoute)? {
        switch self {
        case .stream, .held: return nil
        case .whole: return WholeRoute(decoder: decoder, plan: plan, options: options)
        case .wide: return WideRender(decoder: decoder, plan: plan, options: options)
        case .recompress: return RecompressRoute(plan: plan, info: decoder.info)
        }
    }
}
