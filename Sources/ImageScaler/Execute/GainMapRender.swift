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

    /// Why outputs of `formats` from `plans` keep no map, one line for them all.
    static func dropped(_ formats: [ImageFormat], plans: [RenderPlan]) -> [String] {
        var lacking: [ImageFormat] = []
        for f in formats where !f.keepsGainMaps && !lacking.contains(f) { lacking.append(f) }
        let keeping = ImageFormat.names(ImageFormat.writable.filter(\.keepsGainMaps), or: true)
        var why = lacking.isEmpty ? [] : ["gain map dropped: \(ImageFormat.names(lacking)) hold\(lacking.count == 1 ? "s" : "") none here (\(keeping) keeps it)"]
        if zip(formats, plans).contains(where: { $0.keepsGainMaps && $1.output != $1.target }) {
            why.append("gain map dropped: a letterboxed output has bars the map says nothing of")
        }
        return why
    }

    /// Why the input's map was dropped when its header was read (an index past the file's
    /// end, a map larger than its picture), said for every output while maps are kept.
    static func inputNotices(_ info: ImageInfo, keep: Bool) -> [String] {
        keep ? [info.gainMapDropped].compactMap { $0 } : []
    }

    /// The size the map of an output of `plan` will have, from the header alone (what
    /// `plan` prints): the map's stored size turned as the picture is, through the same
    /// geometry `attach` resizes the decoded map by.
    static func plannedSize(of map: GainMap, info: ImageInfo, autoOrient: Bool, plan: RenderPlan) -> Size {
        let upright = autoOrient && info.orientation.swapsAxes ? Size(width: map.size.height, height: map.size.width) : map.size
        return GainMapGeometry(shown: plan.shown, target: plan.target, base: autoOrient ? info.uprightSize : info.size, map: upright).size
    }

    /// Whether an output of `format` from `plan` keeps the map.
    static func keeps(_ format: ImageFormat, plan: RenderPlan) -> Bool { format.keepsGainMaps && plan.output == plan.target }

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
