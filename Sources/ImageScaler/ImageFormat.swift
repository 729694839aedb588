/// A file format imgscale reads and writes. The content's first bytes decide it on
/// input, never the file name.
public enum ImageFormat: String, Sendable, CaseIterable {
    case png
    case jpeg

    private static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The format whose signature starts `bytes`, or nil.
    public static func sniff<C: Collection>(_ bytes: C) -> ImageFormat? where C.Element == UInt8 {
        if bytes.starts(with: pngSignature) { return .png }
        // SOI followed by the first marker's 0xFF: every JPEG starts this way.
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        return nil
    }

    /// The format a file name asks for by its extension, in any case.
    public static func fromExtension(of path: String) -> ImageFormat? {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        switch path[path.index(after: dot)...].lowercased() {
        case "png": return .png
        case "jpg", "jpeg": return .jpeg
        default: return nil
        }
    }

    /// Extensions of image formats imgscale does not write: an output named so is an
    /// error, not a file of another format under a misleading name.
    public static func isUnwritableImageExtension(of path: String) -> Bool {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return false }
        let unwritable: Set<String> = ["gif", "webp", "avif", "heic", "heif", "tif", "tiff", "bmp", "jxl", "ico", "svg", "jp2", "psd"]
        return unwritable.contains(path[path.index(after: dot)...].lowercased())
    }

    /// The longest side the format can store: JPEG's 16-bit frame header; PNG's 31 bits.
    public var maxSide: Int { self == .jpeg ? 65535 : 0x7fff_ffff }

    /// Whether the format stores palette images (`EncodeOptions.palette`).
    public var writesPalettes: Bool { self == .png }

    /// The decoder for a file that starts with this format's signature, with the colour
    /// stage after it.
    static func decoder(for data: [UInt8]) throws -> any RowDecoder {
        if data.isEmpty { throw DecodeError.empty }
        switch sniff(data) {
        case .png: return ColorConvertingDecoder(inner: try PNGDecoder(data))
        case .jpeg: return ColorConvertingDecoder(inner: try JPEGDecoder(data))
        case nil: throw DecodeError.unknownFormat
        }
    }

    /// An encoder for rows of `channels` channels.
    func encoder(width: Int, height: Int, channels: Int, options: EncodeOptions) throws -> any RowEncoder {
        switch self {
        case .png: return try PNGEncoder(width: width, height: height, channels: channels, options: options)
        case .jpeg: return try JPEGEncoder(width: width, height: height, channels: channels, options: options)
        }
    }

    /// A whole image in this format (palette images where the format and options want them).
    func encode(_ image: PixelBuffer, options: EncodeOptions) throws -> [UInt8] {
        switch self {
        case .png: return try PNGEncoder.encode(image, options: options)
        case .jpeg: return try JPEGEncoder.encode(image, options: options)
        }
    }

    public var fileExtension: String { self == .png ? "png" : "jpg" }
}
