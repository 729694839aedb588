import XCTest
import Foundation

/// `fill --focus X,Y`: the crop centred on a point of the upright image, as near as the
/// image allows: at a corner it is the corner's gravity, at 50%,50% the default, in
/// pixels or percentages, with --from, and refused with --gravity or when malformed.
final class FocusTests: XCTestCase {
    func testFocusPlacesTheCropAndTheReportSaysIt() throws {
        let dir = CLI.tempDir()
        let scene = CLI.testImages + "/scene-640x427.jpg"
        func made(_ name: String, _ extra: [String]) -> Data? {
            let r = CLI.run(["fill", "--size", "100x100", scene, "-o", dir + "/" + name] + extra)
            XCTAssertEqual(r.status, 0, r.stderr)
            return CLI.bytes(dir + "/" + name)
        }
        XCTAssertEqual(made("a.png", ["--focus", "0,0"]), made("b.png", ["--gravity", "west"]))
        XCTAssertEqual(made("c.png", ["--focus", "100%,0"]), made("d.png", ["--gravity", "east"]))
        XCTAssertEqual(made("e.png", ["--focus", "50%,50%"]), made("f.png", []))
        XCTAssertNotEqual(made("g.png", ["--focus", "25%,50%"]), made("h.png", []))
        // 427 tall, so the window is 427 wide: 25% is 160, and 160 - 213.5 < 0.
        XCTAssertEqual(made("i.png", ["--focus", "25%,90%"]), made("j.png", ["--focus", "0,0"]))
        // plan --source shows the rect: 640x427 to 100x100, pixel 400's centre less 213.5.
        let plan = CLI.run(["plan", "--source", "640x427", "--size", "100x100", "--focus", "400,10"])
        XCTAssertEqual(plan.status, 0, plan.stderr)
        XCTAssertTrue(plan.stdout.hasSuffix("187,0,427,427\n") || plan.stdout.contains("187,0,427,427"), plan.stdout)
        let r = CLI.run(["fill", "--size", "64x64", "--focus", "37.5%,40%", scene, "--out-dir", dir + "/out", "--report", dir + "/r.jsonl"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(try String(contentsOfFile: dir + "/r.jsonl", encoding: .utf8).contains("\"focus\":\"37.5%,40%\""))
    }

    func testFocusIsInUprightCoordinates() throws {
        let exif = try CLI.sharedDir("exif-orientation")
        let dir = CLI.tempDir()
        for n in [3, 6, 8] {
            let input = exif + "/Landscape_\(n).jpg"
            for (focus, gravity) in [("0,0", "northwest"), ("100%,100%", "southeast")] {
                XCTAssertEqual(CLI.run(["fill", "--size", "40x80", "--focus", focus, input, "-o", dir + "/f.png"]).status, 0)
                XCTAssertEqual(CLI.run(["fill", "--size", "40x80", "--gravity", gravity, input, "-o", dir + "/g.png"]).status, 0)
                XCTAssertEqual(CLI.bytes(dir + "/f.png"), CLI.bytes(dir + "/g.png"), "Landscape_\(n) \(focus)")
            }
        }
    }

    func testFocusUsage() {
        let scene = CLI.testImages + "/scene-640x427.jpg", out = CLI.tempDir() + "/x.png"
        for bad in ["50%", "1,2,3", "-1,0", "101%,0", "50.125%,0", "x,0", ""] {
            let r = CLI.run(["fill", "--size", "10x10", "--focus", bad, scene, "-o", out])
            XCTAssertEqual(r.status, 2, bad)
            XCTAssertTrue(r.stderr.contains("--focus must be X,Y"), r.stderr)
        }
        let both = CLI.run(["fill", "--size", "10x10", "--focus", "1,1", "--gravity", "north", scene, "-o", out])
        XCTAssertEqual(both.status, 2)
        XCTAssertTrue(both.stderr.contains("give one"), both.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }
}
