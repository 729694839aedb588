import XCTest
import CHashShim
import TestReferences

/// The SHA-256 behind --report and --if-changed: libcrypto's and the portable one agree
/// with Python's hashlib on every length around the block and padding boundaries, and
/// on FIPS 180-4's own examples.
final class SHA256Tests: XCTestCase {
    private func hex(_ data: [UInt8], _ f: (UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UInt8>?) -> Void) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        data.withUnsafeBufferPointer { d in digest.withUnsafeMutableBufferPointer { f(d.baseAddress, d.count, $0.baseAddress) } }
        return digest.map { String(format: "%02x", $0) }.joined()
    }

    func testFIPSExamples() {
        let abc = Array("abc".utf8), two = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        for f in [chash_sha256, chash_sha256_portable] {
            XCTAssertEqual(hex([], f), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
            XCTAssertEqual(hex(abc, f), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
            XCTAssertEqual(hex(two, f), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        }
    }

    func testEveryLengthAroundTheBlocksAgreesWithHashlib() throws {
        let lengths = Array(0...130) + [1000, 4095, 4096, 65_537, 1 << 20]
        let data = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }
        guard let reply = Fixtures.python("""
            import sys, hashlib
            data = bytes((i * 131 + 7) & 255 for i in range(1 << 20))
            sys.stdout.write(" ".join(hashlib.sha256(data[:int(n)]).hexdigest() for n in sys.argv[1:]))
            """, lengths.map(String.init)) else { throw missingReference("python3 (hashlib)") }
        let expected = String(decoding: reply, as: UTF8.self).split(separator: " ").map(String.init)
        XCTAssertEqual(expected.count, lengths.count)
        for (n, want) in zip(lengths, expected) {
            let part = Array(data[..<n])
            XCTAssertEqual(hex(part, chash_sha256), want, "\(n) (\(String(cString: chash_sha256_backend())))")
            XCTAssertEqual(hex(part, chash_sha256_portable), want, "\(n) portable")
        }
    }
}
