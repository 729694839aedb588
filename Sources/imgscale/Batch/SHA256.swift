import CHashShim

/// SHA-256 digests as 64 lower-case hex digits: the report's `sha256` and the keys of
/// `--if-changed`'s manifest.
enum SHA256 {
    static func hex(_ bytes: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        bytes.withUnsafeBufferPointer { b in digest.withUnsafeMutableBufferPointer { chash_sha256(b.baseAddress, b.count, $0.baseAddress) } }
        return hex(digest: digest)
    }

    static func hex(digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(digest.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }

    static func isDigest(_ text: Substring) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }
}
