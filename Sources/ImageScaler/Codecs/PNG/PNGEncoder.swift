import CPNGShim

/// PNG from rows: gray, gray+alpha, RGB or RGBA as given, 8-bit or (`bitDepth` 16)
/// two bytes a sample, most significant first, zlib level
/// `options.compression`, the ICC/EXIF/XMP blocks of `options` embedded unchanged; with a
/// palette (RGBA entries), rows are one-byte indices and alpha goes to tRNS.
final class PNGEncoder: RowEncoder {
    private let writer: OpaquePointer

    init(width: Int, height: Int, channels: Int, options: EncodeOptions, palette: [UInt8]? = nil, bitDepth: Int = 8) throws {
        var message = ShimMessage()
        let icc = options.iccProfile ?? [], exif = options.exif ?? [], xmp = options.xmp ?? [], entries = palette ?? []
        let w = icc.withUnsafeBufferPointer { i in
            exif.withUnsafeBufferPointer { e in
                xmp.withUnsafeBufferPointer { x in
                    entries.withUnsafeBufferPointer { p in
                        var metadata = cpng_metadata(icc: i.baseAddress, icc_length: UInt32(i.count), exif: e.baseAddress,
                                                     exif_length: UInt32(e.count), xmp: x.baseAddress, xmp_length: UInt32(x.count),
                                                     palette: p.baseAddress, palette_size: Int32(p.count / 4))
                        return message.with {
                            cpng_writer_open(UInt32(width), UInt32(height), Int32(channels), Int32(bitDepth), Int32(options.compression),
                                             &metadata, $0, $1)
                        }
                    }
                }
            }
        }
        guard let w else { throw EncodeError.failed(.png, message.text) }
        writer = w
    }

    deinit { cpng_writer_close(writer) }

    func write(_ rows: UnsafePointer<UInt8>, count: Int, bytesPerRow: Int) throws {
        var message = ShimMessage()
        guard message.with({ cpng_writer_write_rows(writer, rows, bytesPerRow, UInt32(count), $0, $1) }) == 0 else {
            throw EncodeError.failed(.png, message.text)
        }
    }

    func finish() throws -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        var message = ShimMessage()
        guard message.with({ cpng_writer_finish(writer, &out, &size, $0, $1) }) == 0, let bytes = out else {
            throw EncodeError.failed(.png, message.text)
        }
        defer { cpng_free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: size))
    }

    /// `options` without what libpng would refuse to write (an ICC profile it finds
    /// inconsistent, such as a PCS illuminant other than D50), with a warning for it.
    static func carriable(_ options: EncodeOptions, channels: Int) -> (EncodeOptions, [String]) {
        guard let icc = options.iccProfile else { return (options, []) }
        var why = ShimMessage()
        let refused = icc.withUnsafeBufferPointer { i in
            why.with { cpng_icc_refusal(i.baseAddress, UInt32(i.count), Int32(channels), $0, $1) }
        }
        guard refused != 0 else { return (options, []) }
        var o = options
        o.iccProfile = nil
        return (o, ["ICC profile not carried into the PNG: libpng refuses it (\(why.text))"])
    }

    /// A whole 16-bit image.
    static func encode(_ image: WideImage, options: EncodeOptions) throws -> [UInt8] {
        let encoder = try PNGEncoder(width: image.width, height: image.height, channels: image.channels, options: options, bitDepth: 16)
        try image.bigEndianBytes().withUnsafeBufferPointer {
            try encoder.write($0.baseAddress!, count: image.height, bytesPerRow: image.width * image.channels * 2)
        }
        return try encoder.finish()
    }

    /// An 8-bit palette image: RGBA `palette` entries (alpha to tRNS) and one index byte
    /// a pixel, as `Palettizer` makes them.
    static func encode(_ size: Size, palette: [UInt8], indices: [UInt8], options: EncodeOptions) throws -> [UInt8] {
        let encoder = try PNGEncoder(width: size.width, height: size.height, channels: 1, options: options, palette: palette)
        try indices.withUnsafeBufferPointer { try encoder.write($0.baseAddress!, count: size.height, bytesPerRow: size.width) }
        return try encoder.finish()
    }
}
