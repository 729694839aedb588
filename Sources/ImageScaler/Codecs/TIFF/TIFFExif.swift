/// A TIFF page's EXIF as the TIFF structure every other format carries it in (a JPEG's
/// APP1 after "Exif\0\0", a PNG's eXIf), in the file's own byte order so that values are
/// copied byte for byte: an IFD0 of the page's descriptive tags (description, make,
/// model, orientation, resolution, software, date, artist, copyright) pointing at copies
/// of its Exif and GPS IFDs. A TIFF keeps these in the file itself, not in a block, so
/// this is rebuilt from its directories; nil when the page has neither an Exif nor a GPS
/// IFD. Left out: BigTIFF's 8-byte types (a classic structure cannot hold them), pointers
/// to further IFDs (interoperability, and maker notes, whose own offsets would point
/// nowhere once moved), values outside the file, and whatever would pass 64000 bytes,
/// which a JPEG's APP1 could not hold.
enum TIFFExif {
    private static let pageTags: Set<UInt16> = [270, 271, 272, 274, 282, 283, 296, 305, 306, 315, 33432]
    private static let exifPointer: UInt16 = 34665, gpsPointer: UInt16 = 34853
    private static let leftOut: Set<UInt16> = [37500, 40965]
    private static let maxBytes = 64000
    /// Bytes of one value of each classic TIFF type (IFD, 13, is a pointer: left out).
    private static let typeSizes: [UInt16: Int] = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8]

    private struct Entry {
        let tag: UInt16
        let type: UInt16
        let count: Int
        let value: [UInt8]
    }

    /// The block for the page whose directory starts at `ifd` in `data`.
    static func block(_ data: [UInt8], ifd: UInt64) -> [UInt8]? {
        guard data.count >= 16, data[0] == data[1], data[0] == 0x49 || data[0] == 0x4D else { return nil }
        let file = File(data: data, little: data[0] == 0x49)
        guard let magic = file.uint(2, 2), magic == 42 || magic == 43 else { return nil }
        let big = magic == 43
        guard let page = file.entries(at: ifd, big: big) else { return nil }
        func pointed(_ tag: UInt16) -> [Entry] {
            guard let p = page.first(where: { $0.tag == tag }), let offset = file.uint(p.valueAt, big ? 8 : 4),
                  let entries = file.entries(at: offset, big: big) else { return [] }
            return entries.compactMap { file.entry($0, big: big) }.filter { !leftOut.contains($0.tag) }
        }
        let exif = pointed(exifPointer), gps = pointed(gpsPointer)
        guard !exif.isEmpty || !gps.isEmpty else { return nil }
        let described = page.filter { pageTags.contains($0.tag) }.compactMap { file.entry($0, big: big) }
        return Writer(little: file.little).write(page: described, exif: exif, gps: gps)
    }

    /// An entry as stored: where its 4- or 8-byte value field is.
    private struct RawEntry {
        let tag: UInt16
        let type: UInt16
        let count: UInt64
        let valueAt: Int
    }

    private struct File {
        let data: [UInt8]
        let little: Bool

        /// The `n`-byte unsigned integer at `at`, in the file's order; nil outside it.
        func uint(_ at: Int, _ n: Int) -> UInt64? {
            guard at >= 0, n <= data.count, at <= data.count - n else { return nil }
            var v: UInt64 = 0
            for k in 0..<n { v |= UInt64(data[at + (little ? k : n - 1 - k)]) << (8 * UInt64(k)) }
            return v
        }

        func uint(_ at: UInt64, _ n: Int) -> UInt64? { at > UInt64(Int.max) ? nil : uint(Int(at), n) }

        /// A directory's entries (at most 4096 read); nil when it lies outside the file.
        func entries(at offset: UInt64, big: Bool) -> [RawEntry]? {
            guard offset <= UInt64(Int.max), let count = uint(Int(offset), big ? 8 : 2) else { return nil }
            let first = Int(offset) + (big ? 8 : 2), size = big ? 20 : 12
            var out: [RawEntry] = []
            for i in 0..<Int(min(count, 4096)) {
                let e = first + i * size
                guard let tag = uint(e, 2), let type = uint(e + 2, 2), let n = uint(e + 4, big ? 8 : 4) else { return nil }
                out.append(RawEntry(tag: UInt16(tag), type: UInt16(type), count: n, valueAt: e + (big ? 12 : 8)))
            }
            return out
        }

        /// An entry with its value's bytes, or nil for what is left out.
        func entry(_ raw: RawEntry, big: Bool) -> Entry? {
            guard let size = TIFFExif.typeSizes[raw.type], raw.count > 0, raw.count <= UInt64(TIFFExif.maxBytes / size) else { return nil }
            let bytes = Int(raw.count) * size
            var at = raw.valueAt
            if bytes > (big ? 8 : 4) {
                guard let offset = uint(raw.valueAt, big ? 8 : 4), offset <= UInt64(Int.max) else { return nil }
                at = Int(offset)
            }
            guard at <= data.count - bytes else { return nil }
            return Entry(tag: raw.tag, type: raw.type, count: Int(raw.count), value: Array(data[at..<(at + bytes)]))
        }
    }

    /// Lays the three directories out after the header, their long values after them.
    private struct Writer {
        let little: Bool
        private(set) var out: [UInt8] = []

        init(little: Bool) { self.little = little }

        mutating func put(_ v: Int, _ n: Int) {
            for k in 0..<n { out.append(UInt8(truncatingIfNeeded: v >> (8 * (little ? k : n - 1 - k)))) }
        }

        func write(page: [Entry], exif: [Entry], gps: [Entry]) -> [UInt8]? {
            var w = self
            var budget = TIFFExif.maxBytes
            // Values longer than 4 bytes go after the directories; past the budget, out.
            func kept(_ entries: [Entry]) -> [Entry] {
                entries.sorted { $0.tag < $1.tag }.filter { e in
                    let cost = 12 + (e.value.count > 4 ? (e.value.count + 1) & ~1 : 0)
                    guard cost <= budget else { return false }
                    budget -= cost
                    return true
                }
            }
            let exif = kept(exif), gps = kept(gps)
            var page = kept(page)
            func size(_ n: Int) -> Int { 2 + 12 * n + 4 }
            let pageCount = page.count + (exif.isEmpty ? 0 : 1) + (gps.isEmpty ? 0 : 1)
            let exifAt = 8 + size(pageCount), gpsAt = exifAt + (exif.isEmpty ? 0 : size(exif.count))
            var dataAt = gpsAt + (gps.isEmpty ? 0 : size(gps.count))
            let long = 4
            if !exif.isEmpty { page.append(Entry(tag: exifPointer, type: 4, count: 1, value: w.bytes(exifAt, long))) }
            if !gps.isEmpty { page.append(Entry(tag: gpsPointer, type: 4, count: 1, value: w.bytes(gpsAt, long))) }
            page.sort { $0.tag < $1.tag }
            w.out = little ? [0x49, 0x49, 42, 0] : [0x4D, 0x4D, 0, 42]
            w.put(8, 4)
            var tail: [UInt8] = []
            for directory in [page, exif, gps] where !directory.isEmpty {
                w.put(directory.count, 2)
                for e in directory {
                    w.put(Int(e.tag), 2)
                    w.put(Int(e.type), 2)
                    w.put(e.count, 4)
                    if e.value.count <= 4 {
                        w.out += e.value + [UInt8](repeating: 0, count: 4 - e.value.count)
                    } else {
                        w.put(dataAt, 4)
                        tail += e.value
                        if e.value.count % 2 == 1 { tail.append(0) }
                        dataAt += (e.value.count + 1) & ~1
                    }
                }
                w.put(0, 4)
            }
            return w.out + tail
        }

        /// `v` as `n` bytes in this block's order.
        func bytes(_ v: Int, _ n: Int) -> [UInt8] {
            var w = Writer(little: little)
            w.put(v, n)
            return w.out
        }
    }
}
