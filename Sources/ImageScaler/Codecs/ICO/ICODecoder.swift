/// An ICO as a `RowDecoder`: its largest image (the widest, then the deepest, then the
/// first), which must be a PNG entry, decoded by the PNG decoder; `info` names the
/// icon and counts its images. A BMP entry is refused by name.
struct ICODecoder: RowDecoder {
    private let entry: any RowDecoder
    let info: ImageInfo
    var capabilities: DecoderCapabilities { entry.capabilities }

    init(_ data: [UInt8]) throws {
        let entries = try ICOContainer.directory(data).get()
        let largest = entries.indices.max { a, b in
            let (x, y) = (entries[a], entries[b])
            return (x.width * x.height, x.bitCount, b) < (y.width * y.height, y.bitCount, a)
        }!
        let bytes = Array(data[entries[largest].range])
        guard bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) else {
            throw DecodeError.invalid(.ico, "image \(largest + 1) (\(entries[largest].width)x\(entries[largest].height)) is a BMP entry; only PNG entries are read")
        }
        entry = try ImageFormat.png.codec.decoder(bytes, DecodeOptions())
        var info = entry.info
        info.format = .ico
        info.images = entries.count
        info.primaryItem = largest + 1
        self.info = info
    }

    func decode(region: Rect?, shrink: Int, options: DecodeOptions,
                begin: (DecodedRegion) throws -> Void, rows: (RowChunk) throws -> Void) throws -> ImageInfo {
        var decoded = try entry.decode(region: region, shrink: shrink, options: options, begin: begin, rows: rows)
        decoded.format = .ico
        decoded.images = info.images
        return decoded
    }
}
