import CPNGShim

/// PNG through libpng's low-level API: every colour type and depth is expanded to 8-bit
/// gray, gray+alpha, RGB or RGBA; 16-bit samples are rounded (`png_set_scale_16`), and
/// gamma/cHRM/sRGB chunks are kept out of the samples, as Pillow and libvips do.
public enum PNGCodec {
    public static func info(_ data: [UInt8]) throws -> ImageInfo {
        try data.withUnsafeBufferPointer { buf in
            var raw = cpng_info()
            var message = ShimMessage()
            guard let reader = message.with({ cpng_reader_open(buf.baseAddress, buf.count, &raw, $0, $1) }) else {
                throw DecodeError.png(message.text)
            }
            defer { cpng_reader_close(reader) }
            return makeInfo(raw)
        }
    }

    public static func decode(_ data: [UInt8], options: DecodeOptions = DecodeOptions()) throws -> (PixelBuffer, ImageInfo) {
        try data.withUnsafeBufferPointer { buf in
            var raw = cpng_info()
            var message = ShimMessage()
            guard let reader = message.with({ cpng_reader_open(buf.baseAddress, buf.count, &raw, $0, $1) }) else {
                throw DecodeError.png(message.text)
            }
            defer { cpng_reader_close(reader) }
            let info = makeInfo(raw)
            try options.check(info.size)
            var pixels = PixelBuffer.samples(count: info.size.pixelCount * info.channels)
            let status = pixels.withUnsafeMutableBufferPointer { out in
                message.with { cpng_reader_read(reader, out.baseAddress, info.size.width * info.channels, $0, $1) }
            }
            guard status == 0 else { throw DecodeError.png(message.text) }
            return (PixelBuffer(width: info.size.width, height: info.size.height, channels: info.channels, pixels: pixels), info)
        }
    }

    private static func makeInfo(_ raw: cpng_info) -> ImageInfo {
        let models = [0: "gray", 2: "rgb", 3: "palette", 4: "gray+alpha", 6: "rgba"]
        var icc: [UInt8]? = nil
        if let p = raw.icc, raw.icc_length > 0 {
            icc = Array(UnsafeBufferPointer(start: p, count: Int(raw.icc_length)))
        }
        return ImageInfo(format: .png, size: Size(width: Int(raw.width), height: Int(raw.height)),
                         channels: Int(raw.channels), bitDepth: Int(raw.bit_depth),
                         colorModel: models[Int(raw.color_type)] ?? "unknown",
                         orientation: .up, interlaced: raw.interlaced != 0, iccProfile: icc, exif: nil)
    }

    /// Encodes 8-bit samples with the buffer's own channels. zlib `compression` 0-9.
    public static func encode(_ image: PixelBuffer, compression: Int = 6, iccProfile: [UInt8]? = nil) throws -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>? = nil
        var outSize = 0
        var message = ShimMessage()
        let icc = iccProfile ?? []
        let status = image.pixels.withUnsafeBufferPointer { px in
            icc.withUnsafeBufferPointer { iccBuf in
                message.with {
                    cpng_encode(px.baseAddress, UInt32(image.width), UInt32(image.height), Int32(image.channels),
                                image.bytesPerRow, Int32(compression), iccBuf.baseAddress, UInt32(iccBuf.count),
                                &out, &outSize, $0, $1)
                }
            }
        }
        guard status == 0, let bytes = out else { throw EncodeError.png(message.text) }
        defer { cpng_free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: outSize))
    }
}
