import XCTest
import Foundation
import ImageScaler
import ImageCompare
import ImageScalerTesting

/// `ImageScalerTesting` as a user's suite uses it: a missing golden is recorded (and
/// said so), a match passes, a failure writes the actual image and a diff and names
/// them, and the perceptual rule forgives what pixelmatch forgives.
final class GoldenCheckTests: XCTestCase {
    private func gradient(_ shift: Int = 0) -> PixelBuffer {
        var p = try! PixelBuffer(width: 40, height: 20, channels: 3)
        for y in 0..<20 { for x in 0..<40 { for c in 0..<3 { p.pixels[(y * 40 + x) * 3 + c] = UInt8(min(x * 6 + shift + c * 10, 255)) } } }
        return p
    }

    func testRecordMatchAndFail() throws {
        let dir = CLI.tempDir() + "/__Goldens__"
        XCTAssertEqual(GoldenCheck.check(gradient(), named: "ramp", directory: dir), .recorded(path: dir + "/ramp.png"))
        XCTAssertEqual(GoldenCheck.check(gradient(), named: "ramp", directory: dir), .matched)
        guard case .failed(let message) = GoldenCheck.check(gradient(1), named: "ramp", directory: dir) else {
            return XCTFail("a changed image must fail")
        }
        XCTAssertTrue(message.contains("800 pixels differ"), message)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/__Failures__/ramp.diff.png"))
        XCTAssertEqual(CLI.size(dir + "/__Failures__/ramp.diff.png"), "120x20", "expected | actual | diff")
        // Tolerances and allowances pass what they should.
        XCTAssertEqual(GoldenCheck.check(gradient(1), named: "ramp", comparison: ImageComparison(rule: .tolerance(1)), directory: dir), .matched)
        XCTAssertEqual(GoldenCheck.check(gradient(1), named: "ramp", comparison: ImageComparison(rule: .perceptual(threshold: 0.1, countAntialiased: false)),
                                         directory: dir), .matched, "a one-level shift is below pixelmatch's threshold")
        XCTAssertEqual(GoldenCheck.check(gradient(1), named: "ramp", limits: CompareLimits(allowed: .percent(100)), directory: dir), .matched)
        // IMGSCALE_RECORD=1 re-records.
        setenv("IMGSCALE_RECORD", "1", 1)
        defer { unsetenv("IMGSCALE_RECORD") }
        XCTAssertEqual(GoldenCheck.check(gradient(1), named: "ramp", directory: dir), .recorded(path: dir + "/ramp.png"))
        unsetenv("IMGSCALE_RECORD")
        XCTAssertEqual(GoldenCheck.check(gradient(1), named: "ramp", directory: dir), .matched)
    }

    func testAssertPassesOnAMatch() throws {
        let dir = CLI.tempDir() + "/__Goldens__"
        XCTAssertEqual(GoldenCheck.check(gradient(), named: "ok", directory: dir), .recorded(path: dir + "/ok.png"))
        assertImageMatchesGolden(gradient(), named: "ok", directory: dir)
        assertImageMatchesGolden(gradient(2), named: "ok", tolerance: 2, directory: dir)
    }
}
