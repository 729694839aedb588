import Foundation

/// Hand-built PNG bytes for hostile-input tests: chunks with correct (or deliberately
/// wrong) CRCs and zlib streams made of stored blocks, so any header can be claimed.
enum Crafted {
    private typealias ZlibSum = @convention(c) (UInt, UnsafePointer<UInt8>?, UInt32) -> UInt

    /// zlib's crc32 and adler32, which the bundle has loaded for libpng: the loops below,
    /// in a sanitized debug build, take a minute over the 64 MB of the largest file here.
    private static let zlib: (crc: ZlibSum, adler: ZlibSum)? = {
        guard let process = dlopen(nil, RTLD_NOW), let crc = dlsym(process, "crc32"), let adler = dlsym(process, "adler32") else { return nil }
        return (unsafeBitCast(crc, to: ZlibSum.self), unsafeBitCast(adler, to: ZlibSum.self))
    }()

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        if let zlib, bytes.count < Int(UInt32.max) {
            return UInt32(truncatingIfNeeded: bytes.withUnsafeBufferPointer { zlib.crc(0, $0.baseAddress, UInt32($0.count)) })
        }
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        }
        return ~c
    }

    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }

    static func chunk(_ type: String, _ data: [UInt8], badCRC: Bool = false) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(UInt32(data.count)) + body + be32(crc32(body) ^ (badCRC ? 1 : 0))
    }

    /// A zlib stream of stored (uncompressed) blocks.
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var i = 0
        repeat {
            let n = min(65535, data.count - i)
            out += [i + n == data.count ? 1 : 0, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            out += data[i..<i + n]
            i += n
        } while i < data.count
        if let zlib, data.count < Int(UInt32.max) {
            return out + be32(UInt32(truncatingIfNeeded: data.withUnsafeBufferPointer { zlib.adler(1, $0.baseAddress, UInt32($0.count)) }))
        }
        var a: UInt32 = 1, b: UInt32 = 0
        for x in data { a = (a + UInt32(x)) % 65521; b = (b + a) % 65521 }
        return out + be32(b << 16 | a)
    }

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// A gray 8-bit PNG claiming `width` x `height`, whose IDAT holds `rows` real rows.
    static func png(width: UInt32, height: UInt32, rows: Int, badIHDR: Bool = false, badIDAT: Bool = false) -> [UInt8] {
        let ihdr = be32(width) + be32(height) + [8, 0, 0, 0, 0]
        let raw = [UInt8](repeating: 0, count: rows * (Int(width) + 1))
        return signature + chunk("IHDR", ihdr, badCRC: badIHDR) + chunk("IDAT", zlibStored(raw), badCRC: badIDAT) + chunk("IEND", [])
    }

    /// Offsets where each chunk of a PNG starts, and the middle of each chunk's data.
    static func pngCuts(_ png: [UInt8]) -> [Int] {
        var cuts: [Int] = []
        var at = 8
        while at + 8 <= png.count {
            let length = Int(png[at]) << 24 | Int(png[at + 1]) << 16 | Int(png[at + 2]) << 8 | Int(png[at + 3])
            cuts += [at, at + 4, at + 8 + length / 2, at + 8 + length]
            at += 12 + length
        }
        return cuts.filter { $0 > 0 && $0 < png.count }
    }

    /// Offsets of every JPEG marker up to the first scan, and points inside the scan data.
    static func jpegCuts(_ jpeg: [UInt8]) -> [Int] {
        var cuts: [Int] = [2]
        var at = 2
        while at + 4 <= jpeg.count, jpeg[at] == 0xFF {
            let marker = jpeg[at + 1]
            let length = Int(jpeg[at + 2]) << 8 | Int(jpeg[at + 3])
            cuts += [at, at + 2, at + 2 + length / 2]
            at += 2 + length
            if marker == 0xDA { break }
        }
        let rest = jpeg.count - at
        cuts += [at, at + rest / 10, at + rest / 2, jpeg.count - 10, jpeg.count - 2]
        return cuts.filter { $0 > 0 && $0 < jpeg.count }
    }
}
