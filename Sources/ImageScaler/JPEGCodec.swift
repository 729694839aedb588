import CJPEGShim

/// JPEG through libjpeg-turbo's jpeglib.h API with libjpeg's defaults (ISLOW DCT, fancy
/// upsampling), so a full-size decode matches `djpeg` byte for byte. Gray stays one
/// channel; YCbCr and RGB come out RGB; CMYK and YCCK are converted to RGB here.
public enum JPEGCodec {
    public static func info(_ data: [UInt8]) throws -> ImageInfo {
        try data.withUnsafeBufferPointer { buf in
            var raw = cjpeg_info()
            var message = ShimMessage()
            guard let reader = message.with({ cjpeg_reader_open(buf.baseAddress, buf.count, &raw, $0, $1) }) else {
                throw DecodeError.jpeg(message.text)
            }
            defer { cjpeg_reader_close(reader) }
            return makeInfo(raw)
        }
    }

    /// Decodes at 1/`options.shrink` size (libjpeg's DCT scaling, the cheapest way to a
    /// thumbnail: most of the IDCT work is skipped).
    public static func decode(_ data: [UInt8], options: DecodeOptions = DecodeOptions()) throws -> (PixelBuffer, ImageInfo) {
        let (image, _, info) = try decode(data, options: options, region: nil)
        return (image, info)
    }

    /// Decodes at 1/`options.shrink` size, and when `region` (in the shrunk image's
    /// stored pixel coordinates) is given, only the part of the image covering it: rows
    /// above and below are skipped and columns outside cropped, so their IDCT,
    /// upsampling and colour conversion never run. Returns the decoded pixels and where
    /// they sit in the shrunk image; that rect contains `region` (columns start at an
    /// iMCU boundary), and its pixels equal the same pixels of a whole decode.
    public static func decode(_ data: [UInt8], options: DecodeOptions, region: Rect?) throws -> (PixelBuffer, Rect, ImageInfo) {
        try data.withUnsafeBufferPointer { buf in
            var raw = cjpeg_info()
            var message = ShimMessage()
            guard let reader = message.with({ cjpeg_reader_open(buf.baseAddress, buf.count, &raw, $0, $1) }) else {
                throw DecodeError.jpeg(message.text)
            }
            defer { cjpeg_reader_close(reader) }
            let info = makeInfo(raw)
            try options.check(info.size)
            var output = cjpeg_output()
            let shrink = [1, 2, 4, 8].contains(options.shrink) ? options.shrink : 1
            let cropX = UInt32(region?.x ?? 0), cropW = UInt32(region?.width ?? 0)
            guard message.with({ cjpeg_reader_start(reader, Int32(shrink), cropX, cropW, &output, $0, $1) }) == 0 else {
                throw DecodeError.jpeg(message.text)
            }
            let width = Int(output.width), channels = Int(output.channels)
            let fullHeight = Int(output.height)
            let firstRow = min(max(region?.y ?? 0, 0), fullHeight - 1)
            let endRow = min(region.map { $0.maxY } ?? fullHeight, fullHeight)
            let height = endRow - firstRow
            var skipped = 0
            while skipped < firstRow {
                let n = message.with { cjpeg_reader_skip(reader, UInt32(firstRow - skipped), $0, $1) }
                guard n > 0 else { throw DecodeError.jpeg(n < 0 ? message.text : "cannot skip scanlines") }
                skipped += Int(n)
            }
            var pixels = PixelBuffer.samples(count: width * height * channels)
            let stride = width * channels
            var row = 0
            try pixels.withUnsafeMutableBufferPointer { out in
                while row < height {
                    let n = message.with {
                        cjpeg_reader_read(reader, out.baseAddress! + row * stride, stride, UInt32(height - row), $0, $1)
                    }
                    guard n > 0 else { throw DecodeError.jpeg(n < 0 ? message.text : "no scanlines returned") }
                    row += Int(n)
                }
            }
            guard message.with({ cjpeg_reader_finish(reader, $0, $1) }) == 0 else {
                throw DecodeError.jpeg(message.text)
            }
            let image: PixelBuffer
            if channels == 4 {
                image = cmykToRGB(pixels, width: width, height: height, inverted: raw.adobe_inverted != 0)
            } else {
                image = PixelBuffer(width: width, height: height, channels: channels, pixels: pixels)
            }
            return (image, Rect(x: Int(output.x_offset), y: firstRow, width: width, height: height), info)
        }
    }

    /// Photoshop (which writes the Adobe APP14 marker) stores CMYK inverted, 255 = no
    /// ink; other writers store it plainly. Either way the ink fraction multiplies out.
    static func cmykToRGB(_ cmyk: [UInt8], width: Int, height: Int, inverted: Bool) -> PixelBuffer {
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        cmyk.withUnsafeBufferPointer { src in
            rgb.withUnsafeMutableBufferPointer { dst in
                for i in 0..<(width * height) {
                    var c = Int(src[i * 4]), m = Int(src[i * 4 + 1]), y = Int(src[i * 4 + 2]), k = Int(src[i * 4 + 3])
                    if !inverted { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k }
                    // (a * b + 127) / 255 rounds the product of two 8-bit fractions to nearest.
                    dst[i * 3] = UInt8((c * k + 127) / 255)
                    dst[i * 3 + 1] = UInt8((m * k + 127) / 255)
                    dst[i * 3 + 2] = UInt8((y * k + 127) / 255)
                }
            }
        }
        return PixelBuffer(width: width, height: height, channels: 3, pixels: rgb)
    }

    private static func makeInfo(_ raw: cjpeg_info) -> ImageInfo {
        var exif: [UInt8]? = nil
        if let p = raw.exif, raw.exif_length > 0 {
            exif = Array(UnsafeBufferPointer(start: p, count: Int(raw.exif_length)))
        }
        var icc: [UInt8]? = nil
        if let p = raw.icc, raw.icc_length > 0 {
            icc = Array(UnsafeBufferPointer(start: p, count: Int(raw.icc_length)))
        }
        var orientation = Orientation.up
        if let exif, case .success(let o) = ExifReader.orientation(in: exif) { orientation = o }
        let model: String
        switch Int(raw.color) {
        case Int(CJPEG_COLOR_GRAY): model = "gray"
        case Int(CJPEG_COLOR_CMYK): model = "cmyk"
        default: model = "rgb"
        }
        return ImageInfo(format: .jpeg, size: Size(width: Int(raw.width), height: Int(raw.height)),
                         channels: model == "gray" ? 1 : 3, bitDepth: 8, colorModel: model,
                         orientation: orientation, interlaced: raw.progressive != 0, iccProfile: icc, exif: exif)
    }

    /// Encodes gray or RGB; callers flatten alpha first (see `Flattener`).
    public static func encode(_ image: PixelBuffer, quality: Int = 85, progressive: Bool = false,
                              subsampling: Int = 420, iccProfile: [UInt8]? = nil) throws -> [UInt8] {
        precondition(image.channels == 1 || image.channels == 3, "flatten alpha before JPEG encoding")
        var options = cjpeg_encode_options(quality: Int32(quality), progressive: progressive ? 1 : 0,
                                           subsampling: Int32(subsampling))
        var out: UnsafeMutablePointer<UInt8>? = nil
        var outSize = 0
        var message = ShimMessage()
        let icc = iccProfile ?? []
        let status = image.pixels.withUnsafeBufferPointer { px in
            icc.withUnsafeBufferPointer { iccBuf in
                message.with {
                    cjpeg_encode(px.baseAddress, UInt32(image.width), UInt32(image.height), Int32(image.channels),
                                 image.bytesPerRow, &options, iccBuf.baseAddress, UInt32(iccBuf.count),
                                 &out, &outSize, $0, $1)
                }
            }
        }
        guard status == 0, let bytes = out else { throw EncodeError.jpeg(message.text) }
        defer { cjpeg_free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: outSize))
    }
}
