#if canImport(Glibc)
import Glibc
#endif
import CSVGShim

/// SVG as a `RowDecoder`: the document drawn whole at `info.size`, straight-alpha RGBA,
/// top-left origin, from plain SVG or gzip-compressed SVGZ. Made at the document's own size (its width and height rounded up,
/// as rsvg-convert does); `drawn(at:)` gives the same document drawn at another size,
/// which is how every output is made at its own scale.
struct SVGDecoder: RowDecoder {
    let document: SVGDocument
    let info: ImageInfo
    let capabilities = DecoderCapabilities(drawsAtAnySize: true)

    /// What librsvg holds per element of the tree it builds: about 1.8 KB, measured on
    /// documents of 100,000 and 300,000 rects (RSS over the file's size).
    static let bytesPerElement = 2048

    /// The elements a document starts, counted as the `<` that open a tag: done before
    /// librsvg parses, so a document of millions of elements is refused by the memory
    /// budget (at about 250,000 within the default 512 MiB) instead of exhausting it.
    static func elementCount(_ data: [UInt8]) -> Int {
        var count = 0
        data.withUnsafeBufferPointer { d in
            guard d.count > 1 else { return }
            for i in 0..<(d.count - 1) where d[i] == 0x3C {
                let c = d[i + 1] | 0x20
                if c >= 0x61 && c <= 0x7A { count += 1 }
            }
        }
        return count
    }

    private let elements: Int
    /// What librsvg holds for the images inside the document (`SVGEmbeddedImages`).
    private let embedded: Int

    /// An `.svgz` (gzip) inflated, at most an eighth of the memory budget (64 MiB at the
    /// default), so a bomb stops there; the result goes through the same checks as the
    /// same document given plain. Anything else as it is.
    static func inflated(_ data: [UInt8], options: DecodeOptions) throws -> [UInt8] {
        guard data.starts(with: [0x1F, 0x8B]) else { return data }
        let limit = max(options.maxMemory / 8, 1 << 20)
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        var message = ShimMessage()
        let status = data.withUnsafeBufferPointer { d in message.with { csvg_gunzip(d.baseAddress, d.count, limit, &out, &size, $0, $1) } }
        if status == -2 {
            throw DecodeError.invalid(.svg, "the SVGZ inflates past \(limit >> 20) MiB (an eighth of --max-memory), refused as a gzip bomb")
        }
        guard status == 0, let bytes = out else { throw DecodeError.invalid(.svg, "damaged SVGZ: " + message.text) }
        defer { free(bytes) }
        let plain = Array(UnsafeBufferPointer(start: bytes, count: size))
        // Gzip inside gzip is not SVG (librsvg would inflate it again, past the bound).
        guard !plain.starts(with: [0x1F, 0x8B]), SVGDocument.looksLikeSVG(plain.prefix(64)) else { throw DecodeError.invalid(.svg, "gzip-compressed, but what it holds is not SVG") }
        return plain
    }

    init(_ data: [UInt8], options: DecodeOptions) throws {
        let data = try SVGSelfReference.resolved(try SVGDecoder.inflated(data, options: options), fileName: options.fileName,
                                                 maxBytes: max(options.maxMemory / 8, 1 << 20))
        let elements = SVGDecoder.elementCount(data)
        let embedded = try SVGEmbeddedImages(data, options: options).bytes
        // The tree is built as it is parsed, and the images inside it decoded as it is
        // drawn, so their memory is checked first.
        let held = data.count.addingReportingOverflow(elements * SVGDecoder.bytesPerElement).partialValue
        try MemoryBudget.check(min(held.addingReportingOverflow(embedded).partialValue, Int.max / 2), budget: options.maxMemory)
        let document = try SVGDocument(try SVGCost.check(data), density: options.density)
        let size = Size(width: Int(min(ceil(document.width), 1e9)), height: Int(min(ceil(document.height), 1e9)))
        self.init(document, size: size, elements: elements, embedded: embedded)
    }

    private init(_ document: SVGDocument, size: Size, elements: Int, embedded: Int) {
        self.document = document
        self.elements = elements
        self.embedded = embedded
        // The parsed tree, its embedded images, cairo's surface and the RGBA rows made from it.
        let bytes = Double(size.width) * Double(size.height) * 8 + Double(elements * SVGDecoder.bytesPerElement) + Double(embedded)
        info = ImageInfo(format: .svg, size: size, channels: 4, bitDepth: 8, colorModel: .rgba, orientation: .up,
                         interlaced: false, iccProfile: nil, exif: nil, xmp: nil, frames: 1,
                         workingBytes: bytes >= Double(Int.max / 4) ? Int.max / 4 : Int(bytes))
    }

    func drawn(at size: Size) throws -> (any RowDecoder)? { SVGDecoder(document, size: size, elements: elements, embedded: embedded) }

    func decode(region: Rect?, shrink: Int, options: DecodeOptions,
                begin: (DecodedRegion) throws -> Void, rows: (RowChunk) throws -> Void) throws -> ImageInfo {
        try options.check(info.size)
        let (width, height) = (info.size.width, info.size.height)
        var pixels = PixelBuffer.samples(count: width * height * 4)
        try document.draw(info.size, into: &pixels)
        try begin(DecodedRegion(rect: Rect(size: info.size), channels: 4))
        let rowBytes = width * 4
        try pixels.withUnsafeBufferPointer { try RowChunk.handOver($0, height: height, bytesPerRow: rowBytes, to: rows) }
        return info
    }
}
