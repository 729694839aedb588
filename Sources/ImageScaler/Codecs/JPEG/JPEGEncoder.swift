import CJPEGShim

/// JPEG from rows: gray or RGB at `options.quality` (default 85) with optimised Huffman tables,
/// `options.subsampling` and optionally progressive. JPEG holds no alpha: the plan's
/// flatten stage (or `ImageFormat.encode`) composites it away before rows come here.
/// ICC/EXIF/XMP embedded unchanged.
final class JPEGEncoder: RowEncoder {
    /// sharp\'s and vipsthumbnail\'s neighbourhood for web thumbnails.
    static let defaultQuality = 85
    /// The most pixels whose Huffman tables are fitted to the image (jpeg_shim.c's
    /// `optimize_coding`): libjpeg then holds every coefficient until the last row.
    static let fittedTablesUpTo = 2048 * 2048
    private let writer: OpaquePointer

    init(width: Int, height: Int, channels: Int, options: EncodeOptions) throws {
        guard channels == 1 || channels == 3 else { throw EncodeError.failed(.jpeg, "JPEG holds no alpha; \(channels) channels must be flattened first") }
        var message = ShimMessage()
        let icc = options.iccProfile ?? [], exif = options.exif ?? [], xmp = options.xmp ?? []
        var jpegOptions = cjpeg_encode_options(quality: Int32(options.quality ?? JPEGEncoder.defaultQuality), progressive: options.progressive ? 1 : 0,
                                               subsampling: options.subsampling.code)
        let w = icc.withUnsafeBufferPointer { i in
            exif.withUnsafeBufferPointer { e in
                xmp.withUnsafeBufferPointer { x in
                    var metadata = cjpeg_metadata(icc: i.baseAddress, icc_length: UInt32(i.count), exif: e.baseAddress,
                                                  exif_length: UInt32(e.count), xmp: x.baseAddress, xmp_length: UInt32(x.count))
                    return message.with {
                        cjpeg_writer_open(UInt32(width), UInt32(height), Int32(channels), &jpegOptions, &metadata, $0, $1)
                    }
                }
            }
        }
        guard let w else { throw EncodeError.failed(.jpeg, message.text) }
        writer = w
    }

    deinit { cjpeg_writer_close(writer) }

    /// `options` without the blocks JPEG cannot hold, with a warning for each: a
    /// segment carries at most 65533 bytes, and an ICC profile may span 255 of them.
    static func carriable(_ options: EncodeOptions) -> (EncodeOptions, [String]) {
        var o = options, warnings: [String] = []
        if let icc = o.iccProfile, icc.count > 255 * (65533 - 14) {
            o.iccProfile = nil
            warnings.append("ICC profile not carried into the JPEG: its \(icc.count) bytes need more than 255 APP2 segments")
        }
        if let exif = o.exif, exif.count > 65533 - 6 {
            o.exif = nil
            warnings.append("EXIF not carried into the JPEG: its \(exif.count) bytes exceed one 64 KB APP1 segment")
        }
        if let xmp = o.xmp, xmp.count > 65533 - 29 {
            o.xmp = nil
            warnings.append("XMP not carried into the JPEG: its \(xmp.count) bytes exceed one 64 KB APP1 segment (extended XMP is not written)")
        }
        return (o, warnings)
    }

    func write(_ rows: UnsafePointer<UInt8>, count: Int, bytesPerRow: Int) throws {
        var message = ShimMessage()
        guard message.with({ cjpeg_writer_write_rows(writer, rows, bytesPerRow, UInt32(count), $0, $1) }) == 0 else {
            throw EncodeError.failed(.jpeg, message.text)
        }
    }

    func finish() throws -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        var message = ShimMessage()
        guard message.with({ cjpeg_writer_finish(writer, &out, &size, $0, $1) }) == 0, let bytes = out else {
            throw EncodeError.failed(.jpeg, message.text)
        }
        defer { cjpeg_free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: size))
    }

    static func encode(_ image: PixelBuffer, options: EncodeOptions) throws -> [UInt8] {
        try JPEGEncoder(width: image.width, height: image.height, channels: image.channels, options: options).encode(image)
    }
}
