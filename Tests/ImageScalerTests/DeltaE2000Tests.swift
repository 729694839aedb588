import XCTest
import ImageCompare

/// CIEDE2000 on Sharma, Wu and Dalal's (2005) published test pairs, to their 4 decimals,
/// and its symmetry; the sRGB side is held to colour-science in CompareDeltaETests.
final class DeltaE2000Tests: XCTestCase {
    func testSharmaPairs() {
        let pairs: [((Double, Double, Double), (Double, Double, Double), Double)] = [
            ((50, 2.6772, -79.7751), (50, 0, -82.7485), 2.0425),
            ((50, 3.1571, -77.2803), (50, 0, -82.7485), 2.8615),
            ((50, 2.8361, -74.0200), (50, 0, -82.7485), 3.4412),
            ((50, 0, 0), (50, -1, 2), 2.3669),
            ((50, 2.5, 0), (50, 0, -2.5), 4.3065),
        ]
        for (p, q, expected) in pairs {
            XCTAssertEqual(DeltaE2000.difference(p, q), expected, accuracy: 5e-5)
            XCTAssertEqual(DeltaE2000.difference(q, p), expected, accuracy: 5e-5)
        }
        XCTAssertEqual(DeltaE2000.difference((50, 10, 10), (50, 10, 10)), 0)
    }
}
