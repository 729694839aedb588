import ImageCompare
import ImageScaler
import XCTest
#if canImport(Testing)
import Testing
#endif

/// Fails the running test (XCTest, or Swift Testing when a `Test` is running) unless
/// `image` matches the PNG golden `name` in `__Goldens__/` beside the test file. With a
/// `threshold` the comparison is pixelmatch's perceptual one (anti-aliasing ignored);
/// otherwise any channel off by more than `tolerance` differs. `allowed` differing
/// pixels still pass. See `GoldenCheck` for recording and the diff it writes.
public func assertImageMatchesGolden(_ image: PixelBuffer, named name: String, threshold: Double? = nil, tolerance: Int = 0,
                                     allowed: CompareLimits.Allowance = .pixels(0), ignore: [Rect] = [],
                                     directory: String? = nil, file: StaticString = #filePath, fileID: String = #fileID,
                                     line: UInt = #line, column: UInt = #column) {
    let rule: ImageComparison.Rule = threshold.map { .perceptual(threshold: $0, countAntialiased: false) } ?? .tolerance(tolerance)
    let result = GoldenCheck.check(image, named: name, comparison: ImageComparison(rule: rule, ignore: ignore),
                                   limits: CompareLimits(allowed: allowed), directory: directory, file: file)
    let message: String
    switch result {
    case .matched: return
    case .recorded(let path): message = "recorded golden \(path) (no golden was there, or IMGSCALE_RECORD=1); run the test again"
    case .failed(let text): message = text
    }
    #if canImport(Testing)
    if Test.current != nil {
        Issue.record(Comment(rawValue: message),
                     sourceLocation: SourceLocation(fileID: fileID, filePath: "\(file)", line: Int(line), column: Int(column)))
        return
    }
    #endif
    XCTFail(message, file: file, line: line)
}
