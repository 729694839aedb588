import XCTest
import TestReferences
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import ImageScaler
import ImageCompare

/// Golden testing through `imgscale compare`: pixelmatch's perceptual counts, masks,
/// alpha in PSNR, diffs only for failures, whole directories with JUnit and updates.
final class GoldenSuiteTests: XCTestCase {
    /// Pairs made by Pillow (text shifted by 0.25 and 1 px, a changed glyph, a JPEG
    /// re-encode, a 1-level shift, alpha changes) and pixelmatch 0.4.0's counts for them.
    func testCountsEqualPixelmatch() throws {
        let dir = CLI.tempDir()
        let made = CLI.sh("""
            python3 - <<'EOF'
            import io, json
            from PIL import Image, ImageDraw, ImageFont
            from pixelmatch import pixelmatch
            def text(dx, s='Hello, golden 0123', k=4):
                im = Image.new('RGB', (240 * k, 48 * k), 'white')
                try:
                    f = ImageFont.truetype('DejaVuSans.ttf', 22 * k)
                except Exception:
                    f = ImageFont.load_default()
                ImageDraw.Draw(im).text((int(8 * k + dx * k), 8 * k), s, fill='black', font=f)
                return im.resize((240, 48), Image.LANCZOS)
            base = text(0)
            buf = io.BytesIO(); base.save(buf, 'JPEG', quality=80); buf.seek(0)
            a = base.convert('RGBA'); b = a.copy(); px = b.load()
            for y in range(10, 30):
                for x in range(20, 120):
                    r, g, bb, al = px[x, y]; px[x, y] = (r, g, bb, max(0, al - 127))
            c = Image.new('RGBA', (64, 64), (255, 0, 0, 0)); d = c.copy()
            ImageDraw.Draw(c).ellipse((8, 8, 56, 56), fill=(0, 0, 255, 128))
            ImageDraw.Draw(d).ellipse((9, 8, 57, 56), fill=(0, 0, 255, 140))
            pairs = {'shift025': (base, text(0.25)), 'shift1': (base, text(1)), 'glyph': (base, text(0, 'Hello, golden 0124')),
                     'jpeg': (base, Image.open(buf).convert('RGB')), 'level': (base, base.point(lambda v: max(0, v - 1))),
                     'alpha': (a, b), 'semi': (c, d)}
            # Where the anti-aliasing rule decides: three-level noise against itself moved
            # a pixel, and stepped bands against bands a level apart, put many pixels
            # beside exactly two or three equal siblings.
            import random
            rnd = random.Random(7)
            n = Image.new('L', (64, 64)); n.putdata([rnd.choice((0, 128, 255)) for _ in range(64 * 64)]); n = n.convert('RGB')
            pairs['noise3'] = (n, n.transform(n.size, Image.AFFINE, (1, 0, 1, 0, 1, 0)))
            steps = Image.new('L', (64, 64)); steps.putdata([((x // 3 + y // 2) % 5) * 60 for y in range(64) for x in range(64)])
            pairs['steps'] = (steps.convert('RGB'), steps.point(lambda v: min(255, v + 40)).convert('RGB').transform((64, 64), Image.AFFINE, (1, 0, 0, 0, 1, 1)))
            out = {}
            for name, (x, y) in pairs.items():
                x.save(name + '-a.png'); y.save(name + '-b.png')
                xa, ya = x.convert('RGBA'), y.convert('RGBA')
                out[name] = {f'{t} {aa}': pixelmatch(list(xa.tobytes()), list(ya.tobytes()), xa.width, xa.height, threshold=t, includeAA=aa)
                             for t in (0.05, 0.1, 0.3) for aa in (False, True)}
            print(json.dumps(out))
            EOF
            """, cwd: dir)
        if made.stderr.contains("No module named") { throw missingReference("Pillow or pixelmatch 0.4.0 is not installed") }
        XCTAssertEqual(made.status, 0, made.stderr)
        let reference = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(made.stdout.utf8)) as? [String: [String: Int]])
        XCTAssertEqual(reference.count, 9)
        for (name, counts) in reference {
            for (key, want) in counts {
                let parts = key.split(separator: " ")
                let aa = parts[1] == "True" ? ["--antialiasing", "count"] : []
                let r = CLI.run(["compare", "--json", "--threshold", String(parts[0])] + aa + [dir + "/\(name)-a.png", dir + "/\(name)-b.png"])
                let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], r.stderr)
                XCTAssertEqual(object["differing_pixels"] as? Int, want, "\(name) \(key)")
            }
        }
        // The point of it: at 0.3 a quarter-pixel shift of antialiased text passes and a real glyph change fails.
        XCTAssertEqual(reference["shift025"]?["0.3 False"], 0)
        XCTAssertGreaterThan(reference["glyph"]?["0.3 False"] ?? 0, 0)
        XCTAssertEqual(CLI.run(["compare", "--threshold", "0.3", dir + "/shift025-a.png", dir + "/shift025-b.png"]).status, 0)
        XCTAssertEqual(CLI.run(["compare", "--threshold", "0.3", dir + "/glyph-a.png", dir + "/glyph-b.png"]).status, 1)
    }

    /// A 60x40 image and a copy with a changed 10x10 block at 30,20 and alpha lowered in a strip.
    private func pair(in dir: String) throws -> (String, String) {
        var a = try PixelBuffer(width: 60, height: 40, channels: 4, value: 200)
        for i in stride(from: 3, to: a.pixels.count, by: 4) { a.pixels[i] = 255 }
        var b = a
        for y in 20..<30 { for x in 30..<40 { b.pixels[(y * 60 + x) * 4] = 20 } }
        try ImageFile.write(try ImageCodec.encode(a, as: .png), to: dir + "/a.png")
        try ImageFile.write(try ImageCodec.encode(b, as: .png), to: dir + "/b.png")
        return (dir + "/a.png", dir + "/b.png")
    }

    func testIgnoredRectsMasksAndAlphaOnlyChanges() throws {
        let dir = CLI.tempDir()
        let (a, b) = try pair(in: dir)
        let plain = CLI.run(["compare", "--json", a, b])
        XCTAssertEqual(plain.status, 1)
        XCTAssertTrue(plain.stdout.contains(#""bounds":{"x":30,"y":20,"width":10,"height":10}"#), plain.stdout)
        XCTAssertEqual(CLI.run(["compare", a, b, "--ignore", "30,20,10,10"]).status, 0)
        XCTAssertEqual(CLI.run(["compare", a, b, "--ignore", "0,0,5,5", "--ignore", "25,15,20,20"]).status, 0, "repeatable")
        XCTAssertEqual(CLI.run(["compare", a, b, "--ignore", "30,20,9,10"]).status, 1, "one column still compared")
        // A mask: black where the clock is.
        var mask = try PixelBuffer(width: 60, height: 40, channels: 3, value: 255)
        for y in 18..<32 { for x in 28..<42 { for c in 0..<3 { mask.pixels[(y * 60 + x) * 3 + c] = 0 } } }
        try ImageFile.write(try ImageCodec.encode(mask, as: .png), to: dir + "/mask.png")
        XCTAssertEqual(CLI.run(["compare", a, b, "--mask", dir + "/mask.png"]).status, 0)
        // Alpha alone: PSNR counts it, so --min-psnr no longer passes a broken icon.
        var icon = try PixelBuffer(width: 50, height: 50, channels: 4, value: 90)
        var broken = icon
        for i in stride(from: 3, to: icon.pixels.count, by: 4) { icon.pixels[i] = 255; broken.pixels[i] = i % 8 == 3 ? 128 : 255 }
        try ImageFile.write(try ImageCodec.encode(icon, as: .png), to: dir + "/icon.png")
        try ImageFile.write(try ImageCodec.encode(broken, as: .png), to: dir + "/broken.png")
        let r = CLI.run(["compare", "--min-psnr", "30", dir + "/icon.png", dir + "/broken.png"])
        XCTAssertEqual(r.status, 1, r.stdout)
        XCTAssertFalse(r.stdout.contains("PSNR inf"), r.stdout)
    }

    func testDiffsOnlyForFailuresInEveryStyleAndOnTheLargerCanvas() throws {
        let dir = CLI.tempDir()
        let (a, b) = try pair(in: dir)
        XCTAssertEqual(CLI.run(["compare", a, a, "--diff", dir + "/none.png"]).status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/none.png"))
        for (style, size) in [("overlay", "60x40"), ("mask", "60x40"), ("side-by-side", "180x40")] {
            XCTAssertEqual(CLI.run(["compare", a, b, "--diff", dir + "/\(style).png", "--diff-style", style]).status, 1)
            XCTAssertEqual(CLI.size(dir + "/\(style).png"), size, style)
        }
        let mask = try ImageCodec.decode(try ImageFile.read(dir + "/mask.png")).0
        XCTAssertEqual(mask[0, 0], [0, 0, 0, 0], "mask: transparent where equal")
        XCTAssertEqual(mask[35, 25], [255, 0, 0, 255], "mask: full red where it differs by 64 or more")
        XCTAssertEqual(CLI.run(["fit", "--size", "30x", a, "-o", dir + "/small.png"]).status, 0)
        let sizes = CLI.run(["compare", a, dir + "/small.png", "--diff", dir + "/sizes.png"])
        XCTAssertEqual(sizes.stdout, "differ: size 60x40 vs 30x20\n")
        XCTAssertEqual(CLI.size(dir + "/sizes.png"), "60x40")
        // Unreadable: a JSON object with the error, and exit 2.
        let bad = CLI.run(["compare", "--json", a, dir + "/missing.png"])
        XCTAssertEqual(bad.status, 2)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(bad.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["result"] as? String, "error")
        XCTAssertTrue((object["error"] as? String ?? "").contains("missing.png"))
    }

    func testDirectoriesJUnitAndUpdates() throws {
        let root = CLI.tempDir()
        let goldens = root + "/goldens", actual = root + "/actual"
        var expectedFailures: Set<String> = []
        for i in 0..<30 {
            let sub = i % 3 == 0 ? "icons/" : ""
            for d in [goldens, actual] { try FileManager.default.createDirectory(atPath: d + "/" + sub, withIntermediateDirectories: true) }
            let name = sub + "shot-\(i).png"
            var image = try PixelBuffer(width: 32, height: 24, channels: 3, value: UInt8(i * 8))
            try ImageFile.write(try ImageCodec.encode(image, as: .png), to: goldens + "/" + name)
            if i % 10 == 7 {
                image.pixels[5] = 255
                expectedFailures.insert(name)
            }
            if i != 29 { try ImageFile.write(try ImageCodec.encode(image, as: .png), to: actual + "/" + name) }
        }
        try ImageFile.write(try ImageCodec.encode(try PixelBuffer(width: 4, height: 4, channels: 3), as: .png), to: actual + "/new.png")
        let r = CLI.run(["compare", "-j2", goldens, actual, "--junit", root + "/junit.xml", "--diff", root + "/diffs"])
        XCTAssertEqual(r.status, 1)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.filter { $0.contains(".png: differ: 1 pixels") }.count, 3, r.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("missing: shot-29.png") }, r.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("extra: new.png") }, r.stdout)
        XCTAssertTrue(r.stderr.contains("compared 31: 26 match, 3 differ, 1 missing, 1 extra, 0 unreadable"), r.stderr)
        XCTAssertEqual(Set(CLI.files(root + "/diffs")), ["shot-7.png.diff.png", "shot-17.png.diff.png", "icons"])
        XCTAssertEqual(CLI.files(root + "/diffs/icons"), ["shot-27.png.diff.png"])
        // The JUnit file parses: 31 cases, 5 failures.
        let xml = try XMLDocument(contentsOf: URL(fileURLWithPath: root + "/junit.xml"))
        let suite = try XCTUnwrap(try xml.nodes(forXPath: "//testsuite").first as? XMLElement)
        XCTAssertEqual(suite.attribute(forName: "tests")?.stringValue, "31")
        XCTAssertEqual(suite.attribute(forName: "failures")?.stringValue, "5")
        XCTAssertEqual(try xml.nodes(forXPath: "//testcase/failure").count, 5)
        // --update missing adds the new image only; failed fixes the rest but cannot invent shot-29.
        XCTAssertEqual(CLI.run(["compare", goldens, actual, "--update", "missing"]).status, 1)
        XCTAssertTrue(FileManager.default.fileExists(atPath: goldens + "/new.png"))
        let fixed = CLI.run(["compare", goldens, actual, "--update", "failed"])
        XCTAssertEqual(fixed.status, 1, "shot-29 is still missing from actual")
        XCTAssertEqual(fixed.stderr.components(separatedBy: "imgscale: updated").count - 1, 3, fixed.stderr)
        try FileManager.default.removeItem(atPath: goldens + "/shot-29.png")
        XCTAssertEqual(CLI.run(["compare", goldens, actual]).status, 0)
        XCTAssertEqual(expectedFailures, ["shot-7.png", "shot-17.png", "icons/shot-27.png"])
        // A FIFO named like an image is not an image to compare or copy: no hang.
        XCTAssertEqual(CLI.sh("mkfifo '\(actual)/pipe.png'").status, 0)
        let fifo = CLI.sh("timeout 20 '\(CLI.binary)' compare '\(goldens)' '\(actual)' --update missing")
        XCTAssertEqual(fifo.status, 0, fifo.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: goldens + "/pipe.png"))
    }
}

/// The --html report, opened in a real headless Chromium: the page shows the summary and
/// the first failure's expected and actual images (solid red and blue, so a screenshot
/// can be checked pixel by pixel).
final class HTMLReportTests: XCTestCase {
    func testChromiumShowsTheFirstFailure() throws {
        guard let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first(where: FileManager.default.isExecutableFile) else {
            throw missingReference("chromium is not installed (scripts/install-deps --test installs it)")
        }
        let root = CLI.tempDir()
        for d in ["goldens", "actual"] { try FileManager.default.createDirectory(atPath: root + "/" + d, withIntermediateDirectories: true) }
        func solid(_ rgb: [UInt8]) -> PixelBuffer {
            try! PixelBuffer(width: 200, height: 150, channels: 3, pixels: Array((0..<(200 * 150)).flatMap { _ in rgb }))
        }
        try ImageFile.write(try ImageCodec.encode(solid([255, 0, 0]), as: .png), to: root + "/goldens/a-button.png")
        try ImageFile.write(try ImageCodec.encode(solid([0, 0, 255]), as: .png), to: root + "/actual/a-button.png")
        for name in ["b-same.png", "c-same.png"] {
            try ImageFile.write(try ImageCodec.encode(solid([90, 90, 90]), as: .png), to: root + "/goldens/" + name)
            try ImageFile.write(try ImageCodec.encode(solid([90, 90, 90]), as: .png), to: root + "/actual/" + name)
        }
        let r = CLI.run(["compare", root + "/goldens", root + "/actual", "--html", root + "/report"])
        XCTAssertEqual(r.status, 1, r.stderr)
        let html = try String(contentsOfFile: root + "/report/index.html", encoding: .utf8)
        XCTAssertTrue(html.contains("<span id=\"failed\">1</span> of 3 failed:\n2 match"), html)
        XCTAssertEqual(CLI.files(root + "/report/files"), ["a-button.png.actual.png", "a-button.png.diff.png", "a-button.png.expected.png"])
        let shot = root + "/shot.png"
        let run = CLI.sh("'\(chromium)' --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1200,800 "
                         + "--screenshot='\(shot)' 'file://\(root)/report/index.html' >/dev/null 2>&1")
        XCTAssertEqual(run.status, 0)
        let screenshot = try ImageCodec.decode(try ImageFile.read(shot)).0.rgba()
        var red = 0, blue = 0
        for i in stride(from: 0, to: screenshot.count, by: 4) {
            if screenshot[i] == 255 && screenshot[i + 1] == 0 && screenshot[i + 2] == 0 { red += 1 }
            if screenshot[i] == 0 && screenshot[i + 1] == 0 && screenshot[i + 2] == 255 { blue += 1 }
        }
        // Both images, whole (200x150 each, less their 1-pixel borders), are on screen.
        XCTAssertGreaterThanOrEqual(red, 198 * 148, "the expected image is shown")
        XCTAssertGreaterThanOrEqual(blue, 198 * 148, "the actual image is shown")
    }
}

/// compare at 16 bits, and upright.
final class CompareDepthAndOrientationTests: XCTestCase {
    /// A 16-bit RGB PNG written by hand (zlib through Foundation is not available, so
    /// stored deflate blocks).
    static func png16(_ width: Int, _ height: Int, _ sample: (Int, Int, Int) -> UInt16) -> Data {
        var raw: [UInt8] = []
        for y in 0..<height {
            raw.append(0)
            for x in 0..<width { for c in 0..<3 { let v = sample(x, y, c); raw += [UInt8(v >> 8), UInt8(v & 0xFF)] } }
        }
        let ihdr = Crafted.be32(UInt32(width)) + Crafted.be32(UInt32(height)) + [16, 2, 0, 0, 0]
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Crafted.chunk("IHDR", ihdr)
                    + Crafted.chunk("IDAT", Crafted.zlibStored(raw)) + Crafted.chunk("IEND", []))
    }

    func testSixteenBitPNGsAreComparedAtSixteenBits() throws {
        let dir = CLI.tempDir()
        XCTAssertTrue(FileManager.default.createFile(atPath: dir + "/a.png", contents: Self.png16(30, 20) { _, _, _ in 30000 }))
        // One sample one 16-bit level off: an 8-bit reduction would hide it.
        XCTAssertTrue(FileManager.default.createFile(atPath: dir + "/b.png", contents: Self.png16(30, 20) { x, y, c in
            x == 5 && y == 5 && c == 0 ? 30001 : 30000 }))
        let r = CLI.run(["compare", dir + "/a.png", dir + "/b.png"])
        XCTAssertEqual(r.status, 1, r.stdout)
        XCTAssertTrue(r.stdout.hasPrefix("differ: 1 pixels, max difference 1,") && r.stdout.contains("(16-bit)"), r.stdout)
        // --tolerance stays in 8-bit levels: 1 level is 257 at 16 bits.
        XCTAssertEqual(CLI.run(["compare", "--tolerance", "1", dir + "/a.png", dir + "/b.png"]).status, 0)
        let json = CLI.run(["compare", "--json", dir + "/a.png", dir + "/b.png"]).stdout
        XCTAssertTrue(json.contains(#""bit_depth":16"#), json)
    }

    /// Every format whose decoder reads more than 8 bits is compared at 16, not PNG alone:
    /// lossless JPEG XL from cjxl and 16-bit gray TIFF from Pillow, one sample a 16-bit
    /// level apart.
    func testSixteenBitJPEGXLAndTIFFAreComparedAtSixteenBits() throws {
        let dir = CLI.tempDir()
        XCTAssertTrue(FileManager.default.createFile(atPath: dir + "/a.png", contents: Self.png16(30, 20) { _, _, _ in 30000 }))
        XCTAssertTrue(FileManager.default.createFile(atPath: dir + "/b.png", contents: Self.png16(30, 20) { x, y, c in
            x == 5 && y == 5 && c == 0 ? 30001 : 30000 }))
        let made = CLI.sh("""
            set -e
            command -v cjxl > /dev/null || { echo "no cjxl" >&2; exit 3; }
            cjxl -d 0 a.png a.jxl > /dev/null 2>&1; cjxl -d 0 b.png b.jxl > /dev/null 2>&1
            python3 -c "
            import numpy as np
            from PIL import Image
            a = np.full((20, 30), 30000, np.uint16); b = a.copy(); b[5, 5] = 30001
            Image.fromarray(a).save('a.tif'); Image.fromarray(b).save('b.tif')
            "
            """, cwd: dir)
        if made.status == 3 { throw missingReference("cjxl (libjxl-tools) is not installed") }
        if made.stderr.contains("No module named") { throw missingReference("Pillow or numpy is not installed") }
        XCTAssertEqual(made.status, 0, made.stderr)
        for ext in ["jxl", "tif"] {
            let r = CLI.run(["compare", dir + "/a." + ext, dir + "/b." + ext])
            XCTAssertEqual(r.status, 1, ext + ": " + r.stdout + r.stderr)
            XCTAssertTrue(r.stdout.hasPrefix("differ: 1 pixels, max difference 1,") && r.stdout.contains("(16-bit)"), ext + ": " + r.stdout)
            XCTAssertEqual(CLI.run(["compare", "--tolerance", "1", dir + "/a." + ext, dir + "/b." + ext]).status, 0, ext)
        }
    }

    func testImagesAreComparedUpright() throws {
        let dir = CLI.tempDir()
        let made = CLI.sh("""
            python3 -c "
            from PIL import Image
            im = Image.open('\(CLI.testImages)/scene-640x427.jpg')
            exif = Image.Exif(); exif[274] = 6
            im.save('o6.jpg', exif=exif, quality=90)
            "
            """, cwd: dir)
        if made.stderr.contains("No module named") { throw missingReference("Pillow is not installed") }
        XCTAssertEqual(made.status, 0, made.stderr)
        let jpeg = dir + "/o6.jpg"
        XCTAssertEqual(CLI.run(["convert", jpeg, "-o", dir + "/upright.png"]).status, 0)
        XCTAssertEqual(CLI.run(["compare", jpeg, dir + "/upright.png"]).status, 0, "EXIF orientation applied before comparing")
        let stored = CLI.run(["compare", "--no-auto-orient", jpeg, dir + "/upright.png"])
        XCTAssertEqual(stored.status, 1)
        XCTAssertTrue(stored.stdout.hasPrefix("differ: size"), stored.stdout)
    }
}
