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

    /// The whole image as RGBA at 16 bits (gray replicated, missing alpha 65535), upright
    /// when `autoOrient` as `decode` leaves it to the caller, for comparing at full depth:
    /// from any format whose decoder reads more than 8 bits (`RowDecoder.decodeWide`);
    /// nil where the file holds 8 bits or fewer.
    package static func decodeRGBA16(_ data: [UInt8], options: DecodeOptions, autoOrient: Bool) throws -> (Size, [UInt16])? {
        let decoder = try ImageFormat.decoder(for: data, options: options)
        try options.check(decoder.info.size)
        guard var (image, info) = try decoder.decodeWide(options: options) else { return nil }
        try MemoryBudget.check(data.count + image.width * image.height * (image.channels + 4) * 2, budget: options.maxMemory)
        if autoOrient { image = image.upright(info.orientation) }
        let (count, channels) = (image.width * image.height, image.channels)
        if channels == 4 { return (image.size, image.samples) }
        var rgba = [UInt16](repeating: 65535, count: count * 4)
        image.samples.withUnsafeBufferPointer { s in
            for i in 0..<count {
                let from = i * channels, to = i * 4
                if channels >= 3 {
                    rgba[to] = s[from]; rgba[to + 1] = s[from + 1]; rgba[to + 2] = s[from + 2]
                } else {
                    rgba[to] = s[from]; rgba[to + 1] = s[from]; rgba[to + 2] = s[from]
                    if channels == 2 { rgba[to + 3] = s[from + 1] }
                }
            }
        }
        info.size = image.size
        return (info.size, rgba)
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
