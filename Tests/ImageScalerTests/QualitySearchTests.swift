import XCTest
import ImageScaler

/// The quality search's arithmetic by hand: the shape's piecewise line and its inverse,
/// and a boundary found in few probes when the measure is the shape shifted.
final class QualitySearchTests: XCTestCase {
    private let jpegShape = [0.95, 1.4, 1.85, 2.16, 2.38, 2.55, 2.68, 2.8, 2.89, 2.98, 3.06,
                             3.14, 3.22, 3.32, 3.44, 3.56, 3.74, 3.97, 4.31, 4.89, 6.17]

    func testAlongTheShape() {
        let along = QualitySearch.Along(jpegShape)
        XCTAssertEqual(along.value(0), 0.95)
        XCTAssertEqual(along.value(100), 6.17)
        // Quality 92 is 2/5 of the way from 4.31 (90) to 4.89 (95): 4.542.
        XCTAssertEqual(along.value(92), 4.542, accuracy: 1e-12)
        XCTAssertEqual(along.quality(at: 4.542), 92, accuracy: 1e-9)
        // Beyond the ends, the end segments run on.
        XCTAssertEqual(along.quality(at: 0.5), -5, accuracy: 1e-9)
        for q in 0...100 { XCTAssertEqual(along.quality(at: along.value(q)), Double(q), accuracy: 1e-9) }
    }

    func testAShiftedShapeIsFoundInThreeProbes() throws {
        let along = QualitySearch.Along(jpegShape)
        // A photo 0.3 above the shape everywhere; the target is met from quality 71 up
        // (the shape plus 0.3 at 71 is 3.626; goal between its values at 70 and 71).
        let goal = (along.value(70) + along.value(71)) / 2 + 0.3
        var probes: [Int] = []
        let found = try QualitySearch.boundary(start: Int(along.quality(at: goal).rounded()), top: 101,
                                               isAbove: { along.value($0) + 0.3 >= goal },
                                               measure: { probes.append($0); return along.value($0) + 0.3 - goal },
                                               scale: along.value, inverse: along.quality, slope: 1)
        XCTAssertEqual(found, 71)
        XCTAssertLessThanOrEqual(Set(probes).count, 3, "\(probes)")
    }
}
