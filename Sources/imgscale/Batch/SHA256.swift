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
        // As bytes into one buffer: built of Characters it was 5% of an --if-changed rerun.
        String(unsafeUninitializedCapacity: digest.count * 2) { out in
            for (i, byte) in digest.enumerated() {
                out[2 * i] = hexDigit(byte >> 4)
                out[2 * i + 1] = hexDigit(byte & 15)
            }
            return digest.count * 2
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? 0x30 + nibble : 0x57 + nibble
    }

    static func isDigest(_ text: Substring) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }
}
