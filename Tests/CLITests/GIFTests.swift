import XCTest
import TestReferences
import Foundation
import ImageScaler

/// GIF through the built imgscale: first frames equal Pillow's `convert("RGBA")` on
/// GIFs Pillow writes here (static, interlaced, transparent, an animation whose first
/// frame covers part of the screen) and on the shared corpus; damage is refused, or
/// decoded as far as it goes under --fail-on.
final class GIFTests: XCTestCase {
    static let formats = CLI.testdata + "/formats"

    func testFirstFramesEqualPillows() throws {
        let dir = CLI.tempDir()
        let made = CLI.sh("""
            python3 - <<'EOF'
            from PIL import Image, ImageDraw
            scene = Image.open('\(CLI.testImages)/scene-640x427.jpg').convert('RGB').resize((160, 107))
            p = scene.quantize(256)
            p.save('static.gif')
            p.save('interlaced.gif', interlace=True)
            t = Image.new('P', (90, 70), 0)
            t.putpalette([0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255] + [0] * 756)
            ImageDraw.Draw(t).ellipse((10, 10, 80, 60), fill=1)
            ImageDraw.Draw(t).rectangle((30, 5, 50, 65), fill=2)
            t.save('transparent.gif', transparency=0)
            frames = [Image.new('RGB', (64, 48), c).quantize(4) for c in ((200, 30, 30), (30, 200, 30))]
            frames[0].save('anim.gif', save_all=True, append_images=frames[1:], duration=100, loop=0)
            for name in ('static', 'interlaced', 'transparent', 'anim'):
                Image.open(name + '.gif').convert('RGBA').save(name + '-ref.png')
            EOF
            """, cwd: dir)
        if made.stderr.contains("No module named") { throw missingReference("Pillow is not installed") }
        XCTAssertEqual(made.status, 0, made.stderr)
        for name in ["static", "interlaced", "transparent", "anim"] {
            let r = CLI.run(["convert", dir + "/\(name).gif", "-o", dir + "/\(name).png"])
            XCTAssertEqual(r.status, 0, r.stderr)
            let c = CLI.run(["compare", dir + "/\(name)-ref.png", dir + "/\(name).png"])
            XCTAssertEqual(c.status, 0, "\(name): \(c.stdout)")
        }
        XCTAssertTrue(CLI.run(["info", dir + "/anim.gif"]).stdout.contains("2 frames"))
        XCTAssertEqual(try ImageCodec.info(try ImageFile.read(dir + "/transparent.png")).channels, 4, "transparency is alpha")
        // Thumbnails from GIF, and to GIF (AnimationTests holds its pixels to Pillow's).
        XCTAssertEqual(CLI.run(["fill", "--size", "32x32", dir + "/static.gif", "-o", dir + "/t.webp"]).status, 0)
        XCTAssertEqual(CLI.run(["convert", dir + "/static.png", "-o", dir + "/x.gif"]).status, 0)
        XCTAssertEqual(CLI.size(dir + "/x.gif"), CLI.size(dir + "/static.png"))
    }

    func testSharedCorpus() throws {
        guard FileManager.default.fileExists(atPath: Self.formats) else {
            throw missingReference("\(Self.formats) is missing; the Pillow-made GIFs above still ran")
        }
        let dir = CLI.tempDir()
        let names = CLI.files(Self.formats).filter { $0.hasPrefix("gif-") }
        XCTAssertEqual(names.count, 5)
        for name in names {
            let stem = (name as NSString).deletingPathExtension
            XCTAssertEqual(CLI.run(["convert", Self.formats + "/" + name, "-o", dir + "/\(stem).png"]).status, 0)
            let c = CLI.run(["compare", Self.formats + "/ref/\(stem).png", dir + "/\(stem).png"])
            XCTAssertEqual(c.status, 0, "\(name): \(c.stdout)")
        }
        for (name, message) in [("broken-truncated.gif", "truncated GIF"), ("broken-lzw-codesize.gif", "LZW code size")] {
            let r = CLI.run(["fill", "--size", "32x32", Self.formats + "/" + name, "-o", dir + "/b.png"])
            XCTAssertEqual(r.status, 1)
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
            XCTAssertTrue(r.stderr.contains(message), r.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/b.png"))
        }
        let tolerant = CLI.run(["fill", "--size", "32x32", "--fail-on", "none", Self.formats + "/broken-truncated.gif", "-o", dir + "/b.png"])
        XCTAssertEqual(tolerant.status, 0, tolerant.stderr)
        XCTAssertTrue(tolerant.stderr.contains("144 of 240 rows decoded"), tolerant.stderr)
    }
}
