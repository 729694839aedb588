import XCTest
import TestReferences
import Foundation

/// `--trim` against libvips 8.18's find_trim (pyvips-binary): product shots on white, on a
/// gradient, with JPEG noise and with alpha, at the default threshold and at 30, each
/// edge within a pixel; a uniform picture is left whole with a warning; --trim before
/// fill, fit and crop; and its usage errors.
final class TrimTests: XCTestCase {
    private static let make = #"""
    import sys, json, numpy as np, pyvips
    from PIL import Image
    d = sys.argv[1]
    rng = np.random.default_rng(5)
    a = np.full((240, 320, 3), 255, np.uint8); a[50:170, 80:260] = [200, 30, 40]; a[100:110, 60:80] = [10, 10, 10]
    Image.fromarray(a).save(d + "/white.png"); Image.fromarray(a).save(d + "/white-q70.jpg", quality=70)
    g = np.tile(np.linspace(100, 140, 320).astype(np.uint8)[None, :, None], (240, 1, 3)); g[60:180, 100:220] = [20, 200, 20]
    Image.fromarray(g).save(d + "/gradient.png")
    n = np.clip(np.full((200, 300, 3), 240, np.int16) + rng.integers(-4, 5, (200, 300, 3)), 0, 255).astype(np.uint8); n[30:150, 40:200] = [90, 90, 200]
    Image.fromarray(n).save(d + "/noise.png")
    t = np.zeros((180, 260, 4), np.uint8); t[40:120, 70:200] = [250, 180, 0, 255]; t[120:140, 70:200] = [250, 180, 0, 128]
    Image.fromarray(t).save(d + "/alpha.png")
    s = np.full((150, 150, 3), 235, np.uint8); s[20:130, 30:120] = np.linspace(0, 255, 90).astype(np.uint8)[None, :, None]
    Image.fromarray(s).save(d + "/shade-q85.jpg", quality=85)
    out = {}
    for name in ["white.png", "white-q70.jpg", "gradient.png", "noise.png", "alpha.png", "shade-q85.jpg"]:
        im = pyvips.Image.new_from_file(d + "/" + name)
        bg = (im.flatten(background=[255, 255, 255]) if im.hasalpha() else im).getpoint(0, 0)
        out[name] = [im.find_trim(threshold=t, background=bg) for t in (10, 30)]
    print(json.dumps(out))
    """#

    func testTrimEqualsFindTrim() throws {
        let dir = CLI.tempDir()
        guard let reply = CLI.python(Self.make, [dir]) else { throw missingReference("python3 cannot be started") }
        if String(decoding: reply.stderr, as: UTF8.self).contains("No module named 'pyvips'") {
            throw missingReference("pyvips is not installed (scripts/install-deps --test installs it)")
        }
        XCTAssertEqual(reply.status, 0, String(decoding: reply.stderr, as: UTF8.self))
        let vips = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(reply.stdout)) as? [String: [[Int]]])
        XCTAssertEqual(vips.count, 6)
        for (name, rects) in vips.sorted(by: { $0.key < $1.key }) {
            for (threshold, want) in zip(["10", "30"], rects) {
                let r = CLI.run(["plan", "convert", "--trim", threshold, dir + "/" + name, "-o", dir + "/out.png"])
                XCTAssertEqual(r.status, 0, r.stderr)
                let m = try XCTUnwrap(r.stdout.firstMatch(of: /crop (\d+),(\d+),(\d+),(\d+)/), "\(name): \(r.stdout)")
                let (x, y, w, h) = (Int(m.1)!, Int(m.2)!, Int(m.3)!, Int(m.4)!)
                let edges = [x - want[0], y - want[1], (x + w) - (want[0] + want[2]), (y + h) - (want[1] + want[3])]
                XCTAssertTrue(edges.allSatisfy { abs($0) <= 1 }, "\(name) --trim \(threshold): \(x),\(y),\(w),\(h) against libvips's \(want)")
            }
        }
    }

    func testTrimBeforeTheOperationAndUsage() throws {
        let dir = CLI.tempDir()
        let png = dir + "/framed.png"
        // 100x80 of white around a 40x20 block at 30,25.
        guard let reply = CLI.python(#"""
            import sys, numpy as np
            from PIL import Image
            a = np.full((80, 100, 3), 255, np.uint8); a[25:45, 30:70] = [0, 80, 160]
            Image.fromarray(a).save(sys.argv[1])
            """#, [png]) else { throw missingReference("python3 cannot be started") }
        XCTAssertEqual(reply.status, 0)
        let trimmed = CLI.run(["convert", "--trim", png, "-o", dir + "/t.png"])
        XCTAssertEqual(trimmed.status, 0, trimmed.stderr)
        XCTAssertEqual(CLI.size(dir + "/t.png"), "40x20")
        XCTAssertEqual(CLI.run(["fit", "--size", "20x", "--trim", png, "-o", dir + "/f.png"]).status, 0)
        XCTAssertEqual(CLI.size(dir + "/f.png"), "20x10")
        XCTAssertEqual(CLI.run(["fill", "--size", "10x10", "--trim", png, "-o", dir + "/g.png"]).status, 0)
        XCTAssertEqual(CLI.run(["fill", "--size", "10x10", "--from", "30,25,40,20", png, "-o", dir + "/h.png"]).status, 0)
        XCTAssertEqual(CLI.bytes(dir + "/g.png"), CLI.bytes(dir + "/h.png"), "a fill after --trim is a fill from the trimmed box")
        XCTAssertEqual(CLI.run(["crop", "--rect", "5,5,10,10", "--trim", png, "-o", dir + "/c.png"]).status, 0)
        XCTAssertEqual(CLI.run(["crop", "--rect", "35,30,10,10", png, "-o", dir + "/d.png"]).status, 0)
        XCTAssertEqual(CLI.bytes(dir + "/c.png"), CLI.bytes(dir + "/d.png"), "a crop after --trim is within the trimmed box")
        // A uniform picture is left whole, with a warning.
        let flat = CLI.run(["convert", "--trim", CLI.testImages + "/two-colour-8x8.png", "--trim-color", "000000", "-o", dir + "/w.png"])
        XCTAssertEqual(flat.status, 0, flat.stderr)
        let uniform = dir + "/uniform.png"
        _ = CLI.python("from PIL import Image; import sys; Image.new('RGB', (30, 20), (9, 9, 9)).save(sys.argv[1])", [uniform])
        let whole = CLI.run(["convert", "--trim", uniform, "-o", dir + "/u.png"])
        XCTAssertEqual(whole.status, 0)
        XCTAssertTrue(whole.stderr.contains("warning: it is all one colour within --trim's threshold, so it was left whole"), whole.stderr)
        XCTAssertEqual(CLI.size(dir + "/u.png"), "30x20")
        for (args, words) in [(["--trim-color", "fff"], "--trim-color is the border colour of --trim"),
                              (["--trim=-3"], "--trim must be a number"),
                              (["--trim", "--animated"], "--trim finds one border")] {
            let r = CLI.run(["convert", png, "-o", dir + "/e.png"] + args)
            XCTAssertEqual(r.status, 2, "\(args)")
            XCTAssertTrue(r.stderr.contains(words), r.stderr)
        }
        // A product shot trimmed, then letterboxed (sharp's trim() then fit: contain): the
        // kept 40x20 fitted to 20x10 as Pillow resizes that box, on black bars above and below.
        let pad = CLI.run(["fit", "--size", "20x20", "--pad", "--background", "000000", "--trim", png, "-o", dir + "/p.png"])
        XCTAssertEqual(pad.status, 0, pad.stderr)
        guard let same = CLI.python(#"""
            import sys, numpy as np
            from PIL import Image
            want = Image.new("RGB", (20, 20), (0, 0, 0))
            want.paste(Image.open(sys.argv[1]).resize((20, 10), Image.Resampling.BILINEAR, box=(30, 25, 70, 45)), (0, 5))
            got = Image.open(sys.argv[2]).convert("RGB")
            print(got.size, int(np.abs(np.asarray(got, int) - np.asarray(want, int)).max()))
            """#, [png, dir + "/p.png"]) else { throw missingReference("python3 cannot be started") }
        XCTAssertEqual(String(decoding: same.stdout, as: UTF8.self), "(20, 20) 0\n", String(decoding: same.stderr, as: UTF8.self))
    }

    /// A drawing (SVG) is trimmed at its own size, and each output drawn for the part kept:
    /// a disc on a wide white page, trimmed and letterboxed at 64x64 or fitted 400 wide, is
    /// within a level of the same disc alone on a page of its own box, drawn at that size
    /// (librsvg draws both); its placeholder is reported, and its default name is a PNG's.
    func testADrawingIsTrimmedAtItsOwnSizeThenDrawnForThePart() throws {
        let dir = CLI.tempDir()
        let disc = ##"<circle cx="70" cy="50" r="20" fill="#c03"/></svg>"##
        try (#"<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"><rect width="200" height="100" fill="white"/>"# + disc)
            .write(toFile: dir + "/page.svg", atomically: true, encoding: .utf8)
        try (#"<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40" viewBox="50 30 40 40"><rect x="50" y="30" width="40" height="40" fill="white"/>"# + disc)
            .write(toFile: dir + "/alone.svg", atomically: true, encoding: .utf8)
        for (i, op) in [["fit", "--size", "64x64", "--pad"], ["fit", "--size", "400x"]].enumerated() {
            let trimmed = CLI.run(op + ["--trim", dir + "/page.svg", "-o", dir + "/t\(i).png"])
            XCTAssertEqual(trimmed.status, 0, trimmed.stderr)
            XCTAssertEqual(CLI.run(op + [dir + "/alone.svg", "-o", dir + "/a\(i).png"]).status, 0)
            XCTAssertEqual(CLI.size(dir + "/t\(i).png"), i == 0 ? "64x64" : "400x400")
            guard let diff = CLI.python(#"""
                import sys, numpy as np
                from PIL import Image
                a, b = (np.asarray(Image.open(p).convert("RGB"), int) for p in sys.argv[1:3])
                print(int(np.abs(a - b).max()) if a.shape == b.shape else -1)
                """#, [dir + "/t\(i).png", dir + "/a\(i).png"]) else { throw missingReference("python3 cannot be started") }
            let worst = Int(String(decoding: diff.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
            XCTAssertTrue((0...1).contains(worst), "\(op): the trimmed drawing is \(worst) levels from the disc's own")
        }
        let report = CLI.run(["fill", "--size", "32x32", "--trim", "--placeholder", "color", dir + "/page.svg", "--out-dir", dir + "/out", "--report", "-"])
        XCTAssertEqual(report.status, 0, report.stderr)
        XCTAssertTrue(report.stdout.contains("\"output\":\"\(dir)/out/page.png\"") && report.stdout.contains("\"color\":\"#cc0033\""), report.stdout)
    }
}
