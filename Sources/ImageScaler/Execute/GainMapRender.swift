/// An input's gain map for its outputs: decoded once (on first use, at its full size:
/// it is small, and a map shrunk on load would not be the map a viewer applies), turned
/// upright by the base's orientation, then resampled through each output's geometry
/// (`GainMapGeometry`) with the output's filter, and handed to the output format's
/// writer. Formats without a container for a map, and letterboxed outputs, drop it.
final class GainMapRender {
    private let map: GainMap
    private let orientation: Orientation
    private let base: Size
    private let decode: DecodeOptions
    private let filter: ResampleFilter
    private var upright: PixelBuffer? = nil

    init(_ map: GainMap, info: ImageInfo, autoOrient: Bool, decode: DecodeOptions, filter: ResampleFilter) {
        self.map = map
        orientation = autoOrient ? info.orientation : .up
        base = autoOrient ? info.uprightSize : info.size
        self.decode = decode
        self.filter = filter
    }

    /// Why an output of `format` from `plan` keeps no map, or nil when it keeps one.
    static func dropped(_ format: ImageFormat, plan: RenderPlan) -> String? {
        if !format.keepsGainMaps {
            return "gain map dropped: \(format.displayName) holds none here (\(ImageFormat.names(ImageFormat.writable.filter(\.keepsGainMaps), or: true)) keeps it)"
        }
        if plan.output != plan.target { return "gain map dropped: a letterboxed output has bars the map says nothing of" }
        return nil
    }

    /// `encoded`, the output of `plan` in `format`, with the map resized to it.
    func attach(to encoded: [UInt8], format: ImageFormat, plan: RenderPlan) throws -> [UInt8] {
        guard let write = format.codec.writer?.gainMap else { return encoded }
        let whole = try uprightMap()
        let g = GainMapGeometry(shown: plan.shown, target: plan.target, base: base, map: whole.size)
        let resized = g.sampling == SamplingRect(Rect(size: whole.size)) && g.size == whole.size
            ? whole : Resampler.resample(whole, from: g.sampling, to: g.size, filter: filter)
        return try write(encoded, resized, map)
    }

    private func uprightMap() throws -> PixelBuffer {
        if let upright { return upright }
        // Its own values, untouched by any profile: a viewer reads them as they are coded.
        var options = DecodeOptions()
        options.maxPixels = decode.maxPixels
        options.maxMemory = decode.maxMemory
        options.failOn = decode.failOn
        options.cancellation = decode.cancellation
        let (stored, _) = try ImageOperation.convert.perform(on: map.file, decode: options, autoOrient: false)
        let turned = Orienter.upright(stored, orientation)
        upright = turned
        return turned
    }
}
