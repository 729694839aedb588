import XCTest
import TestReferences
import Foundation
import ImageScaler

final class CommandTests: XCTestCase {
    func testConvertFollowsTheExtensionInAnyCase() {
        let dir = CLI.tempDir()
        let png = CLI.testImages + "/scene-640x427.png"
        XCTAssertEqual(CLI.run(["convert", png, "-o", dir + "/a.JPG", "--quality", "90"]).status, 0)
        XCTAssertTrue(CLI.run(["info", dir + "/a.JPG"]).stdout.contains("JPEG 640x427"))
        XCTAssertEqual(CLI.run(["convert", dir + "/a.JPG", "-o", dir + "/b.png"]).status, 0)
        XCTAssertTrue(CLI.run(["info", dir + "/b.png"]).stdout.contains("PNG 640x427"))
        // Content decides the input format: a PNG named .jpg simply works.
        try! FileManager.default.copyItem(atPath: png, toPath: dir + "/really-png.jpg")
        XCTAssertEqual(CLI.run(["convert", dir + "/really-png.jpg", "-o", dir + "/c.png"]).status, 0)
        XCTAssertEqual(CLI.run(["convert", png, "-o", dir + "/c-from-png.png"]).status, 0)
        XCTAssertEqual(CLI.bytes(dir + "/c.png"), CLI.bytes(dir + "/c-from-png.png"))
        // Deterministic: the same bytes every time.
        XCTAssertEqual(CLI.run(["convert", png, "-o", dir + "/d.jpg"]).status, 0)
        XCTAssertEqual(CLI.run(["convert", png, "-o", dir + "/e.jpg"]).status, 0)
        XCTAssertEqual(CLI.bytes(dir + "/d.jpg"), CLI.bytes(dir + "/e.jpg"))
    }

    func testBadInputsExit1WithOneLineAndNoOutput() {
        let dir = CLI.tempDir()
        _ = FileManager.default.createFile(atPath: dir + "/empty.png", contents: Data())
        _ = FileManager.default.createFile(atPath: dir + "/text.png", contents: "hello\n".data(using: .utf8))
        let full = CLI.bytes(CLI.testImages + "/scene-640x427.jpg")!
        _ = FileManager.default.createFile(atPath: dir + "/cut.jpg", contents: full.prefix(full.count / 2))
        let expectations = [("empty.png", "empty file"), ("text.png", "not a \(ImageFormat.names(ImageFormat.allCases, or: true)) file (unrecognised signature)"),
                            ("cut.jpg", "invalid JPEG: Premature end of JPEG file (--fail-on none decodes what is there)"), ("missing.png", "No such file or directory")]
        for (name, reason) in expectations {
            let r = CLI.run(["convert", dir + "/" + name, "-o", dir + "/out-" + name + ".png"])
            XCTAssertEqual(r.status, 1, name)
            XCTAssertEqual(r.stderr, "imgscale: \(dir)/\(name): \(reason)\n")
        }
        XCTAssertEqual(CLI.files(dir).filter { $0.hasPrefix("out-") || $0.contains("imgscale-") }, [])
    }

    func testInfo() {
        let r = CLI.run(["info", CLI.testImages + "/gray16-33x17.png", CLI.testImages + "/scene-640x427.jpg"])
        XCTAssertEqual(r.status, 0)
        XCTAssertEqual(r.stdout, """
        \(CLI.testImages)/gray16-33x17.png: PNG 33x17, 1 channel (gray), 16-bit, orientation 1
        \(CLI.testImages)/scene-640x427.jpg: JPEG 640x427, 3 channels (rgb), 8-bit, orientation 1

        """)
        let j = CLI.run(["info", "--json", CLI.testImages + "/alpha-disc-100x100.png"])
        XCTAssertTrue(j.stdout.contains("\"format\":\"png\",\"width\":100,\"height\":100,\"channels\":4,\"bit_depth\":8"))
    }

    func testFillCropFitPlan() {
        let dir = CLI.tempDir()
        let input = CLI.testImages + "/scene-640x427.jpg"
        XCTAssertEqual(CLI.run(["fill", "--size", "100x300", input, "-o", dir + "/fill.png"]).status, 0)
        XCTAssertEqual(CLI.size(dir + "/fill.png"), "100x300")
        XCTAssertEqual(CLI.run(["crop", "--rect", "600,400,100,100", input, "-o", dir + "/crop.png"]).status, 0)
        XCTAssertEqual(CLI.size(dir + "/crop.png"), "40x27", "clipped to the image")
        XCTAssertEqual(CLI.run(["fit", "--size", "100x100", input, "-o", dir + "/fit.png"]).status, 0)
        XCTAssertEqual(CLI.size(dir + "/fit.png"), "100x67")
        let plan = CLI.run(["plan", "--source", "640x427", "--size", "100x300"])
        XCTAssertEqual(plan.stdout.split(separator: "\n").last, "248,0,144,427")
        let flipped = CLI.run(["plan", "--source", "1000x800", "--size", "100x100", "--from", "362,449,260,160", "--origin", "bottom-left"])
        XCTAssertEqual(flipped.stdout.split(separator: "\n").last, "412,191,160,160")
        let outside = CLI.run(["plan", "--source", "100x100", "--size", "10x10", "--from", "200,200,5,5"])
        XCTAssertEqual(outside.status, 1)
        XCTAssertTrue(outside.stderr.contains("rect 200,200,5,5 (top-left) does not overlap the 100x100 image"))
        let rotated = CLI.run(["plan", "--source", "4000x3000", "--size", "100x100", "--orientation", "6"])
        XCTAssertEqual(rotated.stdout.split(separator: "\n").last, "0,500,3000,3000")
        // crop in bottom-left coordinates: the bottom 10 rows of the image.
        XCTAssertEqual(CLI.run(["crop", "--rect", "0,0,640,10", "--origin", "bottom-left", input, "-o", dir + "/bottom.png"]).status, 0)
        XCTAssertEqual(CLI.run(["crop", "--rect", "0,417,640,10", input, "-o", dir + "/bottom2.png"]).status, 0)
        XCTAssertEqual(CLI.bytes(dir + "/bottom.png"), CLI.bytes(dir + "/bottom2.png"))
    }

    func testFillAgreesWithPillowOverThePlannedRect() throws {
        // The known answer: Pillow's resize(size, BILINEAR, box=plan) of the same pixels.
        let dir = CLI.tempDir()
        let script = """
        import sys, PIL
        from PIL import Image
        if int(PIL.__version__.split('.')[0]) >= 13: sys.exit(3)
        src, x, y, w, h, ow, oh, out = sys.argv[1:]
        x, y, w, h, ow, oh = map(int, (x, y, w, h, ow, oh))
        Image.open(src).resize((ow, oh), Image.BILINEAR, box=(x, y, x + w, y + h)).save(out)
        """
        for (name, size) in [("scene-640x427.png", "64x64"), ("scene-640x427.png", "300x40"), ("alpha-disc-100x100.png", "30x12"),
                             ("gray-alpha-31x29.png", "9x20"), ("strokes-130x90.png", "500x90")] {
            let input = CLI.testImages + "/" + name
            let parts = size.split(separator: "x")
            let plan = CLI.run(["plan", "--source", CLI.size(input)!, "--size", size]).stdout.split(separator: "\n").last!
            let rect = plan.split(separator: ",").map(String.init)
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            p.arguments = ["python3", "-c", script, input] + rect + [String(parts[0]), String(parts[1]), dir + "/pillow.png"]
            try p.run()
            p.waitUntilExit()
            guard p.terminationStatus == 0 else { throw missingReference("python3 with Pillow 10-12 is not available") }
            XCTAssertEqual(CLI.run(["fill", "--size", size, input, "-o", dir + "/ours.png"]).status, 0)
            let cmp = Process()
            cmp.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            cmp.arguments = ["python3", "-c", "import sys; from PIL import Image; a, b = (Image.open(f) for f in sys.argv[1:]); sys.exit(a.tobytes() != b.tobytes() or a.mode != b.mode)",
                             dir + "/ours.png", dir + "/pillow.png"]
            try cmp.run()
            cmp.waitUntilExit()
            XCTAssertEqual(cmp.terminationStatus, 0, "\(name) -> \(size) differs from Pillow")
        }
    }

    func testRealPhotosAndCorpus() throws {
        let photos = try CLI.sharedDir("photos")
        let dir = CLI.tempDir()
        let r = CLI.run(["fill", "--size", "256x256", "--out-dir", dir, "--name", "{stem}.png",
                         photos + "/street-4032x3024.jpg", photos + "/rotated-2048x1536.jpg", photos + "/wide-4608x1976.jpg"])
        XCTAssertEqual(r.status, 0, r.stderr)
        for name in ["street-4032x3024.png", "rotated-2048x1536.png", "wide-4608x1976.png"] {
            XCTAssertEqual(CLI.size(dir + "/" + name), "256x256")
        }
        let jpeg = try CLI.sharedDir("jpeg")
        let bad = CLI.run(["convert", jpeg + "/monkey12.jpg", "-o", dir + "/m.png"])
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.contains("12-bit JPEG is not supported"))
        let png = try CLI.sharedDir("pngsuite/png")
        let crc = CLI.run(["convert", png + "/xcsn0g01.png", "-o", dir + "/x.png"])
        XCTAssertEqual(crc.status, 1)
        XCTAssertTrue(crc.stderr.hasPrefix("imgscale: \(png)/xcsn0g01.png: invalid PNG: "), crc.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/x.png"))
    }
}
