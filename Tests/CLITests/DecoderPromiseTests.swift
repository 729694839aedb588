import XCTest
import Foundation

/// The promises of issue 29 on crafted files, through the CLI: each test makes its own
/// input (Python here, nothing large committed) and runs `imgscale` as a user would.
final class DecoderPromiseTests: XCTestCase {
    /// Runs a Python script in `dir` (python3 with Pillow), skipping when it is missing.
    func python(_ script: String, in dir: String) throws {
        let r = CLI.sh("python3 - <<'PY'\nimport os\nos.chdir('\(dir)')\n\(script)\nPY")
        if r.stderr.contains("No module named") { throw XCTSkip("SKIPPED: python3 with Pillow is not available: \(r.stderr)") }
        XCTAssertEqual(r.status, 0, r.stderr)
    }

    /// A Huffman table whose codes reach all ones (libjpeg's jdhuff.c refuses it) is
    /// refused with libjpeg's words by both of imgscale's JPEG decoders, at every scale.
    func testAllOnesHuffmanCodeIsRefusedAsLibjpegDoes() throws {
        let dir = CLI.tempDir()
        try python("""
        import random, subprocess
        from PIL import Image
        random.seed(1)
        Image.frombytes('RGB', (64, 48), bytes(random.randrange(256) for _ in range(64 * 48 * 3))).save('n.ppm')
        subprocess.run(['cjpeg', '-outfile', 'n.jpg', 'n.ppm'], check=True)
        b = bytearray(open('n.jpg', 'rb').read())
        i = 2
        while True:
            m, L = b[i + 1], b[i + 2] << 8 | b[i + 3]
            if m == 0xC4 and b[i + 4] == 0:
                # The standard luma DC table uses all but one 9-bit code: one more fills it.
                assert list(b[i + 5:i + 21]) == [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]
                b[i + 13] += 1
                b[i + 21 + 12:i + 21 + 12] = b'\\x00'
                b[i + 2:i + 4] = (L + 1).to_bytes(2, 'big')
                break
            i += 2 + L
        open('allones.jpg', 'wb').write(b)
        """, in: dir)
        XCTAssertNotEqual(CLI.sh("djpeg '\(dir)/allones.jpg' > /dev/null").status, 0)
        for args in [["convert"], ["fit", "--size", "16x16"], ["fit", "--size", "8x8"]] {
            let r = CLI.run(args + [dir + "/allones.jpg", "-o", dir + "/out.png"])
            XCTAssertEqual(r.status, 1, "\(args)")
            XCTAssertTrue(r.stderr.contains("Bogus Huffman table definition"), r.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/out.png"))
        }
        XCTAssertEqual(CLI.run(["fit", "--size", "8x8", dir + "/n.jpg", "-o", dir + "/ok.png"]).status, 0)
    }
}
