/// Whole files held in memory: sniffed, decoded and encoded, dispatching on content
/// through `ImageFormat.decoder(for:)`. One front door for bytes, beside reading and
/// writing them.
extension ImageFile {
    /// The header's facts, without decoding pixels.
    public static func info(_ data: [UInt8], options: RenderOptions = RenderOptions()) throws -> ImageInfo {
        try info(data, options: options.decode)
    }

    package static func info(_ data: [UInt8], options: DecodeOptions) throws -> ImageInfo {
        try ImageFormat.decoder(for: data, options: options).info
    }

    /// The whole image, upright as stored (no orientation applied), at 1/`shrink` where
    /// the decoder can scale on load (JPEG: 2, 4 or 8), else at full size.
    public static func decode(_ data: [UInt8], options: RenderOptions = RenderOptions(), shrink: Int = 1) throws -> (PixelBuffer, ImageInfo) {
        var d = options.decode
        d.shrink = shrink
        return try decode(data, options: d)
    }

    package static func decode(_ data: [UInt8], options: DecodeOptions) throws -> (PixelBuffer, ImageInfo) {
        let decoder = try ImageFormat.decoder(for: data, options: options)
        let header = decoder.info
        try options.check(header.size)
        // The file, the decoder's buffers and the whole image it returns.
        let pixels = Double(header.size.width) * Double(header.size.height) * Double(header.channels)
        let needed = Double(data.count) + Double(header.workingBytes) + 2 * pixels
        try MemoryBudget.check(needed >= Double(Int.max / 2) ? Int.max / 2 : Int(needed), budget: options.maxMemory)
        let shrink = decoder.capabilities.shrinkFactors.contains(options.shrink) ? options.shrink : 1
        let (image, _, info) = try RenderExecutor.collect(decoder, region: nil, shrink: shrink, options: options, split: false)
        return (image, info)
    }

    /// `image` in `format`: alpha composited onto the background where the format holds
    /// none (or with `flatten`), a palette where asked and possible.
    public static func encode(_ image: PixelBuffer, as format: ImageFormat, options: RenderOptions = RenderOptions()) throws -> [UInt8] {
        try encode(image, as: format, options: options.encode)
    }

    package static func encode(_ image: PixelBuffer, as format: ImageFormat, options: EncodeOptions) throws -> [UInt8] {
        let opaque = options.flatten && image.hasAlpha ? Flattener.flatten(image, onto: options.background) : image
        return try format.encode(opaque, options: options)
    }
}

/// The name the package's own code uses for in-memory decoding and encoding.
package typealias ImageCodec = ImageFile
