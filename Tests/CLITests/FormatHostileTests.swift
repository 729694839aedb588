import XCTest
import Foundation

/// Headers of the newer formats that promise huge images are refused from the header,
/// before libwebp or giflib allocate anything: files the test crafts itself.
final class FormatHostileTests: XCTestCase {
    /// A VP8L (lossless WebP) header claiming `side` x `side` RGBA, then noise.
    static func hugeWebP(side: Int) -> Data {
        let bits = UInt32(side - 1) | UInt32(side - 1) << 14 | 1 << 28
        var vp8l: [UInt8] = [0x2F] + withUnsafeBytes(of: bits.littleEndian, Array.init)
        vp8l += [UInt8](repeating: 0x55, count: 64)
        var chunk = Array("VP8L".utf8) + withUnsafeBytes(of: UInt32(vp8l.count).littleEndian, Array.init) + vp8l
        if chunk.count % 2 == 1 { chunk.append(0) }
        let riff = Array("WEBP".utf8) + chunk
        return Data(Array("RIFF".utf8) + withUnsafeBytes(of: UInt32(riff.count).littleEndian, Array.init) + riff)
    }

    /// A GIF whose logical screen is `width` x `height`, holding one 1x1 image.
    static func hugeGIF(width: UInt16, height: UInt16) -> Data {
        var b = Array("GIF89a".utf8)
        b += withUnsafeBytes(of: width.littleEndian, Array.init) + withUnsafeBytes(of: height.littleEndian, Array.init)
        b += [0x80, 0, 0]                       // a global table of 2 colours
        b += [0, 0, 0, 255, 255, 255]
        b += [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0]  // a 1x1 image at 0,0
        b += [2, 2, 0x4C, 0x01, 0]              // LZW: clear, 0, end
        b += [0x3B]
        return Data(b)
    }

    func testHugeHeadersAreRefusedBeforeDecoding() throws {
        let dir = CLI.tempDir()
        let cases: [(String, Data, String)] = [
            ("huge.webp", Self.hugeWebP(side: 16383), "over the memory budget"),
            ("huge.gif", Self.hugeGIF(width: 65535, height: 65535), "over the limit of 268402689"),
            ("wide.gif", Self.hugeGIF(width: 65535, height: 3000), "over the memory budget"),
        ]
        for (name, data, message) in cases {
            XCTAssertTrue(FileManager.default.createFile(atPath: dir + "/" + name, contents: data))
            let t0 = Date()
            let r = CLI.run(["fill", "--size", "64x64", dir + "/" + name, "-o", dir + "/out.png"])
            XCTAssertEqual(r.status, 1, "\(name): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(message), "\(name): \(r.stderr)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
            XCTAssertLessThan(Date().timeIntervalSince(t0), 5, "refused from the header, not after decoding")
            XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/out.png"))
        }
        // The 1x1 image on a small screen is fine: the crafted files are valid apart from their size.
        XCTAssertTrue(FileManager.default.createFile(atPath: dir + "/small.gif", contents: Self.hugeGIF(width: 3, height: 2)))
        let ok = CLI.run(["convert", dir + "/small.gif", "-o", dir + "/small.png"])
        XCTAssertEqual(ok.status, 0, ok.stderr)
        XCTAssertEqual(CLI.size(dir + "/small.png"), "3x2")
    }
}
