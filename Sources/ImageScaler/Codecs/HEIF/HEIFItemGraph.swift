/// The items of a HEIF file (HEIC, AVIF) and how they derive from one another, read
/// from its `meta` box by imgscale before libheif sees the file, so that what libheif
/// 1.15 follows without limit is checked first: from the primary item (and its alpha),
/// every derivation must reach coded items, with no cycle and no nesting beyond
/// grid -> coded, grid -> iden -> coded or iden -> coded; a grid's tiles must be as
/// many as its rows and columns and cover its output without a wholly unused row or
/// column; and no coded item may code a frame larger than its `ispe` claims (the SPS or
/// sequence header is what the decoder allocates). Item ids are the file's.
struct HEIFItemGraph {
    struct Item {
        var type: String
        /// Item references of each kind from this item, in the file's order.
        var references: [String: [UInt32]] = [:]
        /// Indexes into `properties` (0-based) of the properties associated with it.
        var properties: [Int] = []
    }

    let data: [UInt8]
    let primary: UInt32
    let items: [UInt32: Item]
    let properties: [ISOBox]
    /// Each item's bytes as extents of `data` (iloc), when they can be placed.
    let extents: [UInt32: [Range<Int>]]

    /// Reads the item structure; throws the first reason the file cannot be trusted.
    init(_ data: [UInt8], format: ImageFormat) throws {
        self.data = data
        func bad(_ why: String) -> DecodeError { DecodeError.invalid(format, why) }
        // A file cut short in its media data still has its structure to check; what is
        // missing there, libheif reports in its own words.
        let top = ISOBox.children(of: data, in: 0 ..< data.count, partial: true) ?? []
        guard let meta = top.first(where: { $0.type == "meta" }) else { throw bad("no whole meta box") }
        guard meta.payload.count >= 4, let boxes = ISOBox.children(of: data, in: meta.payload.lowerBound + 4 ..< meta.payload.upperBound) else {
            throw bad("a box inside meta runs past its end")
        }
        func box(_ type: String) -> ISOBox? { boxes.first { $0.type == type } }

        guard let pitm = box("pitm") else { throw bad("no primary item (pitm)") }
        var c = ByteCursor(data, pitm.payload)
        let pitmVersion = c.u8()
        c.skip(3)
        primary = UInt32(pitmVersion == 0 ? c.u16() : c.u32())
        guard !c.overran else { throw bad("pitm is cut short") }

        var items: [UInt32: Item] = [:]
        if let iinf = box("iinf") {
            c = ByteCursor(data, iinf.payload)
            let version = c.u8()
            c.skip(3)
            _ = version == 0 ? c.u16() : c.u32()
            guard !c.overran, let entries = ISOBox.children(of: data, in: c.at ..< iinf.payload.upperBound) else {
                throw bad("iinf does not parse")
            }
            for infe in entries where infe.type == "infe" {
                var e = ByteCursor(data, infe.payload)
                let v = e.u8()
                e.skip(3)
                guard v >= 2 else { continue }
                let id = UInt32(v == 2 ? e.u16() : e.u32())
                e.skip(2)
                let type = e.fourCC()
                guard !e.overran else { throw bad("an infe box is cut short") }
                items[id] = Item(type: type)
            }
        }
        if let iref = box("iref") {
            c = ByteCursor(data, iref.payload)
            let version = c.u8()
            c.skip(3)
            guard !c.overran, let refs = ISOBox.children(of: data, in: c.at ..< iref.payload.upperBound) else {
                throw bad("iref does not parse")
            }
            for ref in refs {
                var r = ByteCursor(data, ref.payload)
                let width = version == 0 ? 2 : 4
                let from = UInt32(r.uint(width))
                let count = r.u16()
                var to: [UInt32] = []
                for _ in 0..<count { to.append(UInt32(r.uint(width))) }
                guard !r.overran else { throw bad("an iref \(ref.type) box is cut short") }
                items[from, default: Item(type: "")].references[ref.type, default: []] += to
            }
        }
        var properties: [ISOBox] = []
        if let iprp = box("iprp"), let inside = ISOBox.children(of: data, in: iprp.payload) {
            if let ipco = inside.first(where: { $0.type == "ipco" }) {
                guard let list = ISOBox.children(of: data, in: ipco.payload) else { throw bad("ipco does not parse") }
                properties = list
            }
            for ipma in inside where ipma.type == "ipma" {
                c = ByteCursor(data, ipma.payload)
                let version = c.u8()
                let flags = c.uint(3)
                let count = c.u32()
                for _ in 0..<count {
                    guard !c.overran else { break }
                    let id = UInt32(version < 1 ? c.u16() : c.u32())
                    let n = c.u8()
                    for _ in 0..<n {
                        let index = flags & 1 != 0 ? c.u16() & 0x7FFF : c.u8() & 0x7F
                        if index > 0 { items[id, default: Item(type: "")].properties.append(index - 1) }
                    }
                }
                guard !c.overran else { throw bad("ipma is cut short") }
            }
        }
        self.items = items
        self.properties = properties
        extents = HEIFItemGraph.locations(data, iloc: box("iloc"), idat: box("idat"))
    }

    /// Where each item's bytes lie: iloc's extents (construction method 0, in the file,
    /// or 1, in idat), each range checked to lie inside the file.
    private static func locations(_ data: [UInt8], iloc: ISOBox?, idat: ISOBox?) -> [UInt32: [Range<Int>]] {
        guard let iloc else { return [:] }
        var c = ByteCursor(data, iloc.payload)
        let version = c.u8()
        c.skip(3)
        let sizes = c.u8(), more = c.u8()
        let offsetSize = sizes >> 4, lengthSize = sizes & 15, baseSize = more >> 4, indexSize = version >= 1 ? more & 15 : 0
        let count = version < 2 ? c.u16() : c.u32()
        var found: [UInt32: [Range<Int>]] = [:]
        for _ in 0..<count {
            guard !c.overran else { break }
            let id = UInt32(version < 2 ? c.u16() : c.u32())
            let method = version >= 1 ? c.u16() & 15 : 0
            c.skip(2)
            let base = Int(clamping: c.uint(baseSize))
            let n = c.u16()
            var ranges: [Range<Int>] = []
            var placed = method == 0 || (method == 1 && idat != nil)
            for _ in 0..<n {
                c.skip(indexSize)
                let offset = Int(clamping: c.uint(offsetSize)), length = Int(clamping: c.uint(lengthSize))
                let origin = method == 1 ? idat?.payload.lowerBound ?? 0 : 0
                let limit = method == 1 ? idat?.payload.upperBound ?? 0 : data.count
                let (start, o1) = origin.addingReportingOverflow(base)
                let (first, o2) = start.addingReportingOverflow(offset)
                // A length of 0 means "to the end" of what holds it.
                let end = length == 0 ? limit : first.addingReportingOverflow(length).partialValue
                if o1 || o2 || first < origin || end < first || end > limit { placed = false } else { ranges.append(first ..< end) }
            }
            if placed && !c.overran { found[id] = ranges }
        }
        return found
    }

    /// The first property of `type` associated with `id`.
    func property(_ type: String, of id: UInt32) -> ISOBox? {
        items[id]?.properties.lazy.filter { $0 < properties.count }.map { properties[$0] }.first { $0.type == type }
    }

    /// `ispe`'s width and height for `id`.
    func spatialExtent(of id: UInt32) -> Size? {
        guard let ispe = property("ispe", of: id) else { return nil }
        var c = ByteCursor(data, ispe.payload)
        c.skip(4)
        let w = c.u32(), h = c.u32()
        return c.overran ? nil : Size(width: w, height: h)
    }

    /// The item's bytes, its extents joined (nil when iloc does not place it).
    func bytes(of id: UInt32) -> [UInt8]? {
        guard let ranges = extents[id] else { return nil }
        return ranges.reduce(into: [UInt8]()) { $0 += data[$1] }
    }

    static let coded: Set<String> = ["hvc1", "av01"]

    /// Checks what libheif will follow from the primary item; `format` names the file
    /// in messages.
    func validate(as format: ImageFormat) throws {
        func refuse(_ why: String) -> DecodeError { DecodeError.invalid(format, why) }
        guard items[primary] != nil else { throw refuse("the primary item \(primary) is not among the items") }
        var roots = [primary]
        // Alpha and depth planes of the primary image are decoded with it.
        for (id, item) in items.sorted(by: { $0.key < $1.key }) where item.references["auxl"]?.contains(primary) == true && id != primary {
            roots.append(id)
        }
        for root in roots { try check(root, depth: 0, refuse) }
    }

    /// `depth` 0 is the image itself; a grid's tiles and an iden's source are 1, and
    /// an iden tile's source 2, where only coded items may stand.
    private func check(_ id: UInt32, depth: Int, inGrid: Bool = false, _ refuse: (String) -> DecodeError) throws {
        guard let item = items[id] else { throw refuse("item \(id) is referenced but not declared") }
        let sources = item.references["dimg"] ?? []
        switch item.type {
        case _ where HEIFItemGraph.coded.contains(item.type):
            try checkCodedSize(id, item, refuse)
        case "grid":
            guard depth == 0 else { throw refuse("item \(id): a grid inside a derivation (only grid -> coded or iden -> coded is read)") }
            try checkGrid(id, tiles: sources, refuse)
            for tile in sources { try check(tile, depth: 1, inGrid: true, refuse) }
        case "iden":
            guard depth == 0 || (depth == 1 && inGrid) else { throw refuse("item \(id): an iden inside a derivation of a derivation") }
            guard sources.count == 1 else { throw refuse("item \(id): an iden must derive from exactly one item, not \(sources.count)") }
            guard let source = items[sources[0]], HEIFItemGraph.coded.contains(source.type) else {
                throw refuse("item \(id): an iden must derive from a coded image, not from item \(sources[0]) (\(items[sources[0]]?.type ?? "undeclared"))")
            }
            try check(sources[0], depth: depth + 1, refuse)
        case "iovl":
            guard depth == 0 else { throw refuse("item \(id): an overlay inside a derivation") }
            for source in sources {
                guard let s = items[source], HEIFItemGraph.coded.contains(s.type) else {
                    throw refuse("item \(id): an overlay must combine coded images, not item \(source)")
                }
                try check(source, depth: 1, refuse)
            }
        default:
            // libheif refuses what it cannot decode with its own message.
            break
        }
    }

    /// The grid's rows and columns against its tiles, and the tiles against its output.
    private func checkGrid(_ id: UInt32, tiles: [UInt32], _ refuse: (String) -> DecodeError) throws {
        guard let body = bytes(of: id) else { throw refuse("grid item \(id) has no data in iloc") }
        var c = ByteCursor(body, 0 ..< body.count)
        c.skip(1)
        let flags = c.u8()
        let rows = c.u8() + 1, columns = c.u8() + 1
        let fieldBytes = flags & 1 != 0 ? 4 : 2
        let width = Int(c.uint(fieldBytes)), height = Int(c.uint(fieldBytes))
        guard !c.overran else { throw refuse("grid item \(id): its description is cut short") }
        guard tiles.count == rows * columns else {
            throw refuse("grid item \(id): \(rows)x\(columns) tiles declared, \(tiles.count) referenced")
        }
        var tileSize: Size? = nil
        for tile in tiles {
            guard let s = spatialExtent(of: tile) ?? spatialExtent(of: items[tile]?.references["dimg"]?.first ?? 0) else {
                throw refuse("grid item \(id): tile \(tile) has no size (ispe)")
            }
            if let t = tileSize, t != s { throw refuse("grid item \(id): tiles of different sizes (\(t) and \(s))") }
            tileSize = s
        }
        guard let t = tileSize, t.width > 0, t.height > 0 else { throw refuse("grid item \(id): empty tiles") }
        guard columns * t.width >= width, rows * t.height >= height,
              (columns - 1) * t.width < width, (rows - 1) * t.height < height else {
            throw refuse("grid item \(id): \(rows)x\(columns) tiles of \(t) do not fit its \(width)x\(height) output")
        }
    }

    /// The frame the item's bitstream codes must not exceed its ispe by more than a
    /// coding block's padding (64 luma samples a side).
    private func checkCodedSize(_ id: UInt32, _ item: Item, _ refuse: (String) -> DecodeError) throws {
        var coded: [Size] = []
        let body = bytes(of: id).map { $0[...] } ?? []
        if item.type == "hvc1" {
            guard let hvcC = property("hvcC", of: id), hvcC.payload.count >= 23 else { throw refuse("item \(id): HEVC without its configuration (hvcC)") }
            var c = ByteCursor(data, hvcC.payload)
            c.skip(21)
            let lengthBytes = c.u8() & 3 + 1
            let arrays = c.u8()
            var nals: [[UInt8]] = []
            for _ in 0..<arrays {
                let type = c.u8() & 0x3F
                let count = c.u16()
                for _ in 0..<count {
                    let n = c.u16()
                    guard !c.overran, n <= c.end - c.at else { throw refuse("item \(id): hvcC is cut short") }
                    if type == 33 { nals.append(Array(data[c.at ..< c.at + n])) }
                    c.skip(n)
                }
            }
            nals += CodedSize.hevcSPSs(inPrefixed: body, lengthBytes: lengthBytes)
            for sps in nals {
                guard let s = CodedSize.hevc(sps: sps) else { throw refuse("item \(id): an HEVC sequence parameter set does not parse") }
                coded.append(s)
            }
        } else {
            if let av1C = property("av1C", of: id), av1C.payload.count > 4 {
                guard let s = CodedSize.av1(obus: data[av1C.payload.lowerBound + 4 ..< av1C.payload.upperBound]) else {
                    throw refuse("item \(id): av1C's configuration OBUs do not parse")
                }
                coded += s
            }
            guard let s = CodedSize.av1(obus: body) else { throw refuse("item \(id): its AV1 OBUs do not parse") }
            coded += s
        }
        guard let claimed = spatialExtent(of: id) else {
            if let s = coded.first { throw refuse("item \(id) codes \(s) but declares no size (ispe)") }
            return
        }
        for s in coded where s.width > claimed.width + 64 || s.height > claimed.height + 64 {
            throw refuse("item \(id) codes a \(s) frame but declares \(claimed) (ispe)")
        }
    }
}
