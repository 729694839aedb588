#if canImport(Testing)
import Foundation
import ImageScaler
import ImageScalerTesting
import Testing

/// `assertImageMatchesGolden` in a Swift Testing suite, as a user's `@Test` calls it: a
/// missing golden is recorded and reported as an issue of the running test (never an
/// XCTest failure, which Swift Testing would not see), a match records nothing, and a
/// changed image is an issue that names its pixels and the diff it wrote.
/// `withKnownIssue` fails the test unless the expected issue was recorded. Run by
/// scripts/test with `--testing-library swift-testing`.
@Suite struct GoldenSwiftTestingTests {
    private func gradient(_ shift: Int = 0) -> PixelBuffer {
        var p = try! PixelBuffer(width: 40, height: 20, channels: 3)
        for y in 0..<20 { for x in 0..<40 { for c in 0..<3 { p.pixels[(y * 40 + x) * 3 + c] = UInt8(min(x * 6 + shift + c * 10, 255)) } } }
        return p
    }

    /// A fresh folder and the `__Goldens__` in it.
    private func goldens() -> (root: String, dir: String) {
        let root = NSTemporaryDirectory() + "imgscale-swift-testing-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: root + "/__Goldens__", withIntermediateDirectories: true)
        return (root, root + "/__Goldens__")
    }

    @Test func recordsAMissingGoldenThenPasses() {
        let (root, dir) = goldens()
        defer { try? FileManager.default.removeItem(atPath: root) }
        withKnownIssue("the first run records the golden and says so") {
            assertImageMatchesGolden(gradient(), named: "ramp", directory: dir)
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("recorded golden \(dir)/ramp.png") }
        }
        #expect(FileManager.default.fileExists(atPath: dir + "/ramp.png"))
        assertImageMatchesGolden(gradient(), named: "ramp", directory: dir)
        assertImageMatchesGolden(gradient(2), named: "ramp", tolerance: 2, directory: dir)
    }

    @Test func aChangedImageIsAnIssueNamingItsDiff() {
        let (root, dir) = goldens()
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(GoldenCheck.check(gradient(), named: "ramp", directory: dir) == .recorded(path: dir + "/ramp.png"))
        withKnownIssue("a one-level shift of every pixel fails an exact check") {
            assertImageMatchesGolden(gradient(1), named: "ramp", directory: dir)
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("800 pixels differ") && $0.rawValue.contains("ramp.diff.png") }
                && issue.sourceLocation?.fileName == "GoldenSwiftTestingTests.swift"
        }
        #expect(FileManager.default.fileExists(atPath: dir + "/__Failures__/ramp.diff.png"))
        // pixelmatch's threshold forgives the same shift.
        assertImageMatchesGolden(gradient(1), named: "ramp", threshold: 0.1, directory: dir)
    }
}
#endif
