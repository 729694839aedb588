/// Everything a render can be told, in one value grouped by what a caller means: what an
/// input may cost, how it is read, how it is resized, its colour, how it is encoded,
/// its metadata and the threads. Every default suits untrusted input and web
/// thumbnails: sharp's pixel limit, a 512 MiB budget, strict damage checks, upright,
/// bilinear, the ICC profile carried, JPEG 85, WebP 80, AVIF 50, PNG level 6, 8 bits,
/// metadata stripped, one thread.
public struct RenderOptions: Sendable {
    /// What one input may cost before it is refused, checked from its header before any
    /// pixel memory is allocated.
    public struct Limits: Sendable {
        /// Pixels in the input and in each output; 0 removes the limit (sharp's 0x3FFF²).
        public var maxPixels = 268_402_689
        /// The bytes one input's render may hold at its peak; `Int.max` removes the budget.
        public var maxMemory = 512 << 20
        /// Frames an animation read whole (`Input.animated`) may have.
        public var maxFrames = 1000
        /// How much damage an input may have and still give an output.
        public var failOn: RenderOptions.FailOn = .warning
        public init() {}
    }

    /// How the input is read.
    public struct Input: Sendable {
        /// Apply the EXIF orientation before any geometry (all geometry is upright).
        public var autoOrient = true
        /// Dots per inch for an SVG sized in physical units or by its viewBox alone.
        public var density: Double = 72
        /// Which page of a multi-page file (a TIFF's) is read, from 0.
        public var page = 0
        /// Every frame of an animated GIF or WebP into an animated output; otherwise the
        /// first frame is the image.
        public var animated = false
        public init() {}
    }

    /// How the pixels are resampled.
    public struct Resize: Sendable {
        /// Pillow's filters, byte for byte.
        public var filter: ImageOperation.Filter = .bilinear
        /// Enlarge images smaller than the operation's size; when false `fit` keeps a
        /// smaller image's size and `fill` crops it unscaled (vipsthumbnail's `>`).
        public var upscale = true
        /// Pillow's unsharp mask after resampling (`Sharpen.mild` is `--sharpen` alone);
        /// nil, the default, keeps the Pillow-exact resize.
        public var sharpen: Sharpen? = nil
        /// Resample in linear light: sRGB's curve undone before and redone after, at 16
        /// bits, so averages of light are light's averages (a black-and-white checker
        /// shrinks to 188, not 128). Decodes at full size (no shrink-on-load), as libvips.
        public var linear = false
        public init() {}
    }

    /// An output colour space: one Little CMS makes, or an ICC profile's bytes.
    public enum ExportProfile: Sendable, Equatable {
        case srgb, p3, adobeRGB
        case icc([UInt8])
    }

    /// ICC rendering intents.
    public enum Intent: String, Sendable, CaseIterable {
        case perceptual, relative, saturation, absolute
    }

    /// Pillow's `ImageFilter.UnsharpMask(radius, percent, threshold)`, byte for byte.
    public struct Sharpen: Sendable, Equatable {
        public var radius: Double
        public var percent: Int
        public var threshold: Int
        public init(radius: Double, percent: Int, threshold: Int) {
            self.radius = radius
            self.percent = percent
            self.threshold = threshold
        }
        /// A light touch for downscaled photos (radius 0.5, 60%, threshold 2).
        public static let mild = Sharpen(radius: 0.5, percent: 60, threshold: 2)
        package var mask: UnsharpMask { UnsharpMask(radius: Float(radius), percent: percent, threshold: threshold) }
    }

    /// Colour and alpha.
    public struct Color: Sendable {
        /// Convert from the input's ICC profile to sRGB (Little CMS, perceptual) and write
        /// no profile.
        public var toSRGB = false
        /// Convert from the input's ICC profile (or sRGB, when it has none) to this
        /// profile and embed it in RGB outputs; gray images keep their gray.
        public var exportProfile: ExportProfile? = nil
        /// The rendering intent of `exportProfile`'s conversion.
        public var intent: Intent = .perceptual
        /// Embed the input's ICC profile, unchanged, when it fits the output.
        public var carryProfile = true
        /// Behind alpha in formats without it, under `flatten`, and a padded letterbox's
        /// default.
        public var background: RGBColor = .white
        /// Composite alpha onto `background` and write an opaque image, in any format.
        public var flatten = false
        public init() {}
    }

    /// How the result is encoded; each setting applies to the formats that have it.
    public struct Encoding: Sendable {
        /// Quality 1-100, for the lossy formats; nil is each format's own default
        /// (`imgscale help` lists them from the codecs).
        public var quality: Int? = nil
        /// Lossless, in the formats that have it.
        public var lossless = false
        /// More CPU for smaller files, within each format's own range; nil is its default.
        public var effort: Int? = nil
        /// PNG zlib level 0-9.
        public var compression = 6
        /// Progressive JPEG.
        public var progressive = false
        /// JPEG: smaller files at the same quality (trellis quantisation, scans chosen by size).
        public var optimize = false
        public var subsampling: RenderOptions.ChromaSubsampling = .s420
        /// PNG palette images for results of at most 256 colours.
        public var palette = false
        public var depth: RenderOptions.Depth = .eight
        /// The lowest quality whose file scores at least this SSIM (above 0, at most 1)
        /// against the resized image, searched for each output (`RenderResult.quality`
        /// and `.ssim` say what was found); nil: `quality` as given. While searching,
        /// `quality` and `lossless` are not used.
        public var targetSSIM: Double? = nil
        /// The highest quality whose file is at most this many bytes, searched for each
        /// output; an output that even quality 1 leaves larger fails
        /// (`EncodeError.overBudget`).
        public var maxBytes: Int? = nil
        /// A palette PNG of at most this many colours (2-256), quantised when the result
        /// has more, as pngquant does; nil: full colour.
        public var colors: Int? = nil
        /// How `colors` dithers: 0 (not at all) to 1 (Floyd-Steinberg at full strength).
        public var dither = 1.0
        public init() {}
    }

    public var limits = Limits()
    public var input = Input()
    public var resize = Resize()
    public var color = Color()
    public var encoding = Encoding()
    /// Copy EXIF (orientation reset to 1, thumbnail dropped) and XMP into the output.
    public var keepMetadata = false
    /// Threads one image may use: with 2 or more, the decode runs ahead on its own thread
    /// (helped by a lent one where the decoder can use it) while each output resamples and
    /// encodes on another. The bytes are the same at any count.
    public var threads = 1

    public init() {}

    /// The decoder's share.
    package var decode: DecodeOptions {
        var d = DecodeOptions(maxPixels: limits.maxPixels)
        d.maxMemory = limits.maxMemory
        d.failOn = limits.failOn
        d.toSRGB = color.toSRGB
        d.export = color.exportProfile.map { ColorTarget($0, intent: color.intent) }
        d.density = input.density
        d.page = input.page
        d.maxFrames = limits.maxFrames
        return d
    }

    /// The encoders' share.
    package var encode: EncodeOptions {
        var e = EncodeOptions()
        e.quality = encoding.quality
        e.lossless = encoding.lossless
        e.effort = encoding.effort
        e.compression = encoding.compression
        e.progressive = encoding.progressive
        e.optimize = encoding.optimize
        e.subsampling = encoding.subsampling
        e.palette = encoding.palette
        e.depth = encoding.depth
        // Out-of-range values are brought into range, as the codecs do with quality.
        e.targetSSIM = encoding.targetSSIM.map { min(1, max(Double.leastNonzeroMagnitude, $0)) }
        e.maxBytes = encoding.maxBytes.map { max(1, $0) }
        if e.targetSSIM != nil || e.maxBytes != nil {
            e.quality = nil
            e.lossless = false
        }
        if let n = encoding.colors {
            e.colors = min(256, max(2, n))
            e.palette = true
        }
        e.dither = min(1, max(0, encoding.dither))
        e.background = color.background
        e.flatten = color.flatten
        return e
    }

    /// The render's share.
    package var settings: RenderSettings {
        var s = RenderSettings()
        s.autoOrient = input.autoOrient
        s.animated = input.animated
        s.carryProfile = color.carryProfile
        s.keepMetadata = keepMetadata
        s.upscale = resize.upscale
        s.filter = resize.filter
        s.sharpen = resize.sharpen?.mask
        s.linear = resize.linear
        s.threads = threads
        return s
    }
}
