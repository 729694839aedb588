import XCTest
import TestReferences
import Foundation

/// The smaller promises, through the CLI: limits that follow from the arguments are
/// usage errors, damaged files obey --fail-on, metadata never carries a stale
/// orientation or size, and options that do nothing say so.
final class PromiseTests: XCTestCase {
    let scene = CLI.testImages + "/scene-640x427.jpg"
    let scenePNG = CLI.testImages + "/scene-640x427.png"

    func testOutputLimitsFromTheArgumentsAreUsageErrors() {
        let dir = CLI.tempDir()
        for (args, message) in [(["fill", "--size", "20000x20000", scene, "-o", dir + "/a.png"], "over the limit of 268402689"),
                                (["fill", "--size", "70000x10", scene, "-o", dir + "/a.jpg"], "JPEG, which allows at most 65535"),
                                (["fit", "--pad", "--size", "10x70000", scene, "-o", dir + "/a.jpg"], "JPEG, which allows at most 65535")] {
            let r = CLI.run(args)
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(message), r.stderr)
        }
        // When the size follows from the input, that input fails before decoding.
        let fit = CLI.run(["fit", "--size", "100000x70000", scene, "-o", dir + "/a.jpg"])
        XCTAssertEqual(fit.status, 1)
        XCTAssertTrue(fit.stderr.contains("output would be 100000x66719, but JPEG allows at most 65535 pixels per side"), fit.stderr)
        // libpng's own 1,000,000-row write limit is lifted to PNG's.
        let tall = CLI.run(["fill", "--size", "1x1100000", scene, "-o", dir + "/tall.png"])
        XCTAssertEqual(tall.status, 0, tall.stderr)
        XCTAssertEqual(CLI.size(dir + "/tall.png"), "1x1100000")
        XCTAssertEqual(CLI.files(dir), ["tall.png"])
    }

    func testFailOnLevels() throws {
        let dir = CLI.tempDir()
        let jpeg = try Data(contentsOf: URL(fileURLWithPath: scene))
        try jpeg.prefix(jpeg.count * 2 / 3).write(to: URL(fileURLWithPath: dir + "/cut.jpg"))
        let png = try Data(contentsOf: URL(fileURLWithPath: scenePNG))
        try png.prefix(20000).write(to: URL(fileURLWithPath: dir + "/cut.png"))
        // A flipped byte inside the zlib stream: corrupt, not missing.
        var bad = [UInt8](png)
        let idat = bad.indices.first { bad[$0] == 0x49 && bad[$0 + 1] == 0x44 && bad[$0 + 2] == 0x41 && bad[$0 + 3] == 0x54 }!
        bad[idat + 200] ^= 0xFF
        try Data(bad).write(to: URL(fileURLWithPath: dir + "/corrupt.png"))
        let expectations: [(String, [String: Int32])] = [
            ("cut.jpg", ["warning": 1, "error": 1, "truncated": 1, "none": 0]),
            ("cut.png", ["warning": 1, "error": 1, "truncated": 1, "none": 0]),
            ("corrupt.png", ["warning": 1, "error": 1, "truncated": 0, "none": 0]),
        ]
        for (name, levels) in expectations {
            for (level, status) in levels {
                let out = dir + "/out-\(level)-\(name).png"
                let r = CLI.run(["fill", "--size", "64x64", "--fail-on", level, dir + "/" + name, "-o", out])
                XCTAssertEqual(r.status, status, "\(name) --fail-on \(level): \(r.stderr)")
                let lines = r.stderr.split(separator: "\n")
                XCTAssertEqual(lines.count, 1, r.stderr)
                if status == 0 {
                    XCTAssertTrue(r.stderr.hasPrefix("imgscale: \(dir)/\(name): warning: damaged"), r.stderr)
                    XCTAssertEqual(CLI.size(out), "64x64")
                } else {
                    XCTAssertFalse(FileManager.default.fileExists(atPath: out), "nothing partial")
                }
            }
        }
        // The default is the strictest level; an unknown one is a usage error.
        XCTAssertEqual(CLI.run(["fill", "--size", "8x8", dir + "/corrupt.png", "-o", dir + "/d.png"]).status, 1)
        XCTAssertEqual(CLI.run(["fill", "--size", "8x8", "--fail-on", "never", scene, "-o", dir + "/d.png"]).status, 2)
    }

    func testMetadataNeverCarriesAStaleOrientationOrSize() throws {
        let dir = CLI.tempDir()
        let made = CLI.sh("python3 '\(CLI.root)/scripts/make-hostile' . exif-long-6.jpg", cwd: dir)
        XCTAssertEqual(made.status, 0, made.stderr)
        let r = CLI.run(["fit", "--size", "100x100", "--keep-metadata", dir + "/exif-long-6.jpg", "-o", dir + "/out.jpg"])
        XCTAssertEqual(r.status, 0, r.stderr)
        // Pillow, an outside reader, sees orientation 1 and the output's own size.
        let check = CLI.sh("""
            python3 -c "
            from PIL import Image
            e = Image.open('out.jpg').getexif()
            print(e.get(274), e.get_ifd(0x8769).get(40962), e.get_ifd(0x8769).get(40963))
            "
            """, cwd: dir)
        if check.stderr.contains("No module named") { throw missingReference("Pillow is not installed") }
        XCTAssertEqual(check.stdout, "1 100 67\n", check.stderr)
    }

    func testOptionsWithoutEffectAndUnwritableReportsSaySo() {
        let dir = CLI.tempDir()
        let png = CLI.run(["fill", "--size", "8x8", scene, "-o", dir + "/a.png", "--quality", "50"])
        XCTAssertEqual(png.status, 0)
        XCTAssertEqual(png.stderr, "imgscale: warning: --quality applies to JPEG, WebP, HEIC, AVIF or JPEG XL output only; it has no effect on PNG output\n")
        let jpeg = CLI.run(["fill", "--size", "8x8", scene, "-o", dir + "/a.jpg", "--palette"])
        XCTAssertEqual(jpeg.stderr, "imgscale: warning: --palette applies to PNG or ICO output only; it has no effect on JPEG output\n")
        XCTAssertEqual(CLI.run(["fill", "--size", "8x8", scene, "-o", dir + "/b.jpg", "--quality", "50"]).stderr, "")
        let full = CLI.run(["fill", "--size", "8x8", scene, "-o", dir + "/c.jpg", "--report", "/dev/full"])
        XCTAssertEqual(full.status, 1)
        XCTAssertTrue(full.stderr.contains("imgscale: --report /dev/full: No space left on device"), full.stderr)
    }
}
