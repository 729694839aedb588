/// One geometric operation on an upright image, and the whole path from file bytes to
/// its result: decode (JPEG shrink-on-load when it cannot hurt), orient, then apply.
/// All geometry is in the upright image's coordinates.
public enum ImageOperation: Sendable {
    case fill(Size, from: Rect?, origin: CoordinateOrigin, gravity: Gravity)
    case crop(Rect, origin: CoordinateOrigin)
    case fit(Size)
    case convert

    /// The size the operation asks for, when it has one (`{w}`/`{h}` in output names).
    public var requestedSize: Size? {
        switch self {
        case .fill(let size, _, _, _), .fit(let size): return size
        case .crop(let rect, _): return rect.size
        case .convert: return nil
        }
    }

    /// Applies the operation to an already upright image.
    public func apply(_ image: PixelBuffer) throws -> PixelBuffer {
        switch self {
        case .fill(let size, let from, let origin, let gravity):
            return try ImageScaler.scaleToFill(image, in: size, from: from, origin: origin, gravity: gravity)
        case .crop(let rect, let origin):
            return try ImageScaler.crop(image, to: rect, origin: origin)
        case .fit(let size):
            return try ImageScaler.scaleToFit(image, in: size)
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
        guard let (rect, target) = try samplingPlan(for: info, autoOrient: autoOrient) else {
            return try decodeAndApply(data, decode: decode, autoOrient: autoOrient)
        }
        let orientation = autoOrient ? info.orientation : .up
        let factor = info.format == .jpeg ? ShrinkOnLoad.factor(sampling: rect.size, into: target) : 1
        // libjpeg maps stored x to x/factor exactly, so the plan goes to stored
        // coordinates first and is scaled there.
        let sampling = orientation.storedRect(SamplingRect(rect), stored: info.size).scaled(by: 1 / Double(factor))
        let storedTarget = orientation.swapsAxes ? Size(width: target.height, height: target.width) : target
        var resampler: RowResampler? = nil
        let begin = { (region: DecodedRegion) in
            let local = SamplingRect(x: sampling.x - Double(region.rect.x), y: sampling.y - Double(region.rect.y),
                                     width: sampling.width, height: sampling.height)
            resampler = RowResampler(source: region.rect.size, channels: region.channels, rect: local, target: storedTarget)
        }
        switch info.format {
        case .jpeg:
            let reduced = Size(width: (info.size.width + factor - 1) / factor, height: (info.size.height + factor - 1) / factor)
            var options = decode
            options.shrink = factor
            _ = try JPEGCodec.decodeRows(data, options: options, region: ShrinkOnLoad.window(of: sampling, into: storedTarget, within: reduced),
                                         begin: begin, rows: { resampler!.add($0) })
        case .png:
            _ = try PNGCodec.decodeRows(data, options: decode, begin: begin, rows: { resampler!.add($0) })
        }
        return (Orienter.upright(resampler!.finish(), orientation), info)
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
            return (try ImageScaler.plan(source: size, target: target, from: from, origin: origin, gravity: gravity), target)
        case .fit(let box):
            return (Rect(size: size), try AspectFill.fitSize(size, in: box))
        case .crop, .convert:
            return nil
        }
    }
}
