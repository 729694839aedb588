/// The recompress path of one `RenderPlan` (`RenderPlan.Path.recompress`): nothing is
/// decoded; the output's writer takes the input's coded data as it is.
struct RecompressRoute: SoloRoute {
    let plan: RenderPlan
    let info: ImageInfo

    /// Never planned without an output format, so never asked for pixels.
    var decodes: (shrink: Int, window: Rect?)? { nil }

    func image() throws -> (PixelBuffer, ImageInfo) {
        throw EncodeError.incomplete(rows: 0, of: plan.output.height)
    }

    func render(_ output: RenderExecutor.Output) throws -> Result<RenderResult, Error> {
        guard let recompressed = output.recompressed else { return .failure(EncodeError.incomplete(rows: 0, of: plan.output.height)) }
        return Result { RenderResult(bytes: try recompressed(), size: plan.output, info: info) }
    }
}
