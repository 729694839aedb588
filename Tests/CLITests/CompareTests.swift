import XCTest
import TestReferences
import Foundation
import ImageScaler
import ImageCompare

final class CompareTests: XCTestCase {
    /// A 10x10 gray 100 image and a copy with three pixels raised by 10, 5 and 2.
    func pair() throws -> (String, String) {
        let dir = CLI.tempDir()
        let base = try PixelBuffer(width: 10, height: 10, channels: 1, value: 100)
        var changed = base
        changed.pixels[0] = 110
        changed.pixels[55] = 105
        changed.pixels[99] = 102
        try ImageFile.write(try ImageCodec.encode(base, as: .png), to: dir + "/a.png")
        try ImageFile.write(try ImageCodec.encode(changed, as: .png), to: dir + "/b.png")
        return (dir + "/a.png", dir + "/b.png")
    }

    func testSummaryLinesAndExitCodes() throws {
        let (a, b) = try pair()
        let same = CLI.run(["compare", a, a])
        XCTAssertEqual(same.status, 0)
        XCTAssertEqual(same.stdout, "match: 0 pixels, max difference 0, mean 0.000, PSNR inf dB\n")
        // MSE over RGB samples: 3 * (100 + 25 + 4) / 300 = 1.29; PSNR = 10 log10(65025 / 1.29) = 47.02;
        // mean over RGBA samples: 3 * (10 + 5 + 2) / 400 = 0.1275, printed half up.
        let differ = CLI.run(["compare", a, b])
        XCTAssertEqual(differ.status, 1)
        XCTAssertEqual(differ.stdout, "differ: 3 pixels, max difference 10, mean 0.128, PSNR 47.02 dB\n")
        XCTAssertEqual(CLI.run(["compare", a, b, "--tolerance", "5"]).stdout, "differ: 1 pixels differ by more than 5 levels (limit 0), max difference 10, mean 0.128, PSNR 47.02 dB\n")
        XCTAssertEqual(CLI.run(["compare", a, b, "--tolerance", "10"]).status, 0)
        XCTAssertEqual(CLI.run(["compare", a, b, "--max-pixels-differ", "3"]).status, 0)
        XCTAssertEqual(CLI.run(["compare", a, b, "--max-pixels-differ", "2"]).status, 1)
        XCTAssertEqual(CLI.run(["compare", a, b, "--max-pixels-differ", "3%"]).status, 0)
        XCTAssertEqual(CLI.run(["compare", a, b, "--max-pixels-differ", "2.9%"]).status, 1)
        XCTAssertEqual(CLI.run(["compare", a, b, "--min-psnr", "47"]).status, 0)
        XCTAssertEqual(CLI.run(["compare", a, b, "--min-psnr", "47.5"]).status, 1)
        let json = CLI.run(["compare", "--json", a, b])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["result"] as? String, "differ")
        XCTAssertEqual(object["differing_pixels"] as? Int, 3)
        XCTAssertEqual(object["pixels"] as? Int, 100)
        XCTAssertEqual(object["max_difference"] as? Int, 10)
        XCTAssertEqual(object["mean"] as? Double, 0.1275, "full precision")
        XCTAssertEqual(object["psnr"] as? Double ?? 0, 47.0249, accuracy: 0.0001)
        XCTAssertEqual(object["differing_ratio"] as? Double, 0.03)
        XCTAssertEqual(object["expected_width"] as? Int, 10)
        XCTAssertEqual((object["limits"] as? [String: Any])?["tolerance"] as? Int, 0)
        XCTAssertNotNil(object["bounds"] as? [String: Any])
        let identical = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(CLI.run(["compare", "--json", a, a]).stdout.utf8)) as? [String: Any])
        XCTAssertEqual(identical["psnr"] as? String, "inf", "a string only when identical")
        XCTAssertTrue(identical["bounds"] is NSNull)
    }

    func testSizesUnreadableAndUsage() throws {
        let (a, _) = try pair()
        let other = CLI.testImages + "/gradient-rgb-64x48.png"
        let sizes = CLI.run(["compare", a, other])
        XCTAssertEqual(sizes.status, 1)
        XCTAssertEqual(sizes.stdout, "differ: size 10x10 vs 64x48\n")
        let missing = CLI.run(["compare", a, "/nonexistent.png"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertEqual(missing.stderr, "imgscale: /nonexistent.png: No such file or directory\n")
        let text = CLI.tempDir() + "/t.png"
        _ = FileManager.default.createFile(atPath: text, contents: Data("hello".utf8))
        XCTAssertEqual(CLI.run(["compare", text, a]).status, 2)
        XCTAssertEqual(CLI.run(["compare", a]).status, 2)
        XCTAssertEqual(CLI.run(["compare", a, a, a]).status, 2)
        XCTAssertEqual(CLI.run(["compare", a, a, "--tolerance", "x"]).status, 2)
        XCTAssertEqual(CLI.run(["compare", a, a, "--max-pixels-differ", "1.5"]).status, 2)
    }

    func testTransparentPixelsIgnoreHiddenColourAndMixedFormats() throws {
        let dir = CLI.tempDir()
        let a = try PixelBuffer(width: 2, height: 1, channels: 4, pixels: [0, 255, 0, 0, 9, 9, 9, 255])
        let b = try PixelBuffer(width: 2, height: 1, channels: 4, pixels: [255, 0, 255, 0, 9, 9, 9, 255])
        try ImageFile.write(try ImageCodec.encode(a, as: .png), to: dir + "/a.png")
        try ImageFile.write(try ImageCodec.encode(b, as: .png), to: dir + "/b.png")
        XCTAssertEqual(CLI.run(["compare", dir + "/a.png", dir + "/b.png"]).status, 0)
        let png = CLI.testImages + "/scene-640x427.png", jpg = CLI.testImages + "/scene-640x427.jpg"
        let mixed = CLI.run(["compare", png, jpg, "--min-psnr", "35", "--diff", dir + "/diff.png"])
        XCTAssertEqual(mixed.status, 0, mixed.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/diff.png"), "no diff for a match")
        XCTAssertEqual(CLI.run(["compare", png, jpg, "--diff", dir + "/diff.png"]).status, 1)
        XCTAssertEqual(CLI.size(dir + "/diff.png"), "640x427")
    }

    func testDiffImagePaintsDifferences() throws {
        let (a, b) = try pair()
        let out = CLI.tempDir() + "/d.png"
        XCTAssertEqual(CLI.run(["compare", a, b, "--diff", out]).status, 1)
        let diff = try ImageCodec.decode(try ImageFile.read(out)).0
        XCTAssertEqual(diff.channels, 3)
        XCTAssertEqual(diff[0, 0], [255, 162, 162], "difference 10: red")
        XCTAssertEqual(diff[1, 0], [114, 114, 114], "equal: dimmed grey")
    }

    /// PSNR and mean against numpy over the same pixels (read by Pillow from PNG), colour
    /// premultiplied.
    func testFiguresAgreeWithNumpy() throws {
        let dir = CLI.tempDir()
        let png = CLI.testImages + "/scene-640x427.png"
        XCTAssertEqual(CLI.run(["convert", CLI.testImages + "/scene-640x427.jpg", "-o", dir + "/decoded.png"]).status, 0)
        XCTAssertEqual(CLI.run(["fill", "--size", "640x427", "--gravity", "west", CLI.testImages + "/alpha-disc-100x100.png", "-o", dir + "/alpha.png"]).status, 0)
        let script = """
        import sys, json
        import numpy as np
        from PIL import Image
        images = [Image.open(p) for p in sys.argv[1:3]]
        alpha = any('A' in im.mode for im in images)
        a, b = (np.asarray(im.convert('RGBA'), dtype=np.float64) for im in images)
        both_clear = (a[..., 3] == 0) & (b[..., 3] == 0)
        # Colour premultiplied by alpha, rounded half up to a level; alpha as is.
        for x in (a, b):
            x[..., :3] = np.floor((x[..., :3] * x[..., 3:4] + 127) / 255)
        d = np.abs(a - b)
        d[both_clear] = 0
        mse = (d[..., :4 if alpha else 3] ** 2).mean()
        print(json.dumps({"psnr": None if mse == 0 else 10 * np.log10(255.0 ** 2 / mse), "mean": d.mean()}))
        """
        for (x, y) in [(png, dir + "/decoded.png"), (png, dir + "/alpha.png")] {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            p.arguments = ["python3", "-c", script, x, y]
            let pipe = Pipe()
            p.standardOutput = pipe
            p.standardError = FileHandle.nullDevice
            try p.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            guard p.terminationStatus == 0 else { throw missingReference("python3 with numpy and Pillow is not available") }
            let theirs = try JSONSerialization.jsonObject(with: data) as! [String: Any]
            let ours = try JSONSerialization.jsonObject(with: Data(CLI.run(["compare", "--json", x, y]).stdout.utf8)) as! [String: Any]
            XCTAssertEqual(ours["psnr"] as! Double, theirs["psnr"] as! Double, accuracy: 0.01)
            XCTAssertEqual(ours["mean"] as! Double, theirs["mean"] as! Double, accuracy: 0.001)
        }
    }
}
