/// Runs a plan's finishing stages on a result: the cut, turn, sharpening, letterbox and alpha steps
/// of `RenderPlan.stages`, in their order. The other stages run where the pixels are:
/// colour in the decoder's stage, widening and resampling before this, the palette in
/// the encoder. `origin` is where the image sits in the stored image (a decoded
/// region's corner), for a cut given in stored pixels.
enum Finisher {
    static func apply<Image: FinishingImage>(_ stages: [Stage], to image: Image, origin: (x: Int, y: Int) = (0, 0)) throws -> Image {
        var image = image, origin = origin
        for stage in stages {
            switch stage {
            case .cut(let rect):
                let local = Rect(x: rect.x - origin.x, y: rect.y - origin.y, width: rect.width, height: rect.height)
                guard local.x >= 0, local.y >= 0, local.maxX <= image.size.width, local.maxY <= image.size.height else {
                    throw GeometryError.emptyIntersection(local, .topLeft, image.size)
                }
                image = image.cropped(to: local)
                origin = (0, 0)
            case .orient(let o): image = image.upright(o)
            case .sharpen(let mask): image = image.sharpened(mask)
            case .pad(let box, let colour): image = image.padded(to: box, on: colour)
            case .flatten(let colour): image = image.flattened(onto: colour)
            case .dropOpaqueAlpha: image = image.droppingOpaqueAlpha()
            case .inkToRGB, .profileToSRGB, .profileTo, .widen, .toLinear, .fromLinear, .reduce, .resample, .palettise, .quantise, .recompress: break
            }
        }
        return image
    }
}
