import XCTest
import TestReferences
import Foundation

/// --background as CSS and ImageMagick users write it, transparent pads in the formats
/// that hold alpha (read back by Pillow), a usage error where alpha cannot be held, and
/// option values in any case.
final class BackgroundTests: XCTestCase {
    let scene = CLI.testImages + "/scene-640x427.jpg"

    /// Pillow's reading of pixels (x, y) of `path`, as "R,G,B,A" each.
    private func pixels(_ path: String, _ points: [(Int, Int)]) throws -> String {
        guard let reply = CLI.python("""
            import sys; from PIL import Image
            im = Image.open(sys.argv[1]).convert("RGBA")
            pts = [tuple(map(int, p.split(","))) for p in sys.argv[2:]]
            sys.stdout.write(" ".join(",".join(map(str, im.getpixel(p))) for p in pts))
            """, [path] + points.map { "\($0.0),\($0.1)" }), reply.status == 0 else { throw missingReference("python3 with Pillow") }
        return String(decoding: reply.stdout, as: UTF8.self)
    }

    func testTransparentPadsInEveryFormatThatHoldsAlpha() throws {
        let dir = CLI.tempDir()
        for ext in ["png", "webp", "avif"] {
            let out = dir + "/pad.\(ext)"
            let r = CLI.run(["fit", "--size", "200x200", "--pad", "--background", "transparent", scene, "-o", out])
            XCTAssertEqual(r.status, 0, r.stderr)
            let seen = try pixels(out, [(0, 0), (199, 199), (100, 100)]).split(separator: " ")
            XCTAssertEqual(seen.count, 3)
            XCTAssertEqual(seen.prefix(2).map { $0.split(separator: ",").last }, ["0", "0"], "\(ext): \(seen)")
            XCTAssertEqual(seen.last?.split(separator: ",").last, "255", "\(ext): \(seen)")
        }
        // Half-transparent red over a gray input: the pad keeps its alpha.
        XCTAssertEqual(CLI.run(["fit", "--size", "40x40", "--pad", "--background", "ff000080", CLI.testImages + "/gray16-33x17.png",
                                "-o", dir + "/half.png"]).status, 0)
        XCTAssertEqual(try pixels(dir + "/half.png", [(0, 0)]), "255,0,0,128")
        for (option, message) in [(["-o", dir + "/x.jpg"], "has alpha, which JPEG cannot hold"),
                                  (["--flatten", "-o", dir + "/x.png"], "--flatten needs an opaque --background")] {
            let r = CLI.run(["fit", "--size", "20x20", "--pad", "--background", "00000000", scene] + option)
            XCTAssertEqual(r.status, 2, r.stderr)
            XCTAssertTrue(r.stderr.contains(message), r.stderr)
        }
    }

    func testColourSyntaxesAgree() throws {
        let dir = CLI.tempDir()
        let spellings = [("000080", "0,0,128,255"), ("#000080", "0,0,128,255"), ("NAVY", "0,0,128,255"), ("Navy", "0,0,128,255"),
                         ("abc", "170,187,204,255"), ("#ABCF", "170,187,204,255"), ("aabbcc80", "170,187,204,128"),
                         ("rebeccapurple", "102,51,153,255"), ("Transparent", "0,0,0,0")]
        for (i, (text, rgba)) in spellings.enumerated() {
            let out = dir + "/\(i).png"
            let r = CLI.run(["fit", "--size", "20x20", "--pad", "--background", text, CLI.testImages + "/gradient-rgb-64x48.png", "-o", out])
            XCTAssertEqual(r.status, 0, "\(text): \(r.stderr)")
            XCTAssertEqual(try pixels(out, [(0, 0)]), rgba, text)
        }
        for bad in ["12345", "notacolour", "#ggg", ""] {
            let r = CLI.run(["fit", "--size", "20x20", "--pad", "--background", bad, scene, "-o", dir + "/bad.png"])
            XCTAssertEqual(r.status, 2, bad)
            XCTAssertTrue(r.stderr.contains("--background must be RRGGBB, RRGGBBAA, RGB or RGBA hex"), r.stderr)
        }
        // The 148 CSS names are Pillow's ImageColor table.
        guard let reply = CLI.python("""
            import sys; from PIL import ImageColor
            sys.stdout.write(" ".join(sorted(k + "=" + v.lower() for k, v in ImageColor.colormap.items())))
            """, []), reply.status == 0 else { throw missingReference("python3 with Pillow") }
        let names = String(decoding: reply.stdout, as: UTF8.self).split(separator: " ")
        XCTAssertEqual(names.count, 148)
        for (k, entry) in names.enumerated() where k % 7 == 0 {
            let parts = entry.split(separator: "=")
            let out = dir + "/name.png"
            let r = CLI.run(["fit", "--size", "9x4", "--pad", "--background", String(parts[0]), CLI.testImages + "/two-colour-8x8.png", "-o", out])
            XCTAssertEqual(r.status, 0, r.stderr)
            let hex = String(parts[1].dropFirst())
            let v = Int(hex, radix: 16)!
            XCTAssertEqual(try pixels(out, [(0, 0)]), "\(v >> 16),\(v >> 8 & 255),\(v & 255),255", String(parts[0]))
        }
    }

    func testOptionValuesAreCaseInsensitive() throws {
        let dir = CLI.tempDir()
        XCTAssertEqual(CLI.run(["fill", "--size", "50x50", "--gravity", "north", scene, "-o", dir + "/a.png"]).status, 0)
        let r = CLI.run(["fill", "--size", "50x50", "--gravity", "NORTH", "--filter", "Bilinear", "--format", "PNG", scene, "-o", dir + "/b.png"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(CLI.bytes(dir + "/a.png"), CLI.bytes(dir + "/b.png"))
        XCTAssertEqual(CLI.run(["convert", "--format", "JPG", scene, "-o", dir + "/c.jpg"]).status, 0)
    }
}
