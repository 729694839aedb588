/// The Multi-Picture Format's index (CIPA DC-007) as an APP2 `MPF\0` segment holds it: a
/// TIFF structure whose MP Entry tag lists each image's attribute, length and offset,
/// the offsets counted from the TIFF header (the byte after `MPF\0`), the first image's
/// being 0. Read from hostile bytes with every field bounded; written for two images.
struct MPFDirectory: Equatable {
    struct Entry: Equatable {
        let attribute: UInt32
        let size: Int
        let offset: Int
    }
    let entries: [Entry]

    static let signature: [UInt8] = Array("MPF".utf8) + [0]
    /// More images than this in one file are not read: a gain map is the second, and a
    /// camera's previews a few more.
    static let maxImages = 16

    enum Problem: Error, Equatable {
        case malformed(String)
        case tooManyImages(Int)
    }

    /// The directory in `payload` (the segment's payload, `MPF\0` first).
    init(_ data: [UInt8], payload: Range<Int>) throws {
        let tiff = payload.lowerBound + MPFDirectory.signature.count
        guard payload.count >= MPFDirectory.signature.count + 8 else { throw Problem.malformed("its index is cut short") }
        let little: Bool
        switch (data[tiff], data[tiff + 1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: throw Problem.malformed("its index has no TIFF byte order")
        }
        func read(_ at: Int, _ bytes: Int) -> Int? {
            guard at >= tiff, at + bytes <= payload.upperBound else { return nil }
            var v = 0
            for i in 0..<bytes { v |= Int(data[at + i]) << (8 * (little ? i : bytes - 1 - i)) }
            return v
        }
        guard let ifd = read(tiff + 4, 4), let count = read(tiff + ifd, 2), count <= 64 else {
            throw Problem.malformed("its index points outside its segment")
        }
        var images: Int? = nil, list: (count: Int, offset: Int)? = nil
        for i in 0..<count {
            let at = tiff + ifd + 2 + 12 * i
            guard let tag = read(at, 2), let n = read(at + 4, 4), let value = read(at + 8, 4) else {
                throw Problem.malformed("its index is cut short")
            }
            switch tag {
            case 0xB001: images = value
            case 0xB002: list = (n, value)
            default: break
            }
        }
        guard let list, list.count % 16 == 0, list.count > 0 else { throw Problem.malformed("it lists no images") }
        let listed = list.count / 16
        if let images, images != listed { throw Problem.malformed("it counts \(images) images and lists \(listed)") }
        guard listed <= MPFDirectory.maxImages else { throw Problem.tooManyImages(listed) }
        var entries: [Entry] = []
        for i in 0..<listed {
            let at = tiff + list.offset + 16 * i
            guard let attribute = read(at, 4), let size = read(at + 4, 4), let offset = read(at + 8, 4) else {
                throw Problem.malformed("its image list points outside its segment")
            }
            entries.append(Entry(attribute: UInt32(attribute), size: size, offset: offset))
        }
        self.entries = entries
    }

    init(entries: [Entry]) { self.entries = entries }

    /// The segment's payload, big-endian: version 0100, the count, the entries.
    var payload: [UInt8] {
        func be(_ v: Int, _ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: v >> (8 * (n - 1 - $0))) } }
        let fields = 3, ifd = 8, listOffset = ifd + 2 + 12 * fields + 4
        var p = MPFDirectory.signature + [0x4D, 0x4D, 0x00, 0x2A] + be(ifd, 4) + be(fields, 2)
        p += be(0xB000, 2) + be(7, 2) + be(4, 4) + Array("0100".utf8)
        p += be(0xB001, 2) + be(4, 2) + be(1, 4) + be(entries.count, 4)
        p += be(0xB002, 2) + be(7, 2) + be(16 * entries.count, 4) + be(listOffset, 4)
        p += be(0, 4)
        for e in entries { p += be(Int(e.attribute), 4) + be(e.size, 4) + be(e.offset, 4) + be(0, 4) }
        return p
    }

    /// Where the offsets count from, within the segment's payload.
    static let offsetBase = signature.count
}
