import XCTest
import Foundation
import ImageScaler

/// `--gravity entropy` through the CLI, on images whose busiest part is known.
final class SmartCropTests: XCTestCase {
    /// Flat gray with a noisy square at `patch` (top-left corner, side = the short side).
    func image(width: Int, height: Int, patch: (Int, Int)) -> PixelBuffer {
        var seed: UInt32 = 12345
        var pixels = [UInt8](repeating: 128, count: width * height)
        let side = min(width, height)
        for y in patch.1..<patch.1 + side {
            for x in patch.0..<patch.0 + side {
                seed = seed &* 1664525 &+ 1013904223
                pixels[y * width + x] = UInt8(seed >> 24)
            }
        }
        return try! PixelBuffer(width: width, height: height, channels: 1, pixels: pixels)
    }

    func testTheCropGoesWhereTheDetailIs() throws {
        let dir = CLI.tempDir()
        for (w, h, patch, rect) in [(300, 100, (200, 0), "200,0,100,100"), (100, 300, (0, 0), "0,0,100,100"),
                                    (400, 100, (150, 0), "150,0,100,100")] {
            let path = dir + "/in-\(w)x\(h).png"
            try ImageFile.write(try ImageCodec.encode(image(width: w, height: h, patch: patch), as: .png), to: path)
            let r = CLI.run(["fill", "--size", "50x50", "--gravity", "entropy", path, "-o", dir + "/smart.png"])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(CLI.run(["fill", "--size", "50x50", "--from", rect, path, "-o", dir + "/expected.png"]).status, 0)
            XCTAssertEqual(CLI.bytes(dir + "/smart.png"), CLI.bytes(dir + "/expected.png"), "\(w)x\(h): the patch at \(rect)")
        }
        // plan has no pixels to look at.
        let plan = CLI.run(["plan", "--source", "300x100", "--size", "50x50", "--gravity", "entropy"])
        XCTAssertEqual(plan.status, 2)
        XCTAssertTrue(plan.stderr.contains("needs the image's pixels"), plan.stderr)
    }
}
