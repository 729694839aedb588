import XCTest
import Foundation

/// What build pipelines name: several formats from one decode ({ext}), the sizes made
/// ({width}, {height}) rather than asked, and density sets (--scale, {scale}, {at});
/// each output byte for byte what a single run makes, collisions refused up front.
final class OutputNamingTests: XCTestCase {
    let scene = CLI.testImages + "/scene-640x427.jpg"

    func testSrcsetInTwoFormatsIsNamedByTheWidthsMade() throws {
        let dir = CLI.tempDir()
        let r = CLI.run(["fit", "--size", "320x", "--size", "1920x", "--no-upscale", "--format", "webp", "--format", "avif",
                         scene, "--out-dir", dir + "/srcset", "--name", "{stem}-{width}w.{ext}"])
        XCTAssertEqual(r.status, 0, r.stderr)
        // 1920 asked of a 640-wide photo without upscaling makes 640.
        XCTAssertEqual(CLI.files(dir + "/srcset").sorted(),
                       ["scene-640x427-320w.avif", "scene-640x427-320w.webp", "scene-640x427-640w.avif", "scene-640x427-640w.webp"])
        for (size, width, ext) in [("320x", 320, "webp"), ("320x", 320, "avif"), ("1920x", 640, "webp"), ("1920x", 640, "avif")] {
            let single = dir + "/single.\(ext)"
            XCTAssertEqual(CLI.run(["fit", "--size", size, "--no-upscale", scene, "-o", single]).status, 0)
            XCTAssertEqual(CLI.bytes(dir + "/srcset/scene-640x427-\(width)w.\(ext)"), CLI.bytes(single), "\(size) \(ext)")
        }
        // {w} stays the size asked, and is empty on the open side of a one-sided size.
        XCTAssertEqual(CLI.run(["fit", "--size", "1920x", "--no-upscale", scene, "--out-dir", dir + "/asked", "--name", "{stem}-{w}x{h}.jpg"]).status, 0)
        XCTAssertEqual(CLI.files(dir + "/asked"), ["scene-640x427-1920x.jpg"])
        XCTAssertEqual(CLI.run(["fit", "--size", "200x200", scene, "--out-dir", dir + "/made", "--name", "{stem}-{width}x{height}.png"]).status, 0)
        XCTAssertEqual(CLI.files(dir + "/made"), ["scene-640x427-200x133.png"])
    }

    func testDensitySetsNameEachScale() throws {
        let dir = CLI.tempDir()
        let master = CLI.testImages + "/alpha-disc-100x100.png"
        let r = CLI.run(["fill", "--size", "20x20", "--size", "29x29", "--scale", "1", "--scale", "2", "--scale", "3", master,
                         "--out-dir", dir + "/ios", "--name", "icon-{w}{at}.png"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(CLI.files(dir + "/ios").sorted(), ["icon-20.png", "icon-29.png", "icon-40@2x.png", "icon-58@2x.png",
                                                          "icon-60@3x.png", "icon-87@3x.png"])
        XCTAssertEqual(CLI.size(dir + "/ios/icon-87@3x.png"), "87x87")
        XCTAssertEqual(CLI.run(["fill", "--size", "87x87", master, "-o", dir + "/87.png"]).status, 0)
        XCTAssertEqual(CLI.bytes(dir + "/ios/icon-87@3x.png"), CLI.bytes(dir + "/87.png"))
        // Android's densities, one folder each, named as Android names them.
        let android = CLI.run(["fill", "--size", "48x48", "--scale", "1", "--scale", "1.5", "--scale", "2", "--scale", "3", "--scale", "4",
                               master, "--out-dir", dir + "/res", "--name", "mipmap-{dpi}/ic_launcher.png"])
        XCTAssertEqual(android.status, 0, android.stderr)
        for (density, side) in [("mdpi", 48), ("hdpi", 72), ("xhdpi", 96), ("xxhdpi", 144), ("xxxhdpi", 192)] {
            XCTAssertEqual(CLI.size(dir + "/res/mipmap-\(density)/ic_launcher.png"), "\(side)x\(side)", density)
        }
        let odd = CLI.run(["fill", "--size", "48x48", "--scale", "2.5", master, "--out-dir", dir + "/odd", "--name", "mipmap-{dpi}/a.png"])
        XCTAssertEqual(odd.status, 2)
        XCTAssertTrue(odd.stderr.contains("--scale 2.5 has none"), odd.stderr)
    }

    func testCollidingOrImpossibleNamesAreUsageErrors() {
        let dir = CLI.tempDir()
        for (args, message) in [
            (["--format", "webp", "--format", "webp", "--out-dir", dir + "/a"], "would both write"),
            (["--format", "webp", "--format", "avif", "-o", dir + "/x.webp"], "--format is given 2 times"),
            (["--size", "64x64", "--out-dir", dir + "/b", "--name", "{stem}.png"], "gives all 2 sizes one file name"),
            (["--scale", "0", "--out-dir", dir + "/c"], "--scale must be above 0"),
            (["--scale", "2", "--out-dir", dir + "/d", "--name", "{stem}{at}.{nope}"], "unknown token {nope}"),
        ] {
            let r = CLI.run(["fit", "--size", "32x32", scene] + args)
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(message), "\(args): \(r.stderr)")
        }
        XCTAssertEqual(CLI.files(dir), [])
        let crop = CLI.run(["crop", "--rect", "0,0,10,10", "--scale", "2", scene, "-o", dir + "/c.png"])
        XCTAssertEqual(crop.status, 2)
    }
}
