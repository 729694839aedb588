/// The ICO container (Microsoft's ICONDIR): a 6-byte header (0, type 1, count), one
/// 16-byte directory entry per image (width and height in a byte each, 0 for 256;
/// colour count 0; planes 1; the entry's bits per pixel; its length and offset, little
/// endian), then the entries' bytes in directory order.
enum ICOContainer {
    /// The most entries a file may list (each needs a distinct size in practice).
    static let maxEntries = 256

    static func matches(_ head: ArraySlice<UInt8>) -> Bool {
        let h = Array(head.prefix(6))
        return h.count == 6 && h[0] == 0 && h[1] == 0 && h[2] == 1 && h[3] == 0 && (h[4] != 0 || h[5] != 0)
    }

    /// One file holding `entries` in the order given.
    static func file(_ entries: [(size: Size, bytes: [UInt8])]) throws -> [UInt8] {
        guard !entries.isEmpty, entries.count <= maxEntries else { throw EncodeError.unsupported(.ico) }
        var out: [UInt8] = [0, 0, 1, 0]
        func le16(_ v: Int) { out += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func le32(_ v: Int) { out += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)] }
        le16(entries.count)
        var offset = 6 + 16 * entries.count
        for (size, bytes) in entries {
            guard (1...256).contains(size.width), (1...256).contains(size.height), offset + bytes.count <= Int(UInt32.max) else {
                throw EncodeError.unsupported(.ico)
            }
            out += [UInt8(size.width & 0xFF), UInt8(size.height & 0xFF), 0, 0]
            le16(1)
            le16(bitsPerPixel(bytes))
            le32(bytes.count)
            le32(offset)
            offset += bytes.count
        }
        for (_, bytes) in entries { out += bytes }
        return out
    }

    /// One file holding every entry of `files`, in order: each entry's bytes unchanged.
    static func merge(_ files: [[UInt8]]) throws -> [UInt8] {
        var entries: [(size: Size, bytes: [UInt8])] = []
        for file in files {
            for e in try directory(file).get() { entries.append((Size(width: e.width, height: e.height), Array(file[e.range]))) }
        }
        return try ICOContainer.file(entries)
    }

    /// A PNG entry's bits per pixel, from its IHDR (depth times channels, a palette's
    /// index depth), as Pillow and icotool state them; 32 for anything else.
    static func bitsPerPixel(_ png: [UInt8]) -> Int {
        guard png.count > 25, png.starts(with: [0x89, 0x50, 0x4E, 0x47]) else { return 32 }
        let depth = Int(png[24])
        switch png[25] {
        case 0, 3: return depth
        case 2: return 3 * depth
        case 4: return 2 * depth
        default: return 4 * depth
        }
    }

    /// One directory entry as the file states it.
    struct Entry {
        let width: Int, height: Int, bitCount: Int
        let range: Range<Int>
    }

    /// The directory, every entry inside the file; nil with why when it is not.
    static func directory(_ data: [UInt8]) -> Result<[Entry], DecodeError> {
        func le16(_ i: Int) -> Int { Int(data[i]) | Int(data[i + 1]) << 8 }
        func le32(_ i: Int) -> Int { le16(i) | le16(i + 2) << 16 }
        guard data.count >= 6 else { return .failure(.invalid(.ico, "the file ends inside its header")) }
        let count = le16(4)
        guard count >= 1, count <= maxEntries else { return .failure(.invalid(.ico, "the directory lists \(count) images")) }
        guard data.count >= 6 + 16 * count else { return .failure(.invalid(.ico, "the file ends inside its directory")) }
        var entries: [Entry] = []
        for i in 0..<count {
            let e = 6 + 16 * i
            let length = le32(e + 8), offset = le32(e + 12)
            guard length > 0, offset >= 6 + 16 * count, offset <= data.count, length <= data.count - offset else {
                return .failure(.invalid(.ico, "image \(i + 1)'s \(length) bytes at \(offset) lie outside the file's \(data.count)"))
            }
            entries.append(Entry(width: data[e] == 0 ? 256 : Int(data[e]), height: data[e + 1] == 0 ? 256 : Int(data[e + 1]),
                                 bitCount: le16(e + 6), range: offset ..< offset + length))
        }
        return .success(entries)
    }
}
