/// One chunk of a PNG file: its four-letter type and its data. `chunks` reads a file
/// imgscale's own encoder wrote into its chunks (nil for anything that is not whole
/// chunks after the signature); `bytes` writes one back with its length and CRC-32.
struct PNGChunk {
    let type: String
    let data: ArraySlice<UInt8>

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func chunks(_ file: [UInt8]) -> [PNGChunk]? {
        guard file.starts(with: signature) else { return nil }
        var at = signature.count
        var out: [PNGChunk] = []
        while at < file.count {
            guard at + 12 <= file.count else { return nil }
            let length = Int(file[at]) << 24 | Int(file[at + 1]) << 16 | Int(file[at + 2]) << 8 | Int(file[at + 3])
            guard length <= file.count - at - 12 else { return nil }
            let type = String(decoding: file[at + 4..<at + 8], as: UTF8.self)
            out.append(PNGChunk(type: type, data: file[at + 8..<at + 8 + length]))
            at += 12 + length
        }
        return out
    }

    func bytes() -> [UInt8] {
        var out = PNGChunk.be32(UInt32(data.count))
        let body = Array(type.utf8) + data
        out += body
        out += PNGChunk.be32(PNGChunk.crc32(body))
        return out
    }

    static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }

    static func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }

    /// PNG's CRC-32 (ISO 3309, reflected 0xEDB88320), over the type and the data.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = table[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }

    private static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }
}
