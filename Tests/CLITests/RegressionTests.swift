import XCTest
import Foundation

/// Inputs the fuzzers found, kept in TestImages/regressions (named after their target).
final class RegressionTests: XCTestCase {
    static let dir = CLI.testImages + "/regressions"

    /// args-*: a NUL-separated argument vector for `imgscale fill`; each must be a clean
    /// usage error (exit 2), never a trap.
    func testArgumentVectors() throws {
        for name in CLI.files(Self.dir) where name.hasPrefix("args-") {
            let bytes = [UInt8](CLI.bytes(Self.dir + "/" + name)!)
            let argv = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            let r = CLI.run(["fill"] + argv)
            XCTAssertEqual(r.status, 2, "\(name): \(r.stderr)")
        }
    }

    /// png-*, jpeg-*, webp-*, gif-*, heif-*: must fail (or succeed) cleanly and quickly:
    /// exit 0 or 1 within two seconds, never a crash, with and without --fail-on none.
    /// png-huge-row-allocation.png (345 bytes declaring a 1677721600x100 image) used to
    /// take 16 s and 6.5 GB: libpng allocated its row buffers before the pixel limit was
    /// checked. webp-anim-canvas-mismatch.webp is an animation whose ANIM decoder sees
    /// another canvas than its VP8X header: the first frame was copied past the buffer.
    /// jpeg-scan-table-number.jpg names Huffman table 12 in its scan header, which the
    /// 1/8 decoder's setup indexed before libjpeg checks it (hence the 4x4 fit: 1/8).
    func testImageInputs() throws {
        let out = CLI.tempDir()
        let prefixes = ["png-", "jpeg-", "webp-", "gif-", "heif-"]
        for name in CLI.files(Self.dir) where prefixes.contains(where: name.hasPrefix) {
            for (command, extra) in [(["fill", "--size", "16x16"], []), (["fill", "--size", "16x16"], ["--fail-on", "none"]),
                                     (["fit", "--size", "4x4"], ["--fail-on", "none"])] {
                let t0 = Date()
                let r = CLI.run(command + extra + [Self.dir + "/" + name, "-o", out + "/o.png"])
                XCTAssertTrue(r.status == 0 || r.status == 1, "\(name): status \(r.status) \(r.stderr)")
                XCTAssertLessThan(Date().timeIntervalSince(t0), 2, name)
            }
        }
    }
}
