/// Whether a HEIF's primary image is monochrome (AV1 `mono_chrome`, HEVC
/// `chroma_format_idc` 0) declared limited-range by an `nclx` colour box
/// (`full_range_flag` 0). libheif 1.15 copies such a Y
/// plane into R, G and B as it is, so black comes out at 16 and white at 235 (at 8 bits);
/// avifdec, browsers and the specification stretch it to the full range, and so does the
/// shim when this says so. A colour image is left alone: libheif converts its range;
/// without an `nclx` box the range is the bitstream's, which is not read here, so the
/// plane is left as libheif gives it.
enum HEIFGrayRange {
    static func isLimitedMonochrome(_ graph: HEIFItemGraph) -> Bool {
        let primary = graph.primary
        // A grid's tiles carry the coded configuration; its colour box may sit on either.
        let coded = graph.items[primary]?.type == "grid" ? graph.items[primary]?.references["dimg"]?.first ?? primary : primary
        guard monochrome(graph, coded) else { return false }
        for id in [primary, coded] {
            if let full = fullRange(graph, id) { return !full }
        }
        return false
    }

    private static func monochrome(_ graph: HEIFItemGraph, _ id: UInt32) -> Bool {
        // av1C: marker and version, profile and level, then tier, high_bitdepth,
        // twelve_bit, mono_chrome (0x10), ...
        if let av1C = graph.property("av1C", of: id), av1C.payload.count >= 3 {
            return graph.data[av1C.payload.lowerBound + 2] & 0x10 != 0
        }
        // hvcC: byte 16 holds chroma_format_idc in its low two bits.
        if let hvcC = graph.property("hvcC", of: id), hvcC.payload.count >= 17 {
            return graph.data[hvcC.payload.lowerBound + 16] & 3 == 0
        }
        return false
    }

    /// `full_range_flag` of the item's `nclx` colour box; nil when it has none.
    private static func fullRange(_ graph: HEIFItemGraph, _ id: UInt32) -> Bool? {
        guard let item = graph.items[id] else { return nil }
        for index in item.properties where index < graph.properties.count {
            let box = graph.properties[index]
            guard box.type == "colr", box.payload.count >= 11 else { continue }
            let at = box.payload.lowerBound
            guard graph.data[at ..< at + 4].elementsEqual("nclx".utf8) else { continue }
            return graph.data[at + 10] & 0x80 != 0
        }
        return nil
    }
}
