import CJPEGShim
import CPNGShim

/// Encodes an image into memory as PNG or JPEG from rows given top to bottom, so the
/// encoder can start while later rows are still being made. Rows are in the layout of
/// `PixelBuffer` with `channels` channels; for JPEG, alpha is flattened onto
/// `options.background` row by row. Deterministic: no timestamps.
final class RowEncoder {
    private enum Writer {
        case png(OpaquePointer)
        case jpeg(OpaquePointer)
    }

    private let writer: Writer
    private let width: Int
    private let channels: Int
    private let outChannels: Int
    private let background: RGBColor
    private var scratch: [UInt8] = []

    /// With `palette` (RGBA entries, PNG only), rows are one-byte palette indices.
    init(format: ImageFormat, width: Int, height: Int, channels: Int, options: EncodeOptions,
                palette: [UInt8]? = nil) throws {
        self.width = width
        self.channels = channels
        background = options.background
        var message = ShimMessage()
        let icc = options.iccProfile ?? [], exif = options.exif ?? [], xmp = options.xmp ?? []
        switch format {
        case .png:
            outChannels = channels
            let entries = palette ?? []
            let w = icc.withUnsafeBufferPointer { i in
                exif.withUnsafeBufferPointer { e in
                    xmp.withUnsafeBufferPointer { x in
                        entries.withUnsafeBufferPointer { p in
                            var metadata = cpng_metadata(icc: i.baseAddress, icc_length: UInt32(i.count), exif: e.baseAddress,
                                                         exif_length: UInt32(e.count), xmp: x.baseAddress, xmp_length: UInt32(x.count),
                                                         palette: p.baseAddress, palette_size: Int32(p.count / 4))
                            return message.with {
                                cpng_writer_open(UInt32(width), UInt32(height), Int32(channels), Int32(options.compression),
                                                 &metadata, $0, $1)
                            }
                        }
                    }
                }
            }
            guard let w else { throw EncodeError.png(message.text) }
            writer = .png(w)
        case .jpeg:
            let flatChannels = channels == 2 || channels == 4 ? Flattener.channels(flattening: channels, onto: options.background) : channels
            outChannels = flatChannels
            var jpegOptions = cjpeg_encode_options(quality: Int32(options.quality), progressive: options.progressive ? 1 : 0,
                                                   subsampling: options.subsampling.code)
            let w = icc.withUnsafeBufferPointer { i in
                exif.withUnsafeBufferPointer { e in
                    xmp.withUnsafeBufferPointer { x in
                        var metadata = cjpeg_metadata(icc: i.baseAddress, icc_length: UInt32(i.count), exif: e.baseAddress,
                                                      exif_length: UInt32(e.count), xmp: x.baseAddress, xmp_length: UInt32(x.count))
                        return message.with {
                            cjpeg_writer_open(UInt32(width), UInt32(height), Int32(flatChannels), &jpegOptions, &metadata, $0, $1)
                        }
                    }
                }
            }
            guard let w else { throw EncodeError.jpeg(message.text) }
            writer = .jpeg(w)
        }
    }

    deinit {
        switch writer {
        case .png(let w): cpng_writer_close(w)
        case .jpeg(let w): cjpeg_writer_close(w)
        }
    }

    /// Encodes the next `count` rows, `bytesPerRow` apart.
    func write(_ rows: UnsafePointer<UInt8>, count: Int, bytesPerRow: Int) throws {
        var message = ShimMessage()
        switch writer {
        case .png(let w):
            guard message.with({ cpng_writer_write_rows(w, rows, bytesPerRow, UInt32(count), $0, $1) }) == 0 else {
                throw EncodeError.png(message.text)
            }
        case .jpeg(let w):
            if outChannels == channels {
                guard message.with({ cjpeg_writer_write_rows(w, rows, bytesPerRow, UInt32(count), $0, $1) }) == 0 else {
                    throw EncodeError.jpeg(message.text)
                }
                return
            }
            if scratch.isEmpty { scratch = PixelBuffer.samples(count: width * outChannels) }
            for y in 0..<count {
                let status = scratch.withUnsafeMutableBufferPointer { row -> Int32 in
                    Flattener.flatten(rows + y * bytesPerRow, channels: channels, into: row.baseAddress!,
                                      channels: outChannels, pixels: width, onto: background)
                    return message.with { cjpeg_writer_write_rows(w, row.baseAddress!, row.count, 1, $0, $1) }
                }
                guard status == 0 else { throw EncodeError.jpeg(message.text) }
            }
        }
    }

    /// Ends the file and returns its bytes.
    func finish() throws -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        var message = ShimMessage()
        switch writer {
        case .png(let w):
            guard message.with({ cpng_writer_finish(w, &out, &size, $0, $1) }) == 0, let bytes = out else {
                throw EncodeError.png(message.text)
            }
            defer { cpng_free(bytes) }
            return Array(UnsafeBufferPointer(start: bytes, count: size))
        case .jpeg(let w):
            guard message.with({ cjpeg_writer_finish(w, &out, &size, $0, $1) }) == 0, let bytes = out else {
                throw EncodeError.jpeg(message.text)
            }
            defer { cjpeg_free(bytes) }
            return Array(UnsafeBufferPointer(start: bytes, count: size))
        }
    }

    /// Encodes a whole buffer. With `options.palette`, a PNG whose pixels use at most
    /// 256 colours is written as an 8-bit palette image (tRNS carrying any alpha).
    static func encode(_ image: PixelBuffer, as format: ImageFormat, options: EncodeOptions) throws -> [UInt8] {
        if format == .png, options.palette, let (palette, indices) = Palettizer.palettize(image) {
            let encoder = try RowEncoder(format: .png, width: image.width, height: image.height, channels: 1,
                                         options: options, palette: palette)
            try indices.withUnsafeBufferPointer { try encoder.write($0.baseAddress!, count: image.height, bytesPerRow: image.width) }
            return try encoder.finish()
        }
        let encoder = try RowEncoder(format: format, width: image.width, height: image.height, channels: image.channels, options: options)
        try image.pixels.withUnsafeBufferPointer {
            try encoder.write($0.baseAddress!, count: image.height, bytesPerRow: image.bytesPerRow)
        }
        return try encoder.finish()
    }
}
