/// Sniffs, decodes and encodes whole files held in memory, dispatching on content.
public enum ImageCodec {
    public static func info(_ data: [UInt8]) throws -> ImageInfo {
        switch try format(of: data) {
        case .png: return try PNGCodec.info(data)
        case .jpeg: return try JPEGCodec.info(data)
        }
    }

    public static func decode(_ data: [UInt8], options: DecodeOptions = DecodeOptions()) throws -> (PixelBuffer, ImageInfo) {
        let header = try info(data)
        try options.check(header.size)
        // The file, the decoder's buffers and the whole image it returns.
        let pixels = Double(header.size.width) * Double(header.size.height) * Double(header.channels)
        let needed = Double(data.count) + Double(header.workingBytes) + 2 * pixels
        try MemoryBudget.check(needed >= Double(Int.max / 2) ? Int.max / 2 : Int(needed), budget: options.maxMemory)
        switch try format(of: data) {
        case .png: return try PNGCodec.decode(data, options: options)
        case .jpeg: return try JPEGCodec.decode(data, options: options)
        }
    }

    public static func encode(_ image: PixelBuffer, as format: ImageFormat, options: EncodeOptions = EncodeOptions()) throws -> [UInt8] {
        try RowEncoder.encode(image, as: format, options: options)
    }

    private static func format(of data: [UInt8]) throws -> ImageFormat {
        if data.isEmpty { throw DecodeError.empty }
        guard let format = ImageFormat.sniff(data) else { throw DecodeError.unknownFormat }
        return format
    }
}
