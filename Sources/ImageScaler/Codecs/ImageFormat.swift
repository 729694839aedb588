/// A file format imgscale reads, and writes where `isWritable`: a name (`rawValue`, as
/// `--format` takes it) whose facts all come from its `CodecDescriptor` in `Registry`.
/// The content's first bytes decide it on input, never the file name.
public struct ImageFormat: RawRepresentable, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    public let rawValue: String

    /// For a codec's own descriptor: the name it registers.
    init(registering name: String) { rawValue = name }

    /// The registered format of that name, or nil.
    public init?(rawValue: String) {
        guard Registry.codecs.contains(where: { $0.format.rawValue == rawValue }) else { return nil }
        self.rawValue = rawValue
    }

    public static var allCases: [ImageFormat] { Registry.codecs.map(\.format) }

    public var description: String { rawValue }

    var codec: CodecDescriptor { Registry.codec(self) }

    /// The format whose signature starts `bytes`, or nil. 16 bytes are enough to know a
    /// file is an image; a HEIF file's brands may need its whole `ftyp` box (64 bytes).
    public static func sniff<C: Collection>(_ bytes: C) -> ImageFormat? where C.Element == UInt8 {
        let head = ArraySlice(bytes.prefix(64))
        return Registry.codecs.first { $0.matches(head) }?.format
    }

    /// The format a file name asks for by its extension, in any case.
    public static func fromExtension(of path: String) -> ImageFormat? {
        guard let ext = lowercasedExtension(of: path) else { return nil }
        return Registry.codecs.first { $0.extensions.contains(ext) }?.format
    }

    /// An output extension that names an image format imgscale does not write: such an
    /// output is an error, not a file of another format under a misleading name.
    public static func isUnwritableImageExtension(of path: String) -> Bool {
        if let format = fromExtension(of: path) { return !format.isWritable }
        return lowercasedExtension(of: path).map(Registry.foreignExtensions.contains) ?? false
    }

    private static func lowercasedExtension(of path: String) -> String? {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        return path[path.index(after: dot)...].lowercased()
    }

    /// The formats imgscale encodes.
    public static var writable: [ImageFormat] { allCases.filter(\.isWritable) }

    /// Other names of the writable formats, each with the format's own (`--format jpg`).
    public static var writableAliases: [String: String] {
        Dictionary(uniqueKeysWithValues: writable.flatMap { f in f.codec.aliases.map { ($0, f.rawValue) } })
    }

    /// The writable formats whose encoder takes `option`, in the registry's order.
    package static func taking(_ option: EncoderOption) -> [ImageFormat] {
        Registry.codecs.filter { $0.writer?.options.contains(option) == true }.map(\.format)
    }

    /// The formats whose animations `--animated` keeps, in the registry's order.
    package static var readingAnimations: [ImageFormat] { Registry.codecs.filter(\.readsAnimations).map(\.format) }

    /// The writable formats that hold animations, in the registry's order.
    package static var writingAnimations: [ImageFormat] { Registry.codecs.filter { $0.writer?.animation != nil }.map(\.format) }

    /// The writable formats whose encoders run on threads of their own, in the registry's order.
    package static var encodingOnThreads: [ImageFormat] { Registry.codecs.filter { $0.writer?.threaded == true }.map(\.format) }

    public var isWritable: Bool { codec.writer != nil }

    /// Whether an HDR photo's gain map is kept in this format's output (`GainMap`).
    public var keepsGainMaps: Bool { codec.writer?.gainMap != nil }

    /// How messages name it.
    public var displayName: String { codec.displayName }

    /// "PNG, JPEG and WebP" (or "... or WebP"): a list of formats for messages.
    public static func names(_ formats: [ImageFormat], or: Bool = false) -> String {
        list(formats.map(\.displayName), or: or)
    }

    /// "a .png, .jpg or .webp name": the extensions of the writable formats, for messages.
    public static var writableExtensions: String {
        list(writable.map { "." + $0.fileExtension }, or: true)
    }

    /// "a, b and c" (or "... or c").
    private static func list(_ items: [String], or: Bool) -> String {
        guard let last = items.last, items.count > 1 else { return items.joined() }
        return items.dropLast().joined(separator: ", ") + (or ? " or " : " and ") + last
    }

    /// The longest side the format can store.
    public var maxSide: Int { codec.maxSide }

    /// What the format calls a file stored in passes (`ImageInfo.interlaced`).
    public var incrementalName: String { codec.incrementalName }

    /// Whether an EXIF orientation in the file turns the image.
    public var appliesExifOrientation: Bool { codec.appliesExifOrientation }

    /// What it calls the images of one file that `RenderOptions.Input.page` chooses
    /// among ("page"); nil when a file of it is read as one image.
    public var pageName: String? { codec.pageName }

    /// The page read, `page`, for a format whose files have pages; nil for one read as
    /// one image, where there is no page to report.
    package func pageRead(_ page: Int) -> Int? { codec.pageName.map { _ in page } }

    /// `info`'s several images as `imgscale info` says them: a paged file's pages and the
    /// one read, or a container's images and the primary one used; nil for one image.
    package func imagesNote(_ info: ImageInfo, page: Int) -> String? {
        guard info.images > 1 else { return nil }
        if let name = codec.pageName { return "\(info.images) \(name)s (\(name) \(page) is read)" }
        return "\(info.images) images (the primary" + (info.primaryItem.map { ", item \($0)," } ?? "") + " is used)"
    }

    /// Whether the format stores palette images (`EncodeOptions.palette`).
    public var writesPalettes: Bool { codec.writer?.palette != nil }

    public var fileExtension: String { codec.extensions[0] }

    /// Whether the format is written with alpha (where not, alpha is composited away).
    package var holdsAlpha: Bool { codec.writer?.holdsAlpha ?? false }

    /// Encoding time per pixel, relative to JPEG's (`CodecDescriptor.Writer.encodeWork`).
    package var encodeWork: Int { codec.writer?.encodeWork ?? 1 }

    /// Its decoder's nanoseconds per compressed byte and per decoded pixel (`CodecDescriptor.decodeWork`).
    package var decodeWork: (perByte: Int, perPixel: Int) { (codec.decodeWork.perByte, codec.decodeWork.perPixel) }

    /// Whether the format holds 16-bit samples (`RenderOptions.Depth`).
    public var holdsSixteenBits: Bool { codec.writer?.wide != nil }

    /// The writable formats that hold 16-bit samples, for messages.
    package static var sixteenBitFormats: [ImageFormat] { writable.filter(\.holdsSixteenBits) }

    /// The writable formats taking the numeric `option`, each with its values and
    /// default, in the registry's order (for help text).
    package static func numbers(_ option: EncoderOption) -> [(format: ImageFormat, values: ClosedRange<Int>, defaultValue: Int)] {
        writable.compactMap { f in f.codec.writer?.numbers[option].map { (f, $0.values, $0.defaultValue) } }
    }

    /// Sample depths a writable format's library cannot write here, with why, in order.
    package static var refusedDepths: [(bits: Int, why: String)] {
        writable.flatMap { $0.codec.writer?.refusedDepths.map { (bits: $0.key, why: $0.value) } ?? [] }.sorted { $0.bits < $1.bits }
    }

    /// How many files `sizes` outputs of this format make under one name: one for a
    /// container of sizes (ICO), else one a size.
    package func files(holding sizes: Int) -> Int { codec.writer?.container == nil ? sizes : 1 }

    /// One file holding the pictures of `files`, each of this format, in order.
    package func merge(_ files: [[UInt8]]) throws -> [UInt8] {
        guard let container = codec.writer?.container else { throw EncodeError.unsupported(self) }
        return try container.merge(files)
    }

    /// The decoder for a file that starts with a registered signature, with the colour
    /// stage after it.
    package static func decoder(for data: [UInt8], options: DecodeOptions = DecodeOptions()) throws -> any RowDecoder {
        if data.isEmpty { throw DecodeError.empty }
        guard let format = sniff(data) else { throw DecodeError.unknownFormat }
        if options.page > 0, format.codec.pageName == nil { throw DecodeError.noPage(options.page, pages: 1, name: nil) }
        return ColorConvertingDecoder(inner: try format.codec.decoder(data, options))
    }

    /// An encoder for rows of `channels` channels.
    func encoder(width: Int, height: Int, channels: Int, options: EncodeOptions) throws -> any RowEncoder {
        guard let writer = codec.writer else { throw EncodeError.unsupported(self) }
        guard let tap = options.previewTap else { return try writer.rows(width, height, channels, options) }
        // A container's writer runs a format's encoder inside its own: only the outer one is watched.
        var inner = options
        inner.previewTap = nil
        return TappedRowEncoder(try writer.rows(width, height, channels, inner), tap: tap, width: width, height: height, channels: channels)
    }

    /// The metadata of `options` this format can carry for an image of `channels`
    /// channels, and a warning for each block left out (never a failed output). A
    /// malformed ICC profile is left out of every format alike.
    func carriable(_ options: EncodeOptions, channels: Int) -> (EncodeOptions, [String]) {
        var o = options, warnings: [String] = []
        if let icc = o.iccProfile, let problem = ICCProfile.malformation(icc) {
            o.iccProfile = nil
            warnings.append("malformed ICC profile not carried: \(problem)")
        }
        guard let writer = codec.writer else { return (o, warnings) }
        let (carried, more) = writer.carriable(o, channels)
        return (carried, warnings + more)
    }

    /// A whole image in this format, as a palette image when `palettise` and it has at
    /// most 256 colours, and otherwise in full colour with a warning for the input's
    /// lines. The image holds what the format holds (the plan's stages saw to alpha).
    /// With `options.targetSSIM` or `maxBytes`, the quality is searched for
    /// (`QualitySearch`) and reported with its score.
    func encodeReporting(_ image: PixelBuffer, palettise: Bool, options: EncodeOptions) throws -> Encoded {
        if palettise, let write = codec.writer?.palette {
            options.previewTap?.take(image)
            var options = options
            options.previewTap = nil
            if let (entries, indices) = Palettizer.palettize(image), entries.count / 4 <= options.colors ?? 256 {
                return Encoded(bytes: try write(image.size, entries, indices, options))
            }
            if let colors = options.colors {
                let (entries, indices) = PaletteQuantizer.quantize(image, colors: colors, dither: options.dither)
                return Encoded(bytes: try write(image.size, entries, indices, options))
            }
            let layout = image.hasAlpha ? "RGBA" : "RGB"
            return Encoded(bytes: try rows(image, options), warnings: ["--palette: more than 256 colours, so written as \(layout) \(displayName)"])
        }
        if options.targetSSIM != nil || options.maxBytes != nil, codec.writer?.options.contains(.quality) == true {
            let search = QualitySearch(encode: { q in
                var o = options
                o.quality = q
                return try rows(image, o)
            }, decode: { try ImageFile.decode($0, options: DecodeOptions()).0 }, image: image,
               targetSSIM: options.targetSSIM, maxBytes: options.maxBytes, shape: codec.writer?.qualityShape)
            let choice = try search.run()
            return Encoded(bytes: choice.bytes, warnings: choice.warnings, quality: choice.quality, ssim: choice.ssim, encodes: choice.encodes)
        }
        return Encoded(bytes: try rows(image, options))
    }

    /// An encoded image, what could not be kept, and a searched quality with its score.
    struct Encoded {
        let bytes: [UInt8]
        var warnings: [String] = []
        var quality: Int? = nil
        var ssim: Double? = nil
        var encodes: Int? = nil
    }

    /// A whole image through the row encoder.
    private func rows(_ image: PixelBuffer, _ options: EncodeOptions) throws -> [UInt8] {
        try encoder(width: image.width, height: image.height, channels: image.channels, options: options).encode(image)
    }

    /// A whole image in this format, as `ImageFile.encode` writes it: alpha composited onto
    /// `options.background` where the format holds none, a palette where `options` asks.
    func encode(_ image: PixelBuffer, options: EncodeOptions) throws -> [UInt8] {
        let held = image.hasAlpha && !holdsAlpha ? Flattener.flatten(image, onto: options.background) : image
        return try encodeReporting(held, palettise: options.palette, options: options).bytes
    }

    /// A whole 16-bit image in this format.
    func encode(_ image: WideImage, options: EncodeOptions) throws -> [UInt8] {
        guard let wide = codec.writer?.wide else { throw EncodeError.noSixteenBits(self) }
        var options = options
        if let tap = options.previewTap {
            tap.take(image.narrowed())
            options.previewTap = nil
        }
        return try wide(image, options)
    }
}
