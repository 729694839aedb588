import XCTest
import ImageScaler

/// Linear light's box average before the filter: Pillow's `resize(reducing_gap:)`
/// geometry (factors `int(scale / gap) or 1`, the box `_get_safe_box` widens by the
/// filter's reach) worked by hand, and `RowReducer`'s sums on a tiny image.
final class BoxReductionTests: XCTestCase {
    func testPillowsFactorsAndSafeBox() throws {
        // 100x50 from (10.5, 3.25) to 10x5, lanczos: scale 10 both ways, factor
        // int(10 / 2) = 5; reach (3 - 0.5) * 10 = 25, so the box is
        // int(10.5 - 25) -> 0 .. ceil(110.5 + 25) = 136 and 0 .. min(100, ceil(78.25)) = 79.
        let r = try XCTUnwrap(BoxReduction(rect: SamplingRect(x: 10.5, y: 3.25, width: 100, height: 50),
                                           of: Size(width: 200, height: 100), into: Size(width: 10, height: 5),
                                           filter: .lanczos, gap: 2))
        XCTAssertEqual([r.x, r.y], [5, 5])
        XCTAssertEqual(r.box, Rect(x: 0, y: 0, width: 136, height: 79))
        XCTAssertEqual(r.reducedSize, Size(width: 28, height: 16))
        XCTAssertEqual(r.reduced(SamplingRect(x: 10.5, y: 3.25, width: 100, height: 50)),
                       SamplingRect(x: 2.1, y: 0.65, width: 20, height: 10))
        // Bilinear reaches 0.5 x scale: 60.2 -> 55 (int), 60.2 + 40 + 5 -> 106 (ceil).
        let b = try XCTUnwrap(BoxReduction(rect: SamplingRect(x: 60.2, y: 0, width: 40, height: 7),
                                           of: Size(width: 300, height: 7), into: Size(width: 4, height: 7),
                                           filter: .bilinear, gap: 2))
        XCTAssertEqual([b.x, b.y], [5, 1])
        XCTAssertEqual(b.box, Rect(x: 55, y: 0, width: 51, height: 7))
        // Less than twice the gap, or nearest: no reduction.
        XCTAssertNil(BoxReduction(rect: SamplingRect(x: 0, y: 0, width: 39, height: 39), of: Size(width: 39, height: 39),
                                  into: Size(width: 10, height: 10), filter: .lanczos, gap: 2))
        XCTAssertNil(BoxReduction(rect: SamplingRect(x: 0, y: 0, width: 100, height: 100), of: Size(width: 100, height: 100),
                                  into: Size(width: 10, height: 10), filter: .nearest, gap: 2))
    }

    func testSumsPartialBlocksAndAlphaWeighting() throws {
        // 5x3 gray by 2x2: blocks [0,1]x[0,1], [2,3]x[0,1], [4]x[0,1], then the last row.
        let gray = WideImage(width: 5, height: 3, channels: 1, samples: [
            0, 10, 20, 31, 100,
            2, 12, 22, 33, 101,
            7, 7, 50, 50, 65535])
        let r = try XCTUnwrap(BoxReduction(rect: SamplingRect(x: 0, y: 0, width: 5, height: 3), of: gray.size,
                                           into: Size(width: 1, height: 1), filter: .box, gap: 2))
        XCTAssertEqual([r.x, r.y], [2, 1])
        let two = BoxReduction2x2(box: Rect(x: 0, y: 0, width: 5, height: 3))
        let out = RowReducer.reduce(gray, two)
        // (0+10+2+12)/4 = 6, (20+31+22+33)/4 = 26.5 -> 27, (100+101)/2 = 100.5 -> 101,
        // (7+7)/2 = 7, (50+50)/2 = 50, 65535.
        XCTAssertEqual(out.samples, [6, 27, 101, 7, 50, 65535])
        // Gray+alpha: colour is weighted by alpha; a transparent block keeps colour 0.
        let ga = WideImage(width: 2, height: 2, channels: 2, samples: [
            60000, 65535, 0, 0,
            30000, 32768, 0, 0])
        let one = BoxReduction2x2(box: Rect(x: 0, y: 0, width: 2, height: 2))
        // colour (60000*65535 + 30000*32768) / (65535 + 32768) = 49999.9 -> 50000;
        // alpha (65535 + 32768) / 4 = 24575.75 -> 24576.
        XCTAssertEqual(RowReducer.reduce(ga, one).samples, [50000, 24576])
        XCTAssertEqual(RowReducer.reduce(WideImage(width: 2, height: 2, channels: 2, samples: [9, 0, 9, 0, 9, 0, 9, 0]), one).samples, [0, 0])
    }

    private func BoxReduction2x2(box: Rect) -> BoxReduction { BoxReduction(x: 2, y: 2, box: box) }
}
