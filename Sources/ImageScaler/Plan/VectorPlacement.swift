/// How one output of a drawn picture (SVG) is made: the size the whole picture is drawn
/// at, and the operation that finishes the drawn pixels, chosen so that nothing is
/// resampled. A fill is drawn at the scale that makes its region cover the target and
/// then cut to it in whole pixels; a fit is drawn at the fitted size (then padded);
/// a crop and a convert are drawn at the picture's own size. Drawn pictures have no
/// orientation, so every rect is in the picture's own top-left coordinates. Pure.
struct VectorPlacement {
    /// The size the whole picture is drawn at (`RowDecoder.drawn(at:)`).
    let drawSize: Size
    /// What is done to the drawn pixels.
    let operation: ImageOperation

    /// `operation` on a picture of `intrinsic` size. With `upscale` false, an output the
    /// picture would have to be drawn larger than its own size for is made from the
    /// picture at its own size, as a stored image that small would be.
    init(_ operation: ImageOperation, intrinsic: Size, upscale: Bool) throws {
        switch operation {
        case .convert, .crop:
            self.init(drawSize: intrinsic, operation: operation)
        case .fit(let box, let pad, let from?):
            // A fit of a part (what --trim kept): the part drawn as a fill of its fitted
            // size would draw it, then fitted (nothing left to resample) and padded.
            let part = try AspectFill.clip(from, origin: .topLeft, to: intrinsic)
            var fitted = try AspectFill.fitSize(part.size, in: box)
            if !upscale && (fitted.width > part.width || fitted.height > part.height) { fitted = part.size }
            let placed = try VectorPlacement(.fill(fitted, from: part), intrinsic: intrinsic, upscale: upscale)
            let drawn: Rect
            switch placed.operation {
            case .crop(let cut, _): drawn = cut
            case .fill(_, let region?, _, _, _): drawn = region
            default: drawn = Rect(size: placed.drawSize)
            }
            self.init(drawSize: placed.drawSize, operation: .fit(box, pad: pad, from: drawn))
        case .fit(let box, let pad, nil):
            var fitted = try AspectFill.fitSize(intrinsic, in: box)
            if !upscale && fitted.width > intrinsic.width { fitted = intrinsic }
            // The fitted size fits its own box exactly, so the fit resamples nothing.
            self.init(drawSize: fitted, operation: pad == nil ? .convert : .fit(box, pad: pad))
        case .fill(let target, let from, let origin, let gravity, let focus):
            guard AspectFill.valid(target) else { throw GeometryError.badTarget(target) }
            let region = try from.map { try AspectFill.clip($0, origin: origin, to: intrinsic) } ?? Rect(size: intrinsic)
            // The scale num/den at which the region covers the target, one side exact.
            let (num, den) = region.width * target.height > target.width * region.height
                ? (target.height, region.height) : (target.width, region.width)
            if !upscale && num > den {
                self.init(drawSize: intrinsic, operation: operation)
                return
            }
            func scaled(_ v: Int) -> Int { (2 * v * num + den) / (2 * den) }
            let draw = Size(width: max(1, scaled(intrinsic.width)), height: max(1, scaled(intrinsic.height)))
            // The region drawn, at least the target's size and inside the drawing.
            let w = min(draw.width, max(target.width, scaled(region.width)))
            let h = min(draw.height, max(target.height, scaled(region.height)))
            let x = min(AspectFill.floorDiv(region.x * num, den), draw.width - w)
            let y = min(AspectFill.floorDiv(region.y * num, den), draw.height - h)
            if let focus {
                // Centred on the point, as drawn: the fill runs on the drawn pixels.
                self.init(drawSize: draw, operation: .fill(target, from: Rect(x: x, y: y, width: w, height: h), origin: .topLeft,
                                                           focus: focus.scaled(num, den)))
                return
            }
            if gravity == .entropy {
                // The busiest window needs the drawn pixels: the fill runs on them, at
                // a scale of 1 on one side.
                self.init(drawSize: draw, operation: .fill(target, from: Rect(x: x, y: y, width: w, height: h),
                                                           origin: .topLeft, gravity: .entropy))
                return
            }
            let cut = Rect(x: x + (w - target.width) * gravity.horizontalHalves / 2,
                           y: y + (h - target.height) * gravity.verticalHalves / 2,
                           width: target.width, height: target.height)
            self.init(drawSize: draw, operation: .crop(cut, origin: .topLeft))
        }
    }

    /// For a drawn picture: the decoder of it drawn where `operation` needs it, and the
    /// operation that finishes those pixels; stored pixels come back as they are.
    static func drawing(_ operation: ImageOperation, from decoder: any RowDecoder,
                        upscale: Bool) throws -> (decoder: any RowDecoder, operation: ImageOperation) {
        guard decoder.capabilities.drawsAtAnySize else { return (decoder, operation) }
        let place = try VectorPlacement(operation, intrinsic: decoder.info.size, upscale: upscale)
        guard let drawn = try decoder.drawn(at: place.drawSize) else { throw DecodeError.unknownFormat }
        return (drawn, place.operation)
    }

    /// The decoders `outputs` are made from, each with the outputs it makes: stored
    /// pixels make them all from `decoder`; a drawn picture is drawn once per output, at
    /// the size that output needs, so the pixel limit and the budget apply to each drawing.
    static func sources(_ outputs: [RenderOutput], from decoder: any RowDecoder,
                        upscale: Bool) throws -> [(decoder: any RowDecoder, outputs: [RenderOutput])] {
        guard decoder.capabilities.drawsAtAnySize else { return [(decoder, outputs)] }
        return try outputs.map { output in
            let (drawn, operation) = try drawing(output.operation, from: decoder, upscale: upscale)
            return (drawn, [RenderOutput(operation, as: output.format, preview: output.preview)])
        }
    }

    /// The size `decoder` draws its picture at, or nil for stored pixels.
    static func drawnSize(_ decoder: any RowDecoder) -> Size? {
        decoder.capabilities.drawsAtAnySize ? decoder.info.size : nil
    }

    private init(drawSize: Size, operation: ImageOperation) {
        self.drawSize = drawSize
        self.operation = operation
    }
}
