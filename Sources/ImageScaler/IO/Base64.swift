/// RFC 4648 base64 with padding, as data URIs and JSON reports carry bytes.
package enum Base64 {
    private static let digits = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    package static func encode(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i < bytes.count {
            let n = min(3, bytes.count - i)
            var v = Int(bytes[i]) << 16
            if n > 1 { v |= Int(bytes[i + 1]) << 8 }
            if n > 2 { v |= Int(bytes[i + 2]) }
            for k in 0..<4 { out.append(k <= n ? digits[(v >> (18 - 6 * k)) & 63] : 0x3D) }
            i += 3
        }
        return out
    }

    package static func string(_ bytes: [UInt8]) -> String { String(decoding: encode(bytes), as: UTF8.self) }
}
