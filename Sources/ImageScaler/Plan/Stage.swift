/// One step between the decoder and the encoder, as `JobPlan` lists it, in the order the
/// pixels meet them. Steps whose effect depends on the pixels say so (`dropOpaqueAlpha`
/// keeps alpha when any pixel is not opaque; `palettise` falls back to full colour over
/// 256 colours).
package enum Stage: Equatable, Sendable, CustomStringConvertible {
    /// CMYK or YCCK ink to RGB, through the file's profile when there is one.
    case inkToRGB
    /// The file's ICC profile to sRGB (lcms2, perceptual), after which no profile is written.
    case profileToSRGB
    /// The input's profile (or sRGB; CMYK's ink) to an export profile (`--export-profile`),
    /// which the output then carries.
    case profileTo(String, intent: String)
    /// 8-bit samples widened to 16 bits (v x 257) for a 16-bit output.
    case widen
    /// sRGB-encoded samples to linear light at 16 bits (`--linear`), before resampling.
    case toLinear
    /// Linear light back to sRGB encoding after resampling, at `depth` bits.
    case fromLinear(depth: Int)
    /// Blocks of `x` by `y` pixels of `box` averaged into one, colour weighted by alpha
    /// (`BoxReduction`), before the resampler.
    case reduce(x: Int, y: Int, box: Rect)
    /// The resampler: `filter` over `source` (the decoded image's stored pixels) to `target`.
    case resample(filter: ImageOperation.Filter, source: SamplingRect, target: Size)
    /// Cut out of the decoded image, unscaled (`crop`).
    case cut(Rect)
    /// EXIF orientation applied to the result.
    case orient(ImageInfo.Orientation)
    /// Pillow's unsharp mask over the upright result (`--sharpen`).
    case sharpen(UnsharpMask)
    /// Letterboxed to `size` on `colour` (`fit --pad`).
    case pad(Size, RGBColor)
    /// Alpha composited onto the colour (`--flatten`, or an output that has no alpha).
    case flatten(RGBColor)
    /// Alpha dropped when every pixel is opaque.
    case dropOpaqueAlpha
    /// Written as a palette image when it has at most 256 colours.
    case palettise
    /// Written as a palette image of at most `colors` entries, quantised when it has more
    /// (`PaletteQuantizer`), dithered at `dither`.
    case quantise(colors: Int, dither: Double)
    /// Nothing decoded: the input's coded data (a JPEG's DCT coefficients) taken into
    /// the output format as it is (`RenderPlan.Path.recompress`).
    case recompress(ImageFormat)

    /// Whether the stage writes a palette image (`palettise` or `quantise`).
    var palettes: Bool {
        switch self {
        case .palettise, .quantise: return true
        default: return false
        }
    }

    /// The metadata an output keeps when a stage writes it whole: recompressed data
    /// keeps every marker of the input, to give it back whole.
    var keptMetadata: String? {
        if case .recompress = self { return "all of the input's, kept to rebuild it" }
        return nil
    }

    /// The mask of a `sharpen` stage.
    var unsharpMask: UnsharpMask? {
        if case .sharpen(let mask) = self { return mask }
        return nil
    }

    package var description: String {
        switch self {
        case .inkToRGB: return "ink to RGB"
        case .profileToSRGB: return "ICC profile to sRGB"
        case .widen: return "widen 8-bit samples to 16"
        case .profileTo(let name, let intent): return "colour to \(name) (Little CMS, \(intent) intent)"
        case .toLinear: return "sRGB to linear light (16-bit)"
        case .fromLinear(let depth): return "linear light to sRGB (\(depth)-bit)"
        case .reduce(let x, let y, let box): return "box average \(x)x\(y) blocks of \(box)"
        case .resample(let filter, let source, let target):
            return "resample \(filter.rawValue) from \(source) to \(target)"
        case .cut(let rect): return "cut \(rect)"
        case .orient(let o): return "orient \(o.rawValue)"
        case .sharpen(let m): return "unsharp mask radius \(m.radius), \(m.percent)%, threshold \(m.threshold) (Pillow's)"
        case .pad(let size, let colour): return "pad to \(size) on \(colour.hex)"
        case .flatten(let colour): return "flatten onto \(colour.hex)"
        case .dropOpaqueAlpha: return "drop alpha if opaque"
        case .palettise: return "palette if at most 256 colours"
        case .quantise(let n, let d):
            return "palette of at most \(n) colours, quantised if more (dither \(d == d.rounded() ? String(Int(d)) : String(d)))"
        case .recompress(let format): return "recompress the \(format.displayName)'s coded data, nothing decoded"
        }
    }
}
