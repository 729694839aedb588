import XCTest
import ImageScaler

final class GeometryTests: XCTestCase {
    // Five source shapes against five target shapes; every rect worked out by hand from
    // crop = h*W/H (or w*H/W), origin floored and far edge ceiled.
    static let sources: [(String, Size)] = [
        ("portrait", Size(width: 300, height: 400)), ("landscape", Size(width: 400, height: 300)),
        ("square", Size(width: 400, height: 400)), ("extreme portrait", Size(width: 100, height: 400)),
        ("extreme landscape", Size(width: 400, height: 100)),
    ]
    static let targets: [Size] = [Size(width: 90, height: 160), Size(width: 160, height: 90), Size(width: 50, height: 50),
                                  Size(width: 25, height: 100), Size(width: 100, height: 25)]
    static let expected: [[Rect]] = [
        [Rect(x: 37, y: 0, width: 226, height: 400), Rect(x: 0, y: 115, width: 300, height: 170),
         Rect(x: 0, y: 50, width: 300, height: 300), Rect(x: 100, y: 0, width: 100, height: 400),
         Rect(x: 0, y: 162, width: 300, height: 76)],
        [Rect(x: 115, y: 0, width: 170, height: 300), Rect(x: 0, y: 37, width: 400, height: 226),
         Rect(x: 50, y: 0, width: 300, height: 300), Rect(x: 162, y: 0, width: 76, height: 300),
         Rect(x: 0, y: 100, width: 400, height: 100)],
        [Rect(x: 87, y: 0, width: 226, height: 400), Rect(x: 0, y: 87, width: 400, height: 226),
         Rect(x: 0, y: 0, width: 400, height: 400), Rect(x: 150, y: 0, width: 100, height: 400),
         Rect(x: 0, y: 150, width: 400, height: 100)],
        [Rect(x: 0, y: 111, width: 100, height: 178), Rect(x: 0, y: 171, width: 100, height: 58),
         Rect(x: 0, y: 150, width: 100, height: 100), Rect(x: 0, y: 0, width: 100, height: 400),
         Rect(x: 0, y: 187, width: 100, height: 26)],
        [Rect(x: 171, y: 0, width: 58, height: 100), Rect(x: 111, y: 0, width: 178, height: 100),
         Rect(x: 150, y: 0, width: 100, height: 100), Rect(x: 187, y: 0, width: 26, height: 100),
         Rect(x: 0, y: 0, width: 400, height: 100)],
    ]

    func testTwentyFiveShapePairings() throws {
        for (i, (name, source)) in Self.sources.enumerated() {
            for (j, target) in Self.targets.enumerated() {
                let rect = try Scaling.plan(source: source, target: target)
                XCTAssertEqual(rect, Self.expected[i][j], "\(name) \(source) into \(target)")
                XCTAssertNotNil(rect.intersection(Rect(size: source)))
                XCTAssertEqual(rect.intersection(Rect(size: source)), rect, "stays inside the image")
            }
        }
    }

    func testTheRecipeDefectCaseIsNotStretched() throws {
        // A 1:2 source into a 1:4 box: the recipe's rect outgrew the source and it fell
        // back to the whole image. The right answer keeps the height and crops the width.
        XCTAssertEqual(try Scaling.plan(source: Size(width: 100, height: 200), target: Size(width: 50, height: 200)),
                       Rect(x: 25, y: 0, width: 50, height: 200))
        XCTAssertEqual(try Scaling.plan(source: Size(width: 200, height: 100), target: Size(width: 200, height: 50)),
                       Rect(x: 0, y: 25, width: 200, height: 50))
    }

    func testRecipeFromRectExample() throws {
        let image = Size(width: 1000, height: 800)
        let from = Rect(x: 362, y: 449, width: 260, height: 160)
        XCTAssertEqual(try Scaling.plan(source: image, target: Size(width: 100, height: 100), from: from),
                       Rect(x: 412, y: 449, width: 160, height: 160))
        // The same rect measured from the bottom-left corner: y' = 800 - 449 - 160 = 191.
        XCTAssertEqual(try Scaling.plan(source: image, target: Size(width: 100, height: 100), from: from, origin: .bottomLeft),
                       Rect(x: 412, y: 191, width: 160, height: 160))
    }

    func testFromRectPartlyOutsideIsClipped() throws {
        let image = Size(width: 400, height: 300)
        let from = Rect(x: 300, y: 200, width: 200, height: 200)
        XCTAssertEqual(try Scaling.plan(source: image, target: Size(width: 50, height: 50), from: from),
                       Rect(x: 300, y: 200, width: 100, height: 100))
        XCTAssertEqual(try Scaling.plan(source: image, target: Size(width: 100, height: 50), from: from),
                       Rect(x: 300, y: 225, width: 100, height: 50))
        XCTAssertEqual(try Scaling.plan(source: image, target: Size(width: 10, height: 10), from: Rect(x: -50, y: -50, width: 100, height: 100)),
                       Rect(x: 0, y: 0, width: 50, height: 50))
        // Bottom-left: the rect's bottom 40 rows stand below the image and are cut.
        XCTAssertEqual(try AspectFill.clip(Rect(x: 0, y: -40, width: 100, height: 100), origin: .bottomLeft, to: image),
                       Rect(x: 0, y: 240, width: 100, height: 60))
    }

    func testEmptyIntersectionNamesRectAndImage() {
        XCTAssertThrowsError(try Scaling.plan(source: Size(width: 400, height: 300), target: Size(width: 10, height: 10),
                                                  from: Rect(x: 500, y: 500, width: 10, height: 10))) {
            XCTAssertEqual("\($0)", "rect 500,500,10,10 (top-left) does not overlap the 400x300 image")
        }
    }

    func testFlipBothWays() {
        let r = Rect(x: 10, y: 20, width: 30, height: 40)
        let flipped = r.flipped(from: .bottomLeft, imageHeight: 100)
        XCTAssertEqual(flipped, Rect(x: 10, y: 40, width: 30, height: 40))
        XCTAssertEqual(flipped.flipped(from: .bottomLeft, imageHeight: 100), r)
        XCTAssertEqual(r.flipped(from: .topLeft, imageHeight: 100), r)
        // A rect touching the bottom edge in bottom-left terms starts at y = 0 there.
        XCTAssertEqual(Rect(x: 0, y: 0, width: 5, height: 10).flipped(from: .bottomLeft, imageHeight: 100).y, 90)
    }

    func testGravity() throws {
        let land = Size(width: 400, height: 300), port = Size(width: 300, height: 400), sq = Size(width: 50, height: 50)
        XCTAssertEqual(try Scaling.plan(source: land, target: sq, gravity: .west), Rect(x: 0, y: 0, width: 300, height: 300))
        XCTAssertEqual(try Scaling.plan(source: land, target: sq, gravity: .northwest), Rect(x: 0, y: 0, width: 300, height: 300))
        XCTAssertEqual(try Scaling.plan(source: land, target: sq, gravity: .east), Rect(x: 100, y: 0, width: 300, height: 300))
        XCTAssertEqual(try Scaling.plan(source: land, target: sq, gravity: .north), Rect(x: 50, y: 0, width: 300, height: 300))
        XCTAssertEqual(try Scaling.plan(source: port, target: sq, gravity: .north), Rect(x: 0, y: 0, width: 300, height: 300))
        XCTAssertEqual(try Scaling.plan(source: port, target: sq, gravity: .south), Rect(x: 0, y: 100, width: 300, height: 300))
        XCTAssertEqual(try Scaling.plan(source: port, target: sq, gravity: .southeast), Rect(x: 0, y: 100, width: 300, height: 300))
    }

    /// `fill --focus`: the window centred on the point (a pixel's centre, or a share of
    /// the side), slid back inside the image or the --from region; worked by hand.
    func testFocus() throws {
        let land = Size(width: 400, height: 300), port = Size(width: 300, height: 400), sq = Size(width: 50, height: 50)
        func at(_ x: FocusPoint.Coordinate, _ y: FocusPoint.Coordinate) -> FocusPoint { FocusPoint(x: x, y: y) }
        // The window is 300 wide: its left edge is the point less 150.
        XCTAssertEqual(try Scaling.plan(source: land, target: sq, focus: at(.pixel(100), .pixel(150))), Rect(x: 0, y: 0, width: 300, height: 300))
        XCTAssertEqual(try Scaling.plan(source: land, target: sq, focus: at(.pixel(250), .pixel(0))), Rect(x: 100, y: 0, width: 300, height: 300))
        // Pixel 200's centre is 200.5: the window 50.5 to 350.5, rounded outwards.
        XCTAssertEqual(try Scaling.plan(source: land, target: sq, focus: at(.pixel(200), .pixel(0))), Rect(x: 50, y: 0, width: 301, height: 300))
        XCTAssertEqual(try Scaling.plan(source: land, target: sq, focus: at(.basisPoints(4000), .basisPoints(0))), Rect(x: 10, y: 0, width: 300, height: 300))
        XCTAssertEqual(try Scaling.plan(source: land, target: sq, focus: at(.basisPoints(6250), .basisPoints(0))), Rect(x: 100, y: 0, width: 300, height: 300))
        XCTAssertEqual(try Scaling.plan(source: land, target: sq, focus: at(.basisPoints(2500), .basisPoints(5000))), Rect(x: 0, y: 0, width: 300, height: 300))
        // Portrait: the window slides down; x plays no part.
        XCTAssertEqual(try Scaling.plan(source: port, target: sq, focus: at(.pixel(0), .basisPoints(5000))), Rect(x: 0, y: 50, width: 300, height: 300))
        XCTAssertEqual(try Scaling.plan(source: port, target: sq, focus: at(.pixel(299), .pixel(10))), Rect(x: 0, y: 0, width: 300, height: 300))
        XCTAssertEqual(try Scaling.plan(source: port, target: sq, focus: at(.pixel(0), .pixel(1000))), Rect(x: 0, y: 100, width: 300, height: 300))
        // Inside --from 100,0,300,300 at 2:1, the window is 150 tall: the point 299.5 less
        // 75 is past the region's last top edge, 150.
        XCTAssertEqual(try Scaling.plan(source: land, target: Size(width: 50, height: 25), from: Rect(x: 100, y: 0, width: 300, height: 300),
                                        focus: at(.pixel(0), .pixel(299))), Rect(x: 100, y: 150, width: 300, height: 150))
        // 401 wide, 50%: 200.5 less 150, the centre gravity's rect exactly.
        XCTAssertEqual(try Scaling.plan(source: Size(width: 401, height: 300), target: sq, focus: at(.basisPoints(5000), .basisPoints(5000))),
                       Rect(x: 50, y: 0, width: 301, height: 300))
        // Over a sweep: 50%,50% is centre gravity, 0,0 northwest, 100%,100% southeast.
        for w in stride(from: 1, through: 90, by: 11) {
            for h in stride(from: 1, through: 90, by: 13) {
                for t in [Size(width: 7, height: 3), Size(width: 3, height: 7), Size(width: 5, height: 5)] {
                    let s = Size(width: w, height: h)
                    XCTAssertEqual(try Scaling.plan(source: s, target: t, focus: at(.basisPoints(5000), .basisPoints(5000))), try Scaling.plan(source: s, target: t))
                    XCTAssertEqual(try Scaling.plan(source: s, target: t, focus: at(.pixel(0), .pixel(0))), try Scaling.plan(source: s, target: t, gravity: .northwest))
                    XCTAssertEqual(try Scaling.plan(source: s, target: t, focus: at(.basisPoints(10000), .basisPoints(10000))),
                                   try Scaling.plan(source: s, target: t, gravity: .southeast))
                }
            }
        }
    }

    func testPlanSweepStaysInsideAndKeepsAspect() throws {
        for w in stride(from: 1, through: 60, by: 7) {
            for h in stride(from: 1, through: 60, by: 5) {
                for W in [1, 3, 16, 50] {
                    for H in [1, 2, 9, 50] {
                        let r = try Scaling.plan(source: Size(width: w, height: h), target: Size(width: W, height: H))
                        XCTAssertEqual(r.intersection(Rect(x: 0, y: 0, width: w, height: h)), r)
                        // Either the full width or the full height is kept.
                        XCTAssertTrue(r.width == w || r.height == h)
                        // Within one pixel on each side of the exact crop.
                        let exactW = Double(W) / Double(H) * Double(r.height)
                        if r.height == h && r.width != w { XCTAssertLessThanOrEqual(abs(Double(r.width) - exactW), 2) }
                    }
                }
            }
        }
    }

    func testFitSize() throws {
        XCTAssertEqual(try AspectFill.fitSize(Size(width: 4032, height: 3024), in: Size(width: 800, height: 600)), Size(width: 800, height: 600))
        XCTAssertEqual(try AspectFill.fitSize(Size(width: 4608, height: 1976), in: Size(width: 800, height: 600)), Size(width: 800, height: 343))
        XCTAssertEqual(try AspectFill.fitSize(Size(width: 100, height: 400), in: Size(width: 50, height: 50)), Size(width: 13, height: 50))
        XCTAssertEqual(try AspectFill.fitSize(Size(width: 1000, height: 1), in: Size(width: 10, height: 10)), Size(width: 10, height: 1))
    }
}
