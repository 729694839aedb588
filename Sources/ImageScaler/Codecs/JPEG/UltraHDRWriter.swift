/// An UltraHDR JPEG assembled from an encoded base image and its resized gain map: the
/// map encoded as a JPEG (quality `mapQuality`: it is small, and a viewer multiplies the
/// base by it) carrying the source map's ISO 21496-1, XMP `hdrgm:` and ICC segments as
/// they were; the base given, after its leading APPn segments, the source base's ISO
/// 21496-1 version segment, its XMP (the output's own where it has one) with the
/// Container directory's GainMap length rewritten, and a new MPF index whose lengths and
/// offsets are the file's. Deterministic: no timestamps, fixed order.
enum UltraHDRWriter {
    static let mapQuality = 95

    static func attach(base: [UInt8], map: PixelBuffer, source: GainMap) throws -> [UInt8] {
        var options = EncodeOptions()
        options.quality = mapQuality
        options.subsampling = .s444
        let encodedMap = try ImageFormat.jpeg.encode(map.channels == 1 || map.channels == 3 ? map : map.droppingOpaqueAlpha(), options: options)
        let mapFile = insert(source.mapSegments.flatMap { $0 }, into: encodedMap)

        let found = JPEGSegments(base)
        guard found.complete else { throw EncodeError.unsupported(.jpeg) }
        // The output's own XMP (--keep-metadata) is the one rewritten; else the source's.
        let ownXMP = found.app(1, base, startingWith: UltraHDRReader.xmpSignature).first
        let xmp = ownXMP.map { Array(base[$0.payload].dropFirst(UltraHDRReader.xmpSignature.count)) } ?? source.baseXMP
        var stripped = base
        if let ownXMP { stripped.removeSubrange(ownXMP.extent) }
        var added = source.baseSegments.flatMap { $0 }
        if let xmp, let packet = withGainMapLength(xmp, mapFile.count) {
            let payload = UltraHDRReader.xmpSignature + packet
            if payload.count + 2 <= 0xFFFF { added += segment(0xE1, payload) }
        }
        let mpfLength = segment(0xE2, MPFDirectory(entries: [.init(attribute: 0, size: 0, offset: 0), .init(attribute: 0, size: 0, offset: 0)]).payload).count
        let at = leadingAPPEnd(stripped)
        let total = stripped.count + added.count + mpfLength
        // Offsets count from the MPF segment's TIFF header: marker, length, "MPF\0".
        let tiff = at + added.count + 4 + MPFDirectory.offsetBase
        let mpf = segment(0xE2, MPFDirectory(entries: [.init(attribute: 0x03_0000, size: total, offset: 0),
                                                       .init(attribute: 0, size: mapFile.count, offset: total - tiff)]).payload)
        var out = [UInt8]()
        out.reserveCapacity(total + mapFile.count)
        out += stripped[..<at]
        out += added
        out += mpf
        out += stripped[at...]
        return out + mapFile
    }

    /// A marker segment of `payload`.
    private static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let n = payload.count + 2
        return [0xFF, marker, UInt8(n >> 8), UInt8(n & 0xFF)] + payload
    }

    /// Where the APPn segments that open a JPEG end (after SOI when there are none).
    private static func leadingAPPEnd(_ jpeg: [UInt8]) -> Int {
        var end = 2
        for s in JPEGSegments(jpeg).segments {
            guard (0xE0...0xEF).contains(s.marker), s.extent.lowerBound == end else { break }
            end = s.extent.upperBound
        }
        return end
    }

    /// `segments` placed after a JPEG's leading APPn segments.
    private static func insert(_ segments: [UInt8], into jpeg: [UInt8]) -> [UInt8] {
        let at = leadingAPPEnd(jpeg)
        return Array(jpeg[..<at]) + segments + Array(jpeg[at...])
    }

    /// The XMP with the length of the Container directory's GainMap item set to `length`
    /// (the attribute added where it has none); nil where it has no such item.
    static func withGainMapLength(_ xmp: [UInt8], _ length: Int) -> [UInt8]? {
        let semantic = Array(#"Item:Semantic="GainMap""#.utf8), name = Array(#"Item:Length=""#.utf8)
        guard let s = find(semantic, in: xmp, from: 0) else { return xmp }
        // The element holding the semantic: from its '<' to its '>'.
        guard let open = xmp[..<s].lastIndex(of: UInt8(ascii: "<")), let close = xmp[s...].firstIndex(of: UInt8(ascii: ">")) else { return nil }
        let digits = Array(String(length).utf8)
        if let l = find(name, in: xmp, from: open), l < close {
            let v = l + name.count
            guard let end = xmp[v...].firstIndex(of: UInt8(ascii: "\"")), end < close else { return nil }
            return Array(xmp[..<v]) + digits + Array(xmp[end...])
        }
        return Array(xmp[..<s]) + Array(#"Item:Length=""#.utf8) + digits + Array("\" ".utf8) + Array(xmp[s...])
    }

    private static func find(_ needle: [UInt8], in hay: [UInt8], from: Int) -> Int? {
        JPEGSegments.find(needle, in: hay[min(from, hay.count)...])
    }
}
