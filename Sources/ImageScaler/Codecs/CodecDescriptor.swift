/// Everything imgscale knows about one format, in one value: how its files are
/// recognised and named, the decoder that reads it, and where it is written, the encoder,
/// the options it takes and the metadata it can hold. Each format's folder defines its
/// descriptor; `Registry` lists them. No code outside a codec's folder names a format:
/// it asks the descriptor.
struct CodecDescriptor: Sendable {
    let format: ImageFormat
    /// How messages name it ("WebP").
    let displayName: String
    /// Lower-case extensions that name it; the first is the one written.
    let extensions: [String]
    /// Whether the first bytes of a file (at least 16, up to 64) are this format's
    /// signature. Signatures are tried in the registry's order.
    let matches: @Sendable (ArraySlice<UInt8>) -> Bool
    /// The decoder for a file with this signature (its header read, no pixels); the
    /// options say what a header depends on (a vector format's density).
    let decoder: @Sendable ([UInt8], DecodeOptions) throws -> any RowDecoder
    /// The longest side the format can store.
    let maxSide: Int
    /// What it calls a file stored in passes (`ImageInfo.interlaced`).
    let incrementalName: String
    /// Whether an EXIF orientation in the file turns the image; formats whose turns are
    /// their own boxes (HEIF's `irot`/`imir`) apply them in the decoder instead.
    let appliesExifOrientation: Bool
    /// The libraries behind it and their versions, for bug reports.
    let libraries: @Sendable () -> [(name: String, version: String)]
    /// How it is written; nil for a format imgscale only reads.
    let writer: Writer?
    /// Threads its decoder library starts of its own, which the executor does not count.
    var libraryThreads: String? = nil
    /// What it calls the images of a file that `DecodeOptions.page` chooses among
    /// ("page"), when its decoder honours it; nil: one image a file is read.
    var pageName: String? = nil
    /// Other names `--format` takes for it ("jpg").
    var aliases: [String] = []
    /// What `--verbose` should say once of how this process reads the format, when not
    /// as usual (its own decoders found wrong for the library at hand).
    var notes: @Sendable () -> [String] = { [] }
    /// Whether its decoder gives an animation's frames (`RowDecoder.frames`), which
    /// `--animated` keeps: `--help` lists these.
    var readsAnimations = false
    /// Nanoseconds of one core its decoder takes per compressed byte (entropy decoding,
    /// inflating) and per pixel made at the scale decoded, on the machine `scripts/bench
    /// --job balance` measured: only to deal inputs to shards by cost (`--balance cost`).
    var decodeWork = DecodeWork(perByte: 4, perPixel: 8)

    struct DecodeWork: Sendable {
        let perByte: Int
        let perPixel: Int
    }

    /// The encoding side of a format.
    struct Writer: Sendable {
        /// The encoder options that change its output; the others do nothing for it.
        let options: Set<EncoderOption>
        /// Of those that take a number (quality, effort, compression): the values it
        /// takes and its default, which `--help` and the man page list from here.
        var numbers: [EncoderOption: Number] = [:]
        /// Whether it stores alpha; where not, the encoder composites alpha onto the
        /// background itself.
        var holdsAlpha = true
        /// Encoding time per pixel, a baseline JPEG at quality 85 being 1, at the default
        /// settings (1920x1440 from a photo): only to start the costliest encodes first.
        var encodeWork = 1
        /// A row encoder for `width` x `height` rows of `channels` channels.
        let rows: @Sendable (_ width: Int, _ height: Int, _ channels: Int, EncodeOptions) throws -> any RowEncoder
        /// The metadata of the options it can hold for `channels` channels, and one
        /// warning per block left out.
        let carriable: @Sendable (EncodeOptions, _ channels: Int) -> (EncodeOptions, [String])
        /// The settings the encoder will use for these options, defaults resolved, as
        /// `plan` prints them ("quality 85", "4:2:0").
        let settings: @Sendable (EncodeOptions) -> [String]
        /// An encoder of animations of frames of `size` played `loopCount` times (0:
        /// forever), for a format that holds them; nil: stills only.
        var animation: (@Sendable (_ size: Size, EncodeOptions, _ loopCount: Int) throws -> any AnimationEncoder)? = nil
        /// For a container of sizes (ICO): how several outputs become one file.
        var container: Container? = nil
        /// A whole 16-bit image, for a format that holds 16-bit samples; nil: 8 bits only.
        var wide: (@Sendable (WideImage, EncodeOptions) throws -> [UInt8])? = nil
        /// For an input of a format whose coded data it can take as it is, with these
        /// options: the encoder of that data (JPEG XL from a JPEG, losslessly); nil when
        /// the pixels must be decoded and encoded.
        var recompression: (@Sendable (ImageFormat, EncodeOptions) -> (@Sendable ([UInt8]) throws -> [UInt8])?)? = nil
        /// Bytes that recompression with these options holds for a picture of this size,
        /// beyond the file's.
        var recompressionBytes: @Sendable (EncodeOptions, Size) -> Int = { _, _ in 0 }
        /// The encoded `base` with a gain map of the input (`GainMap`), resized to the
        /// output, in the format's container for HDR photos; nil: gain maps are dropped.
        var gainMap: (@Sendable (_ base: [UInt8], _ map: PixelBuffer, GainMap) throws -> [UInt8])? = nil
        /// A palette image of `size`: RGBA entries and one index byte a pixel, for a format
        /// that stores palettes (the plan's palettise stage); nil: full colour only.
        var palette: (@Sendable (_ size: Size, _ entries: [UInt8], _ indices: [UInt8], EncodeOptions) throws -> [UInt8])? = nil
        /// Bytes the encoder holds from its first row to its last for an image of this
        /// size and these options (an encoder of whole pictures gathers the rows; a JPEG
        /// with optimised Huffman tables holds every coefficient): in the plan's memory.
        var heldBytes: @Sendable (EncodeOptions, Size) -> Int = { _, _ in 0 }
        /// Bytes the library's encoder works in while it finishes an image of this size
        /// and channels (on top of the rows it was given): counted only for the encoders that finish at
        /// once, which the schedule bounds (`RenderSchedule`). Measured as peak RSS over a
        /// JPEG encode of the same size (`scripts/encoder-memory`).
        var workingBytes: @Sendable (EncodeOptions, Size, _ channels: Int) -> Int = { _, _, _ in 0 }
        /// How SSIM typically rises with the quality: -log(1 - SSIM) at qualities 0, 5,
        /// ..., 100, the mean over the camera photos at two sizes. Photos' curves run
        /// nearly parallel to it (one shift fits each within about 0.1), so one probe
        /// places the next (`QualitySearch`); nil: the search assumes a straight line.
        var qualityShape: [Double]? = nil
        /// Sample depths `--depth` names that the format's library cannot write here, each
        /// with why: asked for, they are refused before any work.
        var refusedDepths: [Int: String] = [:]
        /// Whether its encoder runs on `EncodeOptions.threads` threads of its own (the
        /// plan prints them): `--help` lists these under `--threads`.
        var threaded = false
    }

    /// A numeric encoder setting's values and default, for one format.
    struct Number: Sendable {
        let values: ClosedRange<Int>
        let defaultValue: Int
    }

    /// A format whose file holds several sizes of one picture, each encoded alone.
    struct Container: Sendable {
        /// One file holding the pictures of several files of this format, in order.
        let merge: @Sendable ([[UInt8]]) throws -> [UInt8]
    }
}
