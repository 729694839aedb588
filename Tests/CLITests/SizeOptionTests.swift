import XCTest
import Foundation
import ImageScaler

/// One-sided sizes, --no-upscale and --flatten, through the CLI.
final class SizeOptionTests: XCTestCase {
    let scene = CLI.testImages + "/scene-640x427.jpg"

    func testOneSidedSizesBoundOneSide() throws {
        let dir = CLI.tempDir()
        XCTAssertEqual(CLI.run(["fit", "--size", "320x", scene, "-o", dir + "/w.jpg"]).status, 0)
        XCTAssertEqual(CLI.size(dir + "/w.jpg"), "320x214")
        XCTAssertEqual(CLI.run(["fit", "--size=x100", scene, "-o", dir + "/h.jpg"]).status, 0)
        XCTAssertEqual(CLI.size(dir + "/h.jpg"), "150x100")
        // A srcset: {w} names the width; the open side's {h} is empty.
        let srcset = CLI.run(["fit", "--size", "320x", "--out-dir", dir + "/set", "--name", "{stem}-{w}w{h}.jpg", scene])
        XCTAssertEqual(srcset.status, 0, srcset.stderr)
        XCTAssertEqual(CLI.files(dir + "/set"), ["scene-640x427-320w.jpg"])
        for args in [["fill", "--size", "320x"], ["fit", "--size", "320x", "--pad"], ["fit", "--size", "x"]] {
            let r = CLI.run(args + [scene, "-o", dir + "/bad.jpg"])
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/bad.jpg"))
    }

    func testNoUpscaleNeverEnlarges() throws {
        let dir = CLI.tempDir()
        // fit: a smaller image keeps its size and its pixels.
        XCTAssertEqual(CLI.run(["fit", "--size", "1000x1000", "--no-upscale", scene, "-o", dir + "/fit.png"]).status, 0)
        XCTAssertEqual(CLI.run(["convert", scene, "-o", dir + "/whole.png"]).status, 0)
        XCTAssertEqual(CLI.bytes(dir + "/fit.png"), CLI.bytes(dir + "/whole.png"))
        // fill: cropped to the target's aspect ratio, unscaled - the rect plan prints.
        let plan = CLI.run(["plan", "--source", "640x427", "--size", "1000x500"])
        let rect = String(plan.stdout.split(separator: "\n").last!)
        XCTAssertEqual(rect, "0,53,640,321")
        XCTAssertEqual(CLI.run(["fill", "--size", "1000x500", "--no-upscale", scene, "-o", dir + "/fill.png"]).status, 0)
        XCTAssertEqual(CLI.run(["crop", "--rect", rect, scene, "-o", dir + "/crop.png"]).status, 0)
        XCTAssertEqual(CLI.size(dir + "/fill.png"), "640x321")
        XCTAssertEqual(CLI.bytes(dir + "/fill.png"), CLI.bytes(dir + "/crop.png"))
        // Shrinking is unaffected.
        XCTAssertEqual(CLI.run(["fill", "--size", "64x64", "--no-upscale", scene, "-o", dir + "/small.png"]).status, 0)
        XCTAssertEqual(CLI.run(["fill", "--size", "64x64", scene, "-o", dir + "/small2.png"]).status, 0)
        XCTAssertEqual(CLI.bytes(dir + "/small.png"), CLI.bytes(dir + "/small2.png"))
    }

    func testFlattenWritesOpaqueImages() throws {
        let dir = CLI.tempDir()
        let disc = CLI.testImages + "/alpha-disc-100x100.png"
        let r = CLI.run(["fill", "--size", "64x64", "--flatten", "--background", "102030", disc, "-o", dir + "/icon.png"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let (image, _) = try ImageCodec.decode(try ImageFile.read(dir + "/icon.png"))
        XCTAssertEqual(image.channels, 3, "opaque")
        XCTAssertEqual(image[0, 0], [0x10, 0x20, 0x30], "a transparent corner shows the background")
        // Without --flatten the PNG keeps its alpha.
        XCTAssertEqual(CLI.run(["fill", "--size", "64x64", disc, "-o", dir + "/alpha.png"]).status, 0)
        XCTAssertEqual(try ImageCodec.decode(try ImageFile.read(dir + "/alpha.png")).0.channels, 4)
    }
}
