/// A file format imgscale reads, and writes where `isWritable`. The content's first
/// bytes decide it on input, never the file name. This is the registry: the one place
/// outside the codecs' own files that knows which decoder and encoder a format has.
public enum ImageFormat: String, Sendable, CaseIterable {
    case png
    case jpeg
    case webp
    case heic
    case avif
    case gif

    private static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The format whose signature starts `bytes`, or nil. HEIF files are told apart by
    /// their `ftyp` brands (AV1 brands make AVIF); 16 bytes are enough to know a file
    /// is an image, the whole `ftyp` box to know which HEIF it is.
    public static func sniff<C: Collection>(_ bytes: C) -> ImageFormat? where C.Element == UInt8 {
        let head = Array(bytes.prefix(64))
        if head.starts(with: pngSignature) { return .png }
        // SOI followed by the first marker's 0xFF: every JPEG starts this way.
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if head.count >= 12, head[0..<4].elementsEqual("RIFF".utf8), head[8..<12].elementsEqual("WEBP".utf8) { return .webp }
        if head.starts(with: Array("GIF87a".utf8)) || head.starts(with: Array("GIF89a".utf8)) { return .gif }
        if head.count >= 12, head[4..<8].elementsEqual("ftyp".utf8) {
            let heic: Set<String> = ["heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs", "mif1", "msf1", "miaf"]
            let brand = { (at: Int) in String(decoding: head[at..<at + 4], as: UTF8.self) }
            let major = brand(8)
            if major == "avif" || major == "avis" { return .avif }
            guard heic.contains(major) else { return nil }
            // Compatible brands follow the minor version; an AV1 one makes it AVIF.
            let boxSize = Int(head[0]) << 24 | Int(head[1]) << 16 | Int(head[2]) << 8 | Int(head[3])
            var at = 16
            while at + 4 <= min(boxSize, head.count) {
                if ["avif", "avis"].contains(brand(at)) { return .avif }
                at += 4
            }
            return .heic
        }
        return nil
    }

    /// The format a file name asks for by its extension, in any case.
    public static func fromExtension(of path: String) -> ImageFormat? {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        switch path[path.index(after: dot)...].lowercased() {
        case "png": return .png
        case "jpg", "jpeg": return .jpeg
        case "webp": return .webp
        case "heic", "heif": return .heic
        case "avif": return .avif
        case "gif": return .gif
        default: return nil
        }
    }

    /// An output extension that names an image format imgscale does not write: such an
    /// output is an error, not a file of another format under a misleading name.
    public static func isUnwritableImageExtension(of path: String) -> Bool {
        if let format = fromExtension(of: path) { return !format.isWritable }
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return false }
        let others: Set<String> = ["tif", "tiff", "bmp", "jxl", "ico", "svg", "jp2", "psd"]
        return others.contains(path[path.index(after: dot)...].lowercased())
    }

    /// The formats imgscale encodes.
    public static var writable: [ImageFormat] { allCases.filter(\.isWritable) }

    public var isWritable: Bool {
        switch self {
        case .png, .jpeg, .webp, .avif, .heic: return true
        case .gif: return false
        }
    }

    /// How messages name it.
    public var displayName: String {
        switch self {
        case .png: return "PNG"
        case .jpeg: return "JPEG"
        case .webp: return "WebP"
        case .heic: return "HEIC"
        case .avif: return "AVIF"
        case .gif: return "GIF"
        }
    }

    /// "PNG, JPEG and WebP" (or "... or WebP"): a list of formats for messages.
    public static func names(_ formats: [ImageFormat], or: Bool = false) -> String {
        let names = formats.map(\.displayName)
        return names.count <= 1 ? names.joined() : names.dropLast().joined(separator: ", ") + (or ? " or " : " and ") + names.last!
    }

    /// The longest side the format can store: JPEG's 16-bit frame header; WebP's 14
    /// bits; PNG's 31 bits; HEIF's as libheif allows.
    public var maxSide: Int {
        switch self {
        case .jpeg, .gif: return 65535
        case .webp: return 16383
        case .png: return 0x7fff_ffff
        case .heic, .avif: return 65535
        }
    }

    /// What the format calls a file stored in passes (`ImageInfo.interlaced`): PNG and
    /// GIF are "interlaced", JPEG "progressive"; the others have neither.
    public var incrementalName: String {
        switch self {
        case .png, .gif: return "interlaced"
        default: return "progressive"
        }
    }

    /// Whether an EXIF orientation in the file turns the image (JPEG, WebP, and PNG's
    /// eXIf, raw EXIF profile or XMP). HEIF's turns are its own `irot`/`imir`, applied
    /// by the decoder instead.
    public var appliesExifOrientation: Bool { self == .jpeg || self == .webp || self == .png }

    /// Whether the format stores palette images (`EncodeOptions.palette`).
    public var writesPalettes: Bool { self == .png }

    /// The decoder for a file that starts with this format's signature, with the colour
    /// stage after it.
    static func decoder(for data: [UInt8]) throws -> any RowDecoder {
        if data.isEmpty { throw DecodeError.empty }
        switch sniff(data) {
        case .png: return ColorConvertingDecoder(inner: try PNGDecoder(data))
        case .jpeg: return ColorConvertingDecoder(inner: try JPEGDecoder(data))
        case .webp: return ColorConvertingDecoder(inner: try WebPDecoder(data))
        case .gif: return ColorConvertingDecoder(inner: try GIFDecoder(data))
        case .heic: return ColorConvertingDecoder(inner: try HEIFDecoder(data, format: .heic))
        case .avif: return ColorConvertingDecoder(inner: try HEIFDecoder(data, format: .avif))
        case nil: throw DecodeError.unknownFormat
        }
    }

    /// An encoder for rows of `channels` channels.
    func encoder(width: Int, height: Int, channels: Int, options: EncodeOptions) throws -> any RowEncoder {
        switch self {
        case .png: return try PNGEncoder(width: width, height: height, channels: channels, options: options)
        case .jpeg: return try JPEGEncoder(width: width, height: height, channels: channels, options: options)
        case .webp: return WebPEncoder(width: width, height: height, channels: channels, options: options)
        case .avif, .heic: return HEIFEncoder(format: self, width: width, height: height, channels: channels, options: options)
        case .gif: throw EncodeError.unsupported(self)
        }
    }

    /// The metadata of `options` this format can carry for an image of `channels`
    /// channels, and a warning for each block left out (never a failed output).
    func carriable(_ options: EncodeOptions, channels: Int) -> (EncodeOptions, [String]) {
        var o = options, warnings: [String] = []
        if let icc = o.iccProfile, let problem = ICCProfile.malformation(icc) {
            o.iccProfile = nil
            warnings.append("malformed ICC profile not carried: \(problem)")
        }
        let more: [String]
        switch self {
        case .png: (o, more) = PNGEncoder.carriable(o, channels: channels)
        case .jpeg: (o, more) = JPEGEncoder.carriable(o)
        default: more = []
        }
        return (o, warnings + more)
    }

    /// `encode`, and a warning when the options asked for what the image could not be
    /// given (a palette for more than 256 colours), for the input's lines.
    func encodeReporting(_ image: PixelBuffer, options: EncodeOptions) throws -> (bytes: [UInt8], warnings: [String]) {
        let bytes = try encode(image, options: options)
        guard self == .png, options.palette, !PNGEncoder.isPalette(bytes) else { return (bytes, []) }
        return (bytes, ["--palette: more than 256 colours, so written as \(image.channels == 4 || image.channels == 2 ? "RGBA" : "RGB") PNG"])
    }

    /// A whole image in this format (palette images where the format and options want them).
    func encode(_ image: PixelBuffer, options: EncodeOptions) throws -> [UInt8] {
        switch self {
        case .png: return try PNGEncoder.encode(image, options: options)
        default: return try encoder(width: image.width, height: image.height, channels: image.channels, options: options).encode(image)
        }
    }

    public var fileExtension: String {
        switch self {
        case .jpeg: return "jpg"
        default: return rawValue
        }
    }
}
